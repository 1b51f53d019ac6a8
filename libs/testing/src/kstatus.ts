import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './repo-root.js';

/**
 * kstatus — the status rules of sigs.k8s.io/cli-utils (`pkg/kstatus/status.Compute`, the version
 * tools/kstatus/go.mod pins), on which Flux's health checks, kpt and cli-utils' status poller
 * decide whether an object is reconciled — run for real over objects by the Go program in
 * tools/kstatus.
 *
 * For a custom resource (any kind without built-in rules: core Service, Pod, Secret, ConfigMap,
 * PersistentVolumeClaim, apps Deployment/StatefulSet/DaemonSet/ReplicaSet, batch Job/CronJob,
 * policy PodDisruptionBudget and CustomResourceDefinition have their own), Compute decides, first
 * rule that matches wins (generic.go, status.go):
 *
 * 1. `metadata.deletionTimestamp` set → `Terminating` ("Resource scheduled for deletion").
 * 2. `metadata.generation` and `status.observedGeneration` both present and different →
 *    `InProgress`, "<Kind> generation is G, but latest observed generation is O". An absent
 *    `status.observedGeneration` skips this rule (only DaemonSet's built-in rules demand it).
 * 3. `status.conditions`, in list order, the first of: `Reconciling` = True → `InProgress`;
 *    `Stalled` = True → `Failed`; the message is that condition's. False or Unknown values of these
 *    two are ignored.
 * 4. The first `Ready` condition with a True, False or Unknown status: True → `Current`
 *    ("Resource is Ready"); False or Unknown → `InProgress` with its message.
 * 5. Otherwise `Current` ("Resource is current"), also for an object without any status.
 *
 * A condition's own `observedGeneration` is never read (cli-utils decodes a condition's type,
 * status, reason and message only): a Ready=True condition written for an older generation still
 * gives `Current` once `status.observedGeneration` has caught up. A field of the wrong type
 * (`status.observedGeneration: "1"`) makes Compute fail; tools/kstatus then answers `Unknown` with
 * the error as the message, as cli-utils' poller does. `NotFound` only comes from the poller (a GET
 * that answered 404); Compute never returns it.
 */

/** kstatus's verdict on one object. */
export type KstatusStatus =
  'InProgress' | 'Failed' | 'Current' | 'Terminating' | 'NotFound' | 'Unknown';

/** One entry of tools/kstatus's output, in the order of its input. */
export interface KstatusResult {
  readonly apiVersion: string;
  readonly kind: string;
  /** Empty for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  readonly status: KstatusStatus;
  readonly message: string;
}

/**
 * An object kstatus can judge: apiVersion, kind and metadata.name are required (tools/kstatus
 * refuses an object without them); `status` is what the rules read.
 */
/** An object as kstatus reads it (structurally any Kubernetes object: @steward/kube's KubeObject too). */
export interface KstatusObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: {
    readonly name?: string;
    readonly namespace?: string;
    readonly generation?: number;
    readonly deletionTimestamp?: string;
  };
  readonly spec?: unknown;
  readonly status?: unknown;
}

/** The binary of tools/kstatus cannot be found; the message names what is missing and the fix. */
export class KstatusBinaryMissingError extends Error {
  override name = 'KstatusBinaryMissingError';
}

