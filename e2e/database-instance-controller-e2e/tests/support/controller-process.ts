import { type KubeConfig } from '@kubernetes/client-node';
import { eventually, freePort, ManagedProcess, repoRoot } from '@steward/testing';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const APP = 'database-instance-controller';

let bundled: string | undefined;

/**
 * Bundles the app exactly as its Nx build target (and the container image) does and returns
 * main.js; once per test process.
 */
export function controllerBundle(): string {
  if (!bundled) {
    const out = execFileSync('npx', ['tsx', 'tools/scripts/bundle-app.ts', APP], {
      cwd: repoRoot(),
      encoding: 'utf8',
    });
    bundled = out.trim().split('\n').at(-1)!;
  }
  return bundled;
}

export interface ControllerProcess {
  readonly process: ManagedProcess;
  readonly probePort: number;
  /** The Prometheus scrape of /metrics. */
  metrics(): Promise<string>;
  /** Resolves once /readyz answers 200 (informers synced). */
  ready(): Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: a crash, nothing runs after it. */
  kill(): Promise<void>;
}

export interface StartControllerOptions {
  /** Identity the process talks to the API server as. */
  kubeConfig: KubeConfig;
  /** Name in logs and the log file. */
  name?: string;
  /** Extra or overriding environment (STEWARD_*). */
  env?: Record<string, string>;
  /** The bundle to run; default {@link controllerBundle}. */
  main?: string;
  /** Working directory; default the repository root. */
  cwd?: string;
}

/** Starts the bundled controller as a child process, its output in a log file of its own. */
export async function startController(options: StartControllerOptions): Promise<ControllerProcess> {
  const main = options.main ?? controllerBundle();
  const dir = await mkdtemp(join(tmpdir(), 'steward-dic-'));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, options.kubeConfig.exportConfig(), { mode: 0o600 });
  const probePort = await freePort();
  const name = options.name ?? APP;
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    KUBECONFIG: kubeconfig,
    STEWARD_PROBE_PORT: String(probePort),
    STEWARD_PROBE_HOST: '127.0.0.1',
    STEWARD_LEADER_ELECT: 'false',
    STEWARD_LOG_LEVEL: 'debug',
    STEWARD_POLL_INTERVAL_SECONDS: '2',
    STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
    POD_NAME: name,
    NODE_OPTIONS: '--enable-source-maps --no-deprecation',
    ...options.env,
  };
  const child = ManagedProcess.start(name, process.execPath, [main], join(dir, `${name}.log`), {
    env,
    cwd: options.cwd ?? repoRoot(),
  });
  const base = `http://127.0.0.1:${probePort}`;
  return {
    process: child,
    probePort,
    metrics: async () => (await fetch(`${base}/metrics`)).text(),
    ready: async () => {
      await eventually(
        async () => {
          if (!child.running) {
            throw new Error(`${name} exited before it was ready:\n${child.logTail()}`);
          }
          const res = await fetch(`${base}/readyz`).catch(() => undefined);
          return res?.status === 200 ? true : undefined;
        },
        { description: `${name} /readyz`, timeoutMs: 30_000 },
      );
    },
    stop: async () => {
      child.signal('SIGTERM');
      return child.exited;
    },
    kill: async () => {
      child.killNow();
      await child.exited;
    },
  };
}
