import { type ResourceType } from '@steward/kube';
import { eventually, repoRoot } from '@steward/testing';
import { type OtelCollector, type Prometheus, type ScrapeJob } from '@steward/testing-backends';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Panel {
  title: string;
  type: string;
  targets?: { expr: string }[];
}
interface Variable {
  name: string;
  type: string;
  allValue?: string;
}

/**
 * A panel's query as Grafana sends it: `$job` the chart's, every other variable All (its
 * allValue, else `.*`), `$__rate_interval` 30 s (two scrapes and more at 1 s).
 */
export function filled(expr: string, variables: Variable[], job: string): string {
  let out = expr.replaceAll('$__rate_interval', '30s');
  for (const v of variables) {
    const value = v.name === 'job' ? job : (v.allValue ?? '.*');
    out = out.replaceAll(`$${v.name}`, value);
  }
  return out;
}

/** Every query of `chart`'s generated dashboard, filled in. */
export function dashboardQueries(chart: string): { panel: string; expr: string }[] {
  const board = JSON.parse(
    readFileSync(join(repoRoot(), 'charts', chart, 'dashboards', `${chart}.json`), 'utf8'),
  ) as { panels: Panel[]; templating: { list: Variable[] } };
  return board.panels
    .filter((p) => p.type !== 'row')
    .flatMap((p) =>
      (p.targets ?? []).map((t) => ({
        panel: p.title,
        expr: filled(t.expr, board.templating.list, `steward/${chart}`),
      })),
    );
}

/**
 * The panel queries of `chart`'s dashboard that Prometheus answers with no series (or refuses),
 * once every one answers or after two minutes: rates need two scrapes of a change.
 */
export async function panelsWithoutData(prometheus: Prometheus, chart: string): Promise<string[]> {
  const queries = dashboardQueries(chart);
  if (queries.length < 10) return [`${chart}: only ${queries.length} panel queries`];
  const missing = async () => {
    const out: string[] = [];
    for (const q of queries) {
      const series = await prometheus.query(q.expr).catch((e: unknown) => String(e));
      if (typeof series === 'string') out.push(`${q.panel}: ${q.expr}: ${series}`);
      else if (series.length === 0) out.push(`${q.panel}: ${q.expr}`);
    }
    return out;
  };
  return eventually(
    async () => {
      const out = await missing();
      return out.length === 0 ? out : undefined;
    },
    { description: `every panel of ${chart} answering`, timeoutMs: 120_000, intervalMs: 2_000 },
  ).catch(missing);
}

/** A Steward kind (`v1alpha1`), without importing its family's API lib. */
export const stewardKind = (
  group: string,
  kind: string,
  plural: string,
  namespaced = true,
): ResourceType => ({ group, version: 'v1alpha1', kind, plural, namespaced });

export const Profiles = stewardKind('steward.dev', 'ProviderProfile', 'providerprofiles', false);

/** The environment that makes a controller process export to `collector`, quickly. */
export const otlpEnv = (collector: OtelCollector): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.otlpEndpoint,
  OTEL_METRIC_EXPORT_INTERVAL: '1000',
  OTEL_BSP_SCHEDULE_DELAY: '200',
});

/** Prometheus' job for the collector's exporter: its series keep their job="steward/<chart>". */
export const collectorJob = (collector: OtelCollector): ScrapeJob => ({
  name: 'otel-collector',
  targets: [collector.prometheusTarget],
  honorLabels: true,
});
