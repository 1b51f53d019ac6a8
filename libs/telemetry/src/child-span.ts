import { type Attributes, type Span, SpanKind, type Tracer } from '@opentelemetry/api';
import { recordSpanError } from './span-error.js';

/** Options of {@link withChildSpan}. */
export interface ChildSpanOptions {
  /** The span kind; `CLIENT` (the default) for calls leaving the process, `INTERNAL` for steps. */
  readonly kind?: SpanKind;
}

/**
 * Runs `fn` inside a span named `name`, a child of the active span (the reconcile's, inside
 * {@link withReconcileSpan}), and active for everything `fn` awaits. Meant for Kubernetes API and
 * external calls: name it after the operation (`GET pods`, `rds.CreateDBInstance`) and put the
 * target in `attributes`. When `fn` throws, the span gets status ERROR, an exception event and
 * `error.type`, and the error is rethrown unchanged.
 */
export function withChildSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: Attributes,
  fn: (span: Span) => Promise<T> | T,
  options: ChildSpanOptions = {},
): Promise<T> {
  return tracer.startActiveSpan(
    name,
    { kind: options.kind ?? SpanKind.CLIENT, attributes },
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        recordSpanError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
