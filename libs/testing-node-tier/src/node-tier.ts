/**
 * `acquireNodeTier()`: the machine's one real single-node cluster — control plane, containerd,
 * kubelet, kube-proxy, scheduler, the workload controllers, dynamic local volumes — started by
 * the first test process that asks and shared by every other (a lease each, a namespace each), and
 * stopped by its supervisor once the last lease is gone.
 */
import { repoRoot } from '@steward/testing';
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { readdir, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import {
  localImages,
  nodeTierBinaries,
  type LocalImage,
  type NodeTierBinaries,
} from './binaries.js';
import { missingPrivileges, NodeTierUnavailableError, processAlive, run } from './host.js';
import { defaultLingerMs } from './linger.js';
import {
  acquireMultiNodeTier,
  type MultiNodeTier,
  type MultiNodeTierOptions,
} from './multi-node-tier.js';
import {
  leaseDir,
  nodeTierLayout,
  startLockFile,
  stateFile,
  type NodeTierLayout,
  type NodeTierState,
  type SupervisorConfig,
} from './layout.js';

export interface NodeTierOptions {
  /** How long to wait for a starting tier to be Ready. Default 5 minutes. */
  readyTimeoutMs?: number;
  /**
   * How long a tier this call starts stays up once no lease is left, so that suites run one after
   * another share it. Default 20 s.
   */
  lingerMs?: number;
}

/** A lease on the machine's node tier. */
export interface NodeTier {
  /** `https://<hostAddress>:<port>` */
  readonly server: string;
  /** The admin kubeconfig (system:masters). */
  readonly kubeconfigPath: string;
  readonly kubeConfig: KubeConfig;
  readonly client: KubernetesObjectApi;
  /** The kubelet's identity (system:node:<name>, Node authorizer + NodeRestriction). */
  readonly nodeKubeconfigPath: string;
  /** This machine as pods see it (the bridge address): where backends for pods must listen. */
  readonly hostAddress: string;
  readonly nodeName: string;
  /** The default StorageClass: dynamic local volumes, deleted with their claim. */
  readonly storageClass: string;
  /** The same local volumes on a class that allows growth: a claim asking for more is resized. */
  readonly expandableStorageClass: string;
  readonly layout: NodeTierLayout;
  readonly binaries: NodeTierBinaries;
  /** Imports an image into containerd unless it is there already (no registry: `imagePullPolicy: Never`). */
  importImage(image: LocalImage): Promise<void>;
  /**
   * Signals or freezes a running container's task through containerd, as a crash or a hung
   * process would (`kill` sends SIGKILL to its main process; `pause` freezes every process of it,
   * `resume` thaws them). `containerId` as a pod's status reports it (`containerd://` optional).
   */
  containerTask(containerId: string, action: 'kill' | 'pause' | 'resume'): Promise<void>;
  /** A new namespace, unique to this call; deleted by `release()`. */
  createNamespace(prefix: string): Promise<string>;
  /** Gives the lease back; the tier stops once no lease is left (after its linger time). */
  release(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Joins the machine's node tier, or starts it when none runs (building what is missing first:
 * a cold build takes minutes, with progress on stderr). Fails, naming what is missing, on a machine
 * without the privileges the tier needs — never skips.
 *
 * With `{ nodes: 3 }`: the multi-node tier instead (three nodes in three zones, node faults; a
 * separate instance, held by one test process at a time and reset on each acquire) — see
 * `multi-node-tier.ts` and docs/multi-node-tier.md.
 */
export function acquireNodeTier(options: MultiNodeTierOptions): Promise<MultiNodeTier>;
export function acquireNodeTier(options?: NodeTierOptions & { nodes?: 1 }): Promise<NodeTier>;
export function acquireNodeTier(
  options: NodeTierOptions & { nodes?: 1 | 3; networkPolicy?: boolean } = {},
): Promise<NodeTier | MultiNodeTier> {
  if (options.nodes === 3) return acquireMultiNodeTier({ ...options, nodes: 3 });
  return acquireSingleNodeTier(options);
}

async function acquireSingleNodeTier(options: NodeTierOptions): Promise<NodeTier> {
  const missing = await missingPrivileges();
  if (missing.length) throw new NodeTierUnavailableError(missing);
  const layout = nodeTierLayout();
  const binaries = await nodeTierBinaries();
  const { pause } = await localImages('pause');
  mkdirSync(leaseDir(layout), { recursive: true });
  mkdirSync(layout.logDir, { recursive: true });
  const lease = takeLease(layout);
  try {
    const state = await readyState(
      layout,
      {
        binaries,
        sandboxImage: pause!,
        lingerMs: options.lingerMs ?? defaultLingerMs(),
      },
      options.readyTimeoutMs ?? 5 * 60_000,
    );
    return await handle(layout, binaries, state, lease);
  } catch (error) {
    lease.drop();
    throw error;
  }
}

interface Lease {
  drop(): void;
}

/** A lease file named after this process; dropped on release, on exit, and by the supervisor once this process is gone. */
function takeLease(layout: NodeTierLayout): Lease {
  const file = join(leaseDir(layout), String(process.pid));
  leaseCount.set(file, (leaseCount.get(file) ?? 0) + 1);
  writeFileSync(file, `${process.argv.slice(1).join(' ')}\n`);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const f of leaseCount.keys()) rmSync(f, { force: true });
    });
  }
  let dropped = false;
  return {
    drop: () => {
      if (dropped) return;
      dropped = true;
      const n = (leaseCount.get(file) ?? 1) - 1;
      if (n > 0) leaseCount.set(file, n);
      else {
        leaseCount.delete(file);
        rmSync(file, { force: true });
      }
    },
  };
}

