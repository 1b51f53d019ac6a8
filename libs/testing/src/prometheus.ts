import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { defaultListenHost, type ListenHostOption } from './listen-host.js';
import { ManagedProcess } from './managed-process.js';
import { runPrintEnv } from './print-env.js';
import { repoRoot } from './repo-root.js';

/** A scrape job whose targets the test sets (and changes) while Prometheus runs. */
export interface ScrapeJob {
  name: string;
  /** `host:port` targets scraped at `/metrics`; changeable later with `setTargets`. */
  targets?: string[];
  /**
   * Keep the scraped series' own `job` and `instance` (what the collector's exporter sets from the
   * resource: service.name, service.instance.id). Default false: they become `exported_job`...
   */
  honorLabels?: boolean;
}

export interface PrometheusOptions extends ListenHostOption {
  jobs: ScrapeJob[];
  /** Scrape and rule evaluation interval. Default 1 s (tests want data quickly). */
  intervalSeconds?: number;
  /** Rule files (alerting or recording) to load. */
  ruleFiles?: string[];
  readyTimeoutMs?: number;
  keepDataDir?: boolean;
}

/** The parts of an instant query's answer (`/api/v1/query`) a test reads. */
export interface PromSeries {
  metric: Record<string, string>;
  value: [number, string];
}

export interface ScrapeTarget {
  job: string;
  instance: string;
  health: 'up' | 'down' | 'unknown';
  lastError: string;
}

