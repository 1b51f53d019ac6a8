/**
 * A controller app as its container runs it: the bundle its Nx build target writes
 * (`tools/scripts/bundle-app.ts`), started with `node` as a {@link ManagedProcess} and configured
 * through the STEWARD_* environment its chart sets, against the API server of a kubeconfig.
 */
import { type KubeConfig } from '@kubernetes/client-node';
import { eventually, freePort, ManagedProcess, repoRoot } from '@steward/testing';
import { execFileSync } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bundles = new Map<string, string>();

/**
 * Bundles `apps/<app>` exactly as its Nx build target (and the container image) does and returns
 * the path of its main.js; once per app and test process.
 */
export function controllerBundle(app: string): string {
  let bundle = bundles.get(app);
  if (!bundle) {
    const out = execFileSync('npx', ['tsx', 'tools/scripts/bundle-app.ts', app], {
      cwd: repoRoot(),
      encoding: 'utf8',
    });
    bundle = out.trim().split('\n').at(-1)!;
    bundles.set(app, bundle);
  }
  return bundle;
}

/** A running controller process and its probe port. */
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

export interface StartControllerProcessOptions {
  /** The app under `apps/`, e.g. `kafka-topic-controller`. */
  app: string;
  /** Identity the process talks to the API server as. */
  kubeConfig: KubeConfig;
  /** Name in logs, the log file and `POD_NAME`; default `app`. */
  name?: string;
  /** Extra or overriding environment (STEWARD_*). */
  env?: Record<string, string>;
  /** The bundle to run; default `controllerBundle(app)`. */
  main?: string;
  /** Working directory; default the repository root. */
  cwd?: string;
}

/**
 * Starts a controller app's bundle as a child process, its output in a log file of its own, with
 * the probes and /metrics on a free loopback port, no leader election, debug logs and short poll
 * intervals unless `env` says otherwise.
 */
export async function startControllerProcess(
  options: StartControllerProcessOptions,
): Promise<ControllerProcess> {
  const main = options.main ?? controllerBundle(options.app);
  const name = options.name ?? options.app;
  const dir = await mkdtemp(join(tmpdir(), `steward-${options.app}-`));
  const kubeconfig = join(dir, 'kubeconfig');
  await writeFile(kubeconfig, options.kubeConfig.exportConfig(), { mode: 0o600 });
  const probePort = await freePort();
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
