import { RDSClient, type RDSClientConfig } from '@aws-sdk/client-rds';
import {
  defaultListenHost,
  freePort,
  installedEnv,
  ManagedProcess,
  parsePrintEnv,
  repoRoot,
  type ListenHostOption,
} from '@steward/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export interface MotoOptions extends ListenHostOption {
  /** The AWS region the clients use. Moto serves every region. Default `us-east-1`. */
  region?: string;
  /** How long to wait for moto_server to answer HTTP. Default 60 s. */
  readyTimeoutMs?: number;
  /** Keep the temporary directory (moto_server's log) after `stop()`. Default false. */
  keepDataDir?: boolean;
  /**
   * Enforce IAM after this many requests (moto's `INITIAL_NO_AUTH_ACTION_COUNT`): from then on
   * every request must be signed with an access key of an IAM user this server created, and is
   * allowed only by that user's policies — moto evaluates their Action and Resource (so an S3
   * object ARN `arn:aws:s3:::bucket/prefix/*` scopes GetObject, PutObject, DeleteObject), but
   * no Condition (so `s3:prefix` cannot scope ListBucket). The first requests create the user
   * the test goes on with. Default: never (any credentials pass).
   */
  iamAfterRequests?: number;
}

/**
 * A moto_server on its `host` (a real AWS API that keeps its state in memory), owned by one test
 * suite.
 */
export interface Moto {
  /** `http://<host>:<port>` */
  readonly endpoint: string;
  readonly region: string;
  /** Static credentials; moto accepts any. */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  /** moto_server's pid (also its process group id). */
  readonly pid: number;
  /** moto_server's output, inside a temporary directory removed by `stop()`. */
  readonly logFile: string;
  /**
   * A real `@aws-sdk/client-rds` client pointed at this server; `stop()` destroys it. `config`
   * adds to or overrides the endpoint, region and credentials.
   */
  rdsClient(config?: RDSClientConfig): RDSClient;
  /** Forgets every resource in every service and region (`POST /moto-api/reset`). */
  reset(): Promise<void>;
  /** Stops moto_server, destroys the clients and removes the temporary directory. Idempotent. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const maxStartAttempts = 3;
const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

/**
 * Starts moto_server (installed on first use by tools/backends/moto/install.sh into a venv cached
 * outside the repository) on a free port of `host`, and returns once it answers HTTP. Two suites
 * can run side by side; nothing outlives `stop()`, the test process, or a SIGINT.
 */
export async function startMoto(options: MotoOptions = {}): Promise<Moto> {
  const server = await motoServerBinary();
  const region = options.region ?? 'us-east-1';
  const host = options.host ?? defaultListenHost;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-moto-'));
  let logFile = '';
  let proc: ManagedProcess | undefined;
  let endpoint = '';
  try {
    for (let attempt = 1; ; attempt++) {
      const port = await freePort(host);
      endpoint = `http://${host}:${port}`;
      logFile = join(dataDir, `moto_server-${port}.log`);
      proc = ManagedProcess.start(
        'moto_server',
        server,
        ['-H', host, '-p', String(port)],
        logFile,
        options.iamAfterRequests !== undefined
          ? {
              env: {
                ...process.env,
                INITIAL_NO_AUTH_ACTION_COUNT: String(options.iamAfterRequests),
              },
            }
          : {},
      );
      try {
        await waitReady(proc, endpoint, readyTimeoutMs);
        break;
      } catch (error) {
        await proc.stop();
        if (!(error instanceof PortInUseError) || attempt >= maxStartAttempts) throw error;
      }
    }
  } catch (error) {
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  const running = proc;
  const clients: RDSClient[] = [];
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    for (const client of clients.splice(0)) client.destroy();
    await running.stop();
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
  };

  return {
    endpoint,
    region,
    credentials,
    pid: running.pid!,
    logFile,
    rdsClient: (config = {}) => {
      const client = new RDSClient({
        endpoint,
        region,
        credentials: { ...credentials },
        ...config,
      });
      clients.push(client);
      return client;
    },
    reset: async () => {
      const response = await fetch(`${endpoint}/moto-api/reset`, {
        method: 'POST',
        signal: AbortSignal.timeout(10_000),
      });
      await response.text();
      if (!response.ok) {
        throw new Error(`steward: POST ${endpoint}/moto-api/reset answered ${response.status}`);
      }
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

/** moto_server could not bind its port: start again on another. */
export class PortInUseError extends Error {}

/** Whether moto_server's output says its port was taken (werkzeug's words). */
export function isPortClash(log: string): boolean {
  return /address already in use|is in use by another program/i.test(log);
}

/** The path in a `STEWARD_MOTO_SERVER_BIN=path` line of install.sh's `--print-env` output. */
export function parseMotoServerPath(output: string): string | undefined {
  return parsePrintEnv(output)['STEWARD_MOTO_SERVER_BIN'];
}

async function waitReady(proc: ManagedProcess, endpoint: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running) {
      const tail = proc.logTail();
      const message = `steward: moto_server exited during start-up; log ${proc.logFile}:\n${tail}`;
      throw isPortClash(tail) ? new PortInUseError(message) : new Error(message);
    }
    // Moto's own API path, so that another server that took the port does not pass for moto.
    const ok = await fetch(`${endpoint}/moto-api/data.json`, { signal: AbortSignal.timeout(5_000) })
      .then(async (response) => (await response.text(), response.ok))
      .catch(() => false);
    if (ok && proc.running) return;
    if (Date.now() > deadline) {
      throw new Error(
        `steward: moto_server did not answer ${endpoint} after ${timeoutMs} ms; log ${proc.logFile}:\n${proc.logTail()}`,
      );
    }
    await sleep(100);
  }
}

/**
 * The path of moto_server, installed on first use by `tools/backends/moto/install.sh` (instant
 * when cached, about a minute cold, progress on stderr). `STEWARD_MOTO_SERVER_BIN` wins.
 */
export async function motoServerBinary(): Promise<string> {
  const script = join(repoRoot(), 'tools', 'backends', 'moto', 'install.sh');
  return (await installedEnv(script, ['STEWARD_MOTO_SERVER_BIN']))['STEWARD_MOTO_SERVER_BIN']!;
}