export interface Prometheus {
  /** `http://host:port`: the web UI and the HTTP API. */
  readonly url: string;
  readonly logFile: string;
  readonly pid: number;
  /** Replaces a job's targets (file-based discovery: no reload). */
  setTargets(job: string, targets: string[]): Promise<void>;
  /** An instant query; rejects with Prometheus' own error for a query it refuses. */
  query(expr: string, time?: Date): Promise<PromSeries[]>;
  /** Every active target and its health. */
  targets(): Promise<ScrapeTarget[]>;
  /** The alerting rules' state (`/api/v1/rules`), by alert name: inactive, pending or firing. */
  alerts(): Promise<Record<string, string>>;
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const maxStartAttempts = 3;

/** Prometheus' configuration: one file-discovered scrape config per job. */
export function prometheusConfig(
  jobs: ScrapeJob[],
  dataDir: string,
  intervalSeconds: number,
  ruleFiles: string[],
): object {
  return {
    global: {
      scrape_interval: `${intervalSeconds}s`,
      scrape_timeout: `${intervalSeconds}s`,
      evaluation_interval: `${intervalSeconds}s`,
    },
    rule_files: ruleFiles,
    scrape_configs: jobs.map((job) => ({
      job_name: job.name,
      honor_labels: job.honorLabels ?? false,
      file_sd_configs: [{ files: [targetsFile(dataDir, job.name)], refresh_interval: '1s' }],
    })),
  };
}

const targetsFile = (dataDir: string, job: string) =>
  join(dataDir, `targets-${job.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`);

/**
 * Starts Prometheus (Debian's package, unpacked on first use by tools/backends/prometheus/
 * install.sh) on a free port of `host` with its data in a temporary directory, and returns once it
 * is ready. Nothing outlives `stop()`, the test process, or a SIGINT.
 */
export async function startPrometheus(options: PrometheusOptions): Promise<Prometheus> {
  const bin = await prometheusBinaries();
  const host = options.host ?? defaultListenHost;
  const interval = options.intervalSeconds ?? 1;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-prometheus-'));
  const setTargets = async (job: string, targets: string[]) => {
    const file = targetsFile(dataDir, job);
    // written whole, then renamed: Prometheus never reads half a file
    await writeFile(`${file}.tmp`, JSON.stringify([{ targets, labels: {} }]));
    await rename(`${file}.tmp`, file);
  };
  let proc: ManagedProcess | undefined;
  let url = '';
  try {
    for (const job of options.jobs) await setTargets(job.name, job.targets ?? []);
    const config = join(dataDir, 'prometheus.yml');
    await writeFile(
      config,
      JSON.stringify(prometheusConfig(options.jobs, dataDir, interval, options.ruleFiles ?? [])),
    );
    for (let attempt = 1; ; attempt++) {
      const address = `${host}:${await freePort(host)}`;
      url = `http://${address}`;
      proc = ManagedProcess.start(
        'prometheus',
        bin.prometheus,
        [
          `--config.file=${config}`,
          `--storage.tsdb.path=${join(dataDir, 'data')}`,
          `--web.listen-address=${address}`,
          `--web.local-assets=${bin.assets}`,
          '--web.enable-lifecycle',
          '--log.level=warn',
        ],
        join(dataDir, `prometheus-${attempt}.log`),
      );
      try {
        await waitReady(proc, url, readyTimeoutMs);
        break;
      } catch (error) {
        await proc.stop();
        if (!/address already in use/i.test(proc.logTail()) || attempt >= maxStartAttempts)
          throw error;
      }
    }
  } catch (error) {
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }

  const running = proc;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await running.stop();
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
  };
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success')
      throw new Error(`steward: Prometheus refused ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  return {
    url,
    logFile: running.logFile,
    pid: running.pid!,
    setTargets,
    query: async (expr, time) => {
      const params = new URLSearchParams({ query: expr });
      if (time) params.set('time', String(time.getTime() / 1000));
      const data = await api<{ resultType: string; result: PromSeries[] | [number, string] }>(
        `/api/v1/query?${params.toString()}`,
      );
      // a scalar or string answer is one value without labels
      return data.resultType === 'vector' || data.resultType === 'matrix'
        ? (data.result as PromSeries[])
        : [{ metric: {}, value: data.result as [number, string] }];
    },
    targets: async () => {
      const data = await api<{
        activeTargets: {
          labels: Record<string, string>;
          health: ScrapeTarget['health'];
          lastError: string;
        }[];
      }>('/api/v1/targets?state=active');
      return data.activeTargets.map((t) => ({
        job: t.labels['job'] ?? '',
        instance: t.labels['instance'] ?? '',
        health: t.health,
        lastError: t.lastError,
      }));
    },
    alerts: async () => {
      const data = await api<{
        groups: { rules: { type: string; name: string; state?: string }[] }[];
      }>('/api/v1/rules?type=alert');
      const states: Record<string, string> = {};
      for (const group of data.groups)
        for (const rule of group.rules) states[rule.name] = rule.state ?? 'inactive';
      return states;
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

async function waitReady(proc: ManagedProcess, url: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running)
      throw new Error(
        `steward: Prometheus exited during start-up; log ${proc.logFile}:\n${proc.logTail()}`,
      );
    const ok = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(2_000) })
      .then(async (r) => (await r.text(), r.ok))
      .catch(() => false);
    if (ok && proc.running) return;
    if (Date.now() > deadline)
      throw new Error(
        `steward: Prometheus was not ready at ${url} after ${timeoutMs} ms; log ${proc.logFile}:\n${proc.logTail()}`,
      );
    await sleep(100);
  }
}

export interface PrometheusBinaries {
  prometheus: string;
  promtool: string;
  /** The web UI's assets (--web.local-assets). */
  assets: string;
}

let pending: Promise<PrometheusBinaries> | undefined;

/**
 * Where Prometheus, promtool and the UI's assets are: the `STEWARD_PROMETHEUS_*` variables, or
 * unpacked on first use by `tools/backends/prometheus/install.sh` (instant when cached).
 */
export function prometheusBinaries(): Promise<PrometheusBinaries> {
  pending ??= (async () => {
    let env: Record<string, string | undefined> = process.env;
    if (
      !env['STEWARD_PROMETHEUS_BIN'] ||
      !env['STEWARD_PROMTOOL_BIN'] ||
      !env['STEWARD_PROMETHEUS_ASSETS']
    )
      env = await runPrintEnv(join(repoRoot(), 'tools', 'backends', 'prometheus', 'install.sh'));
    const [prometheus, promtool, assets] = [
      env['STEWARD_PROMETHEUS_BIN'],
      env['STEWARD_PROMTOOL_BIN'],
      env['STEWARD_PROMETHEUS_ASSETS'],
    ];
    if (!prometheus || !promtool || !assets)
      throw new Error(
        'steward: tools/backends/prometheus/install.sh --print-env did not print STEWARD_PROMETHEUS_BIN, STEWARD_PROMTOOL_BIN and STEWARD_PROMETHEUS_ASSETS',
      );
    return { prometheus, promtool, assets };
  })().catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}
