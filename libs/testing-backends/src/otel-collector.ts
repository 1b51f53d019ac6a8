import {
  defaultListenHost,
  freePort,
  installedEnv,
  ManagedProcess,
  repoRoot,
  type ListenHostOption,
} from '@steward/testing';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServerProcess, waitAnswering } from './server-process.js';

export interface OtelCollectorOptions extends ListenHostOption {
  /** How long to wait for the collector's receiver and exporter to listen. Default 60 s. */
  readyTimeoutMs?: number;
  /** Keep the temporary directory (config, log, traces file) after `stop()`. Default false. */
  keepDataDir?: boolean;
}

/** One span as the file exporter wrote it (OTLP JSON), with its resource and scope. */
export interface CollectedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  resource: Record<string, string | number | boolean>;
  scope: string;
}

/**
 * An OpenTelemetry Collector (tools/otel-collector) owned by one test suite or `npm start`: OTLP
 * over HTTP in, metrics out through its Prometheus exporter, traces into a file of OTLP JSON lines.
 */
export interface OtelCollector {
  /** The OTLP/HTTP base URL (`http://host:port`; the signals go to `/v1/traces`, `/v1/metrics`). */
  readonly otlpEndpoint: string;
  /** `host:port` of the Prometheus exporter: what Prometheus scrapes (`/metrics`). */
  readonly prometheusTarget: string;
  /** The file the traces are written to, one OTLP JSON export request per line. */
  readonly tracesFile: string;
  readonly logFile: string;
  readonly pid: number;
  /** Every span written so far, flattened with its resource's and scope's attributes. */
  spans(): Promise<CollectedSpan[]>;
  /** Stops the collector (it flushes on SIGTERM) and removes its temporary directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * The collector's configuration: the OTLP receiver (HTTP) on `otlp`, metrics batched into the
 * Prometheus exporter on `prometheus` (series unseen for 5 minutes expire, as they would in
 * production), traces batched into the file exporter, and the collector's own telemetry off so
 * that two collectors side by side do not fight over its default port.
 */
export function collectorConfig(otlp: string, prometheus: string, tracesFile: string): object {
  return {
    receivers: { otlp: { protocols: { http: { endpoint: otlp } } } },
    processors: { batch: { timeout: '200ms' } },
    exporters: {
      prometheus: { endpoint: prometheus, metric_expiration: '5m' },
      file: { path: tracesFile, format: 'json', flush_interval: '200ms' },
    },
    service: {
      telemetry: { metrics: { level: 'none' }, logs: { level: 'info' } },
      pipelines: {
        metrics: { receivers: ['otlp'], processors: ['batch'], exporters: ['prometheus'] },
        traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['file'] },
      },
    },
  };
}

/**
 * Starts the collector (built on first use by tools/otel-collector/build.sh, cached by its
 * sources) on two free ports of `host`, and returns once both listen. Nothing outlives `stop()`,
 * the test process, or a SIGINT.
 */
export async function startOtelCollector(
  options: OtelCollectorOptions = {},
): Promise<OtelCollector> {
  const binary = await otelCollectorBinary();
  const host = options.host ?? defaultListenHost;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-otelcol-'));
  const tracesFile = join(dataDir, 'traces.jsonl');
  const { proc, info, stop } = await startServerProcess(
    dataDir,
    options.keepDataDir,
    async (attempt) => {
      const [otlpPort, promPort] = [await freePort(host), await freePort(host)];
      const otlpEndpoint = `http://${host}:${otlpPort}`;
      const prometheusTarget = `${host}:${promPort}`;
      const config = join(dataDir, `config-${attempt}.yaml`);
      await writeFile(
        config,
        JSON.stringify(collectorConfig(`${host}:${otlpPort}`, prometheusTarget, tracesFile)),
      );
      const proc = ManagedProcess.start(
        'otel-collector',
        binary,
        [`--config=file:${config}`],
        join(dataDir, `collector-${attempt}.log`),
      );
      // Any HTTP answer means the port listens (the receiver answers 404 or 405 on its base URL).
      const urls = [otlpEndpoint, `http://${prometheusTarget}/metrics`];
      const ready = () => waitAnswering(proc, 'the OpenTelemetry Collector', urls, readyTimeoutMs);
      return { proc, info: { otlpEndpoint, prometheusTarget }, ready };
    },
  );
  const { otlpEndpoint, prometheusTarget } = info;
  return {
    otlpEndpoint,
    prometheusTarget,
    tracesFile,
    logFile: proc.logFile,
    pid: proc.pid!,
    spans: async () =>
      existsSync(tracesFile) ? parseSpans(await readFile(tracesFile, 'utf8')) : [],
    stop,
    [Symbol.asyncDispose]: stop,
  };
}

type OtlpValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
};
type OtlpAttributes = { key: string; value: OtlpValue }[] | undefined;

function attributes(list: OtlpAttributes): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  for (const { key, value } of list ?? []) {
    const v =
      value.stringValue ??
      (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
      value.doubleValue ??
      value.boolValue;
    if (v !== undefined) out[key] = v;
  }
  return out;
}

/** The spans in the file exporter's output: one ExportTraceServiceRequest (OTLP JSON) per line. */
export function parseSpans(text: string): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    let request: {
      resourceSpans?: {
        resource?: { attributes?: OtlpAttributes };
        scopeSpans?: { scope?: { name?: string }; spans?: Record<string, unknown>[] }[];
      }[];
    };
    try {
      request = JSON.parse(line) as typeof request;
    } catch {
      continue; // a line being written as we read
    }
    for (const rs of request.resourceSpans ?? []) {
      const resource = attributes(rs.resource?.attributes);
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          spans.push({
            traceId: String(s['traceId'] ?? ''),
            spanId: String(s['spanId'] ?? ''),
            parentSpanId: String(s['parentSpanId'] ?? ''),
            name: String(s['name'] ?? ''),
            kind: Number(s['kind'] ?? 0),
            startTimeUnixNano: String(s['startTimeUnixNano'] ?? ''),
            endTimeUnixNano: String(s['endTimeUnixNano'] ?? ''),
            attributes: attributes(s['attributes'] as OtlpAttributes),
            status: (s['status'] as CollectedSpan['status'] | undefined) ?? {},
            resource,
            scope: ss.scope?.name ?? '',
          });
        }
      }
    }
  }
  return spans;
}

/**
 * The collector's path: `STEWARD_OTELCOL_BIN`, or built on first use by
 * `tools/otel-collector/build.sh` (instant when cached; minutes cold, progress on stderr).
 */
export async function otelCollectorBinary(): Promise<string> {
  const script = join(repoRoot(), 'tools', 'otel-collector', 'build.sh');
  return (await installedEnv(script, ['STEWARD_OTELCOL_BIN']))['STEWARD_OTELCOL_BIN']!;
}