const leaseCount = new Map<string, number>();
let exitHookInstalled = false;

async function readState(layout: NodeTierLayout): Promise<NodeTierState | undefined> {
  try {
    const state = JSON.parse(await readFile(stateFile(layout), 'utf8')) as NodeTierState;
    return alive(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

const alive = processAlive;

/** Waits for a Ready tier, starting a supervisor when none is alive (one starter wins a lock). */
async function readyState(
  layout: NodeTierLayout,
  config: SupervisorConfig,
  timeoutMs: number,
): Promise<NodeTierState> {
  const deadline = Date.now() + timeoutMs;
  let lastMessage = '';
  let reported = 0;
  for (;;) {
    const state = await readState(layout);
    if (state?.phase === 'ready') return state;
    if (state?.phase === 'failed')
      throw new Error(`${state.message ?? 'steward: node tier failed'}; logs in ${layout.logDir}`);
    if (!state) await startSupervisor(layout, config);
    else if (state.message && state.message !== lastMessage) {
      lastMessage = state.message;
      process.stderr.write(`node-tier: ${state.message}\n`);
    }
    if (Date.now() > deadline)
      throw new Error(
        `steward: the node tier was not Ready after ${timeoutMs} ms (last step: ${lastMessage || 'none'}); ` +
          `logs in ${layout.logDir}`,
      );
    if (Date.now() - reported > 30_000 && reported)
      process.stderr.write('node-tier: still starting...\n');
    reported ||= Date.now();
    await sleep(250);
  }
}

async function startSupervisor(layout: NodeTierLayout, config: SupervisorConfig): Promise<void> {
  const lock = startLockFile(layout);
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch {
    // another process is starting one; a lock left by a dead starter is taken over
    const holder = Number(await readFile(lock, 'utf8').catch(() => '0'));
    if (!holder || !alive(holder)) await unlink(lock).catch(() => {});
    return;
  }
  const log = openSync(join(layout.logDir, 'supervisor.log'), 'a');
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'supervisor.ts')],
      {
        cwd: repoRoot(),
        detached: true,
        stdio: ['ignore', log, log],
        env: { ...process.env, STEWARD_NODE_TIER_CONFIG: JSON.stringify(config) },
      },
    );
    child.unref();
    // the supervisor removes the lock once it has published its state; until then it holds it
    writeFileSync(lock, String(child.pid));
  } finally {
    closeSync(log);
  }
  process.stderr.write(
    `node-tier: starting the machine's node tier (logs in ${layout.logDir}; a cold start imports images)\n`,
  );
}

async function handle(
  layout: NodeTierLayout,
  binaries: NodeTierBinaries,
  state: NodeTierState,
  lease: Lease,
): Promise<NodeTier> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfigPath!);
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespaces: string[] = [];
  const ctr = (...args: string[]): Promise<string> =>
    run(binaries.ctr, ['--address', state.containerdSocket!, '--namespace', 'k8s.io', ...args]);
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await Promise.all(
      namespaces.map((name) =>
        core.deleteNamespace({ name, propagationPolicy: 'Background' }).catch(() => undefined),
      ),
    );
    lease.drop();
  };
  return {
    server: state.server!,
    kubeconfigPath: state.kubeconfigPath!,
    kubeConfig,
    client,
    nodeKubeconfigPath: state.nodeKubeconfigPath!,
    hostAddress: layout.hostAddress,
    nodeName: layout.nodeName,
    storageClass: layout.storageClass,
    expandableStorageClass: layout.expandableStorageClass,
    layout,
    binaries,
    containerTask: async (containerId, action) => {
      const id = containerId.replace(/^containerd:\/\//, '');
      if (action === 'kill') await ctr('tasks', 'kill', '--signal', 'SIGKILL', id);
      else await ctr('tasks', action, id);
    },
    importImage: async (image) => {
      // By digest, not by name: a rebuilt image keeps its reference (e.g. postgres:17.12) and
      // must replace the one containerd holds from an earlier build.
      const want = await archiveDigest(image.archive);
      const present = (await ctr('images', 'ls'))
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .find((cols) => cols[0] === image.ref);
      if (present?.[2] !== want) await ctr('images', 'import', image.archive);
    },
    createNamespace: async (prefix) => {
      const name = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 7)}`.slice(
        0,
        63,
      );
      await core.createNamespace({ body: { metadata: { name } } });
      namespaces.push(name);
      return name;
    },
    release,
    [Symbol.asyncDispose]: release,
  };
}

/**
 * Stops the machine's node tier now and resolves once its supervisor has cleaned up and exited.
 * With `onlyIfUnused`, only when no live process holds a lease (what `npm start` does on Ctrl-C:
 * a test run sharing the tier keeps it). Resolves false when it left a tier running.
 */
export async function stopNodeTier(options: { onlyIfUnused?: boolean } = {}): Promise<boolean> {
  const layout = nodeTierLayout();
  const state = await readState(layout);
  if (!state) return true;
  if (options.onlyIfUnused) {
    const leases = await readdir(leaseDir(layout)).catch(() => [] as string[]);
    if (leases.some((name) => alive(Number(name)))) return false;
  }
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 120_000;
  while (alive(state.pid)) {
    if (Date.now() > deadline)
      throw new Error(`steward: the node tier (pid ${state.pid}) did not stop within 120 s`);
    await sleep(250);
  }
  return true;
}

/** The manifest digest an OCI image archive's index.json names (what `ctr images ls` shows). */
async function archiveDigest(archive: string): Promise<string | undefined> {
  const index = await run('tar', ['-xOf', archive, '--occurrence=1', 'index.json']);
  return (JSON.parse(index) as { manifests?: { digest?: string }[] }).manifests?.[0]?.digest;
}
