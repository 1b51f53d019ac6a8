/** Where OTLP/HTTP data goes, per signal; a signal without a URL is not exported over OTLP. */
export interface OtlpEndpoints {
  readonly traces?: string;
  readonly metrics?: string;
}

/**
 * Resolves the OTLP/HTTP URLs for traces and metrics. An explicitly configured base endpoint wins
 * and gets `/v1/traces` and `/v1/metrics` appended. Otherwise the standard environment applies: a
 * signal-specific `OTEL_EXPORTER_OTLP_{TRACES,METRICS}_ENDPOINT` is used as is, else
 * `OTEL_EXPORTER_OTLP_ENDPOINT` plus the signal's path; `OTEL_{TRACES,METRICS}_EXPORTER=none` or
 * `OTEL_SDK_DISABLED=true` turns the environment's endpoints off. Blank values count as unset.
 */
export function otlpEndpoints(
  configured: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): OtlpEndpoints {
  const base = nonBlank(configured);
  if (base) return { traces: withPath(base, 'v1/traces'), metrics: withPath(base, 'v1/metrics') };
  if (nonBlank(env['OTEL_SDK_DISABLED'])?.toLowerCase() === 'true') return {};
  const envBase = nonBlank(env['OTEL_EXPORTER_OTLP_ENDPOINT']);
  const signal = (name: 'TRACES' | 'METRICS', path: string): string | undefined => {
    if (nonBlank(env[`OTEL_${name}_EXPORTER`])?.toLowerCase() === 'none') return undefined;
    return (
      nonBlank(env[`OTEL_EXPORTER_OTLP_${name}_ENDPOINT`]) ??
      (envBase ? withPath(envBase, path) : undefined)
    );
  };
  const traces = signal('TRACES', 'v1/traces');
  const metrics = signal('METRICS', 'v1/metrics');
  return { ...(traces ? { traces } : {}), ...(metrics ? { metrics } : {}) };
}

function nonBlank(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function withPath(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path}`;
}