/** tools/kstatus refused its input or answered something unreadable; `stderr` has its message. */
export class KstatusError extends Error {
  override name = 'KstatusError';
  constructor(
    message: string,
    readonly stderr: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const envName = 'STEWARD_KSTATUS_BIN';
const buildCommand = 'bash tools/kstatus/build.sh';

/**
 * The path of tools/kstatus's binary: `STEWARD_KSTATUS_BIN` when set, else the cache entry that
 * tools/kstatus/build.sh makes for the module's current sources
 * (`${STEWARD_CACHE:-~/.cache/steward}/kstatus-<hash>/bin/kstatus`, the hash computed here exactly
 * as the build's `stamp_of` does).
 * Never builds: it throws {@link KstatusBinaryMissingError} naming the missing path and the build
 * command, so a test fails loudly instead of skipping.
 */
export function kstatusBinary(): string {
  const fromEnv = process.env[envName];
  if (fromEnv) {
    if (!existsSync(fromEnv))
      throw new KstatusBinaryMissingError(
        `steward: ${envName}=${fromEnv} does not exist; build it with \`${buildCommand}\` and ` +
          `set ${envName} from \`eval "$(${buildCommand} --print-env)"\` (or unset it)`,
      );
    return fromEnv;
  }
  const moduleDir = join(repoRoot(), 'tools', 'kstatus');
  const stamp = moduleStamp(moduleDir);
  const cache = process.env['STEWARD_CACHE'] || join(homedir(), '.cache', 'steward');
  const entry = join(cache, `kstatus-${stamp.slice(0, 16)}`);
  const binary = join(entry, 'bin', 'kstatus');
  const built = readFileOrUndefined(join(entry, '.stamp'))?.trim() === stamp && existsSync(binary);
  if (!built)
    throw new KstatusBinaryMissingError(
      `steward: the kstatus binary is missing: ${envName} is unset and ${binary} (the build of ` +
        `tools/kstatus's current sources) does not exist; build it with \`${buildCommand}\``,
    );
  return binary;
}

/**
 * Runs kstatus over `objects` (serialised as JSON; Dates become RFC 3339 strings) and answers one
 * result per object, in order. Rejects with {@link KstatusError} when tools/kstatus refuses the
 * input (an object without apiVersion, kind or metadata.name), and with
 * {@link KstatusBinaryMissingError} when the binary is not built.
 */
export async function kstatus(objects: readonly KstatusObject[]): Promise<KstatusResult[]> {
  const binary = kstatusBinary();
  const input = JSON.stringify(objects);
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = execFile(
      binary,
      [],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, out, stderr) => {
        if (error)
          reject(
            new KstatusError(
              `steward: ${binary} failed: ${stderr.trim() || error.message}`,
              stderr,
              {
                cause: error,
              },
            ),
          );
        else resolve(out);
      },
    );
    // the binary may exit on bad input before reading all of it: its exit status reports that
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(input);
  });
  let results: unknown;
  try {
    results = JSON.parse(stdout);
  } catch (error) {
    throw new KstatusError(`steward: ${binary} printed something other than JSON`, '', {
      cause: error,
    });
  }
  if (!Array.isArray(results) || results.length !== objects.length)
    throw new KstatusError(
      `steward: ${binary} answered ${Array.isArray(results) ? results.length : 'a non-array'} ` +
        `for ${objects.length} objects`,
      '',
    );
  return results as KstatusResult[];
}

/**
 * tools/control-plane/go-build.sh's `stamp_of`: sha256 of go.mod, go.sum, then for each regular
 * `*.go` file below the module (byte-sorted `./relative/path`) its path, a newline and its content.
 */
function moduleStamp(dir: string): string {
  const hash = createHash('sha256');
  hash.update(readFileSync(join(dir, 'go.mod')));
  hash.update(readFileSync(join(dir, 'go.sum')));
  const sources = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.go') && lstatSync(join(dir, path)).isFile())
    .map((path) => `./${path}`)
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  for (const path of sources) {
    hash.update(`${path}\n`);
    hash.update(readFileSync(join(dir, path)));
  }
  return hash.digest('hex');
}

function readFileOrUndefined(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** What GitOps tools read from one object's status (Steward's "GitOps-ready status" rule). */
export interface GitOpsReading {
  /** kstatus's verdict and message. */
  kstatus: KstatusStatus;
  message: string;
  /**
   * Where the object's status does not observe its generation: `status.observedGeneration` or a
   * condition's `observedGeneration` differing from `metadata.generation`. Empty when observed.
   */
  unobserved: string[];
}

/**
 * kstatus's verdict on `obj`, and which parts of its status lag its generation — the two things
 * the "GitOps-ready status" convention promises (DESIGN.md): after any processed generation,
 * everything is observed, and kstatus says Current, InProgress or Failed truthfully.
 */
export async function gitOpsReading(obj: KstatusObject): Promise<GitOpsReading> {
  const [result] = await kstatus([obj]);
  const generation = obj.metadata.generation;
  const status = (obj.status ?? {}) as {
    observedGeneration?: unknown;
    conditions?: { type?: unknown; observedGeneration?: unknown }[];
  };
  const unobserved: string[] = [];
  if (status.observedGeneration !== generation)
    unobserved.push(`status.observedGeneration ${String(status.observedGeneration)}`);
  for (const c of status.conditions ?? [])
    if (c.observedGeneration !== generation)
      unobserved.push(`${String(c.type)}.observedGeneration ${String(c.observedGeneration)}`);
  return { kstatus: result!.status, message: result!.message, unobserved };
}
