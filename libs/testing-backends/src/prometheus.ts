import {
  defaultListenHost,
  freePort,
  installedEnv,
  ManagedProcess,
  repoRoot,
  type ListenHostOption,
} from '@steward/testing';
import { mkdtemp, rename, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, waitAnswering } from './server-process.js';

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
  for (const job of options.jobs) await setTargets(job.name, job.targets ?? []);
  const config = join(dataDir, 'prometheus.yml');
  await writeFile(
    config,
    JSON.stringify(prometheusConfig(options.jobs, dataDir, interval, options.ruleFiles ?? [])),
  );
  const { proc, info, stop } = await startServerProcess(
    dataDir,
    options.keepDataDir,
    async (attempt) => {
      const address = `${host}:${await freePort(host)}`;
      const url = `http://${address}`;
      const proc = ManagedProcess.start(
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
      const ready = () =>
        waitAnswering(proc, 'Prometheus', [`${url}/-/ready`], readyTimeoutMs, (r) => r.ok);
      return { proc, info: url, ready };
    },
  );
  const url = info;
  const api = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success')
      throw new Error(`steward: Prometheus refused ${path}: ${body.error ?? response.status}`);
    return body.data;
  };
  return {
    url,
    logFile: proc.logFile,
    pid: proc.pid!,
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

export interface PrometheusBinaries {
  prometheus: string;
  promtool: string;
  /** The web UI's assets (--web.local-assets). */
  assets: string;
}

/**
 * Where Prometheus, promtool and the UI's assets are: the `STEWARD_PROMETHEUS_*` variables, or
 * unpacked on first use by `tools/backends/prometheus/install.sh` (instant when cached).
 */
export async function prometheusBinaries(): Promise<PrometheusBinaries> {
  const script = join(repoRoot(), 'tools', 'backends', 'prometheus', 'install.sh');
  const env = await installedEnv(script, [
    'STEWARD_PROMETHEUS_BIN',
    'STEWARD_PROMTOOL_BIN',
    'STEWARD_PROMETHEUS_ASSETS',
  ]);
  return {
    prometheus: env['STEWARD_PROMETHEUS_BIN']!,
    promtool: env['STEWARD_PROMTOOL_BIN']!,
    assets: env['STEWARD_PROMETHEUS_ASSETS']!,
  };
}
