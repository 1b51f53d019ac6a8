import { type Span, SpanKind, type Tracer } from '@opentelemetry/api';
import { type ReconcileOutcome, reconcileResultOf } from './reconcile-result.js';
import { recordSpanError } from './span-error.js';

/** What one reconcile is about: the controller running it and the object it reconciles. */
export interface ReconcileTarget {
  /** The controller's name, as in the `controller` metric label. */
  readonly controller: string;
  /** The reconciled object's kind, e.g. `PostgresCluster`. */
  readonly kind: string;
  /** The object's namespace; absent for cluster-scoped kinds. */
  readonly namespace?: string;
  /** The object's name. */
  readonly name: string;
}

/**
 * Runs one reconcile inside a span named `reconcile <kind>`, active for everything `fn` awaits, so
 * API and external calls made through {@link withChildSpan} nest under it and log lines carry its
 * ids. The span is a trace root: a reconcile is caused by the queue, not by whatever span was active
 * when the worker started.
 *
 * Attributes: `controller`, `k8s.resource.kind`, `k8s.resource.namespace` (when namespaced),
 * `k8s.resource.name`, and on completion `reconcile.result` (see {@link reconcileResultOf}). When
 * `fn` throws, the span also gets status ERROR, an exception event and `error.type`, and the error
 * is rethrown unchanged. Returns what `fn` returns.
 */
export function withReconcileSpan<R extends ReconcileOutcome | void>(
  tracer: Tracer,
  target: ReconcileTarget,
  fn: (span: Span) => Promise<R> | R,
): Promise<R> {
  const attributes: Record<string, string> = {
    controller: target.controller,
    'k8s.resource.kind': target.kind,
    'k8s.resource.name': target.name,
  };
  if (target.namespace) attributes['k8s.resource.namespace'] = target.namespace;
  return tracer.startActiveSpan(
    `reconcile ${target.kind}`,
    { kind: SpanKind.INTERNAL, root: true, attributes },
    async (span) => {
      try {
        const outcome = await fn(span);
        span.setAttribute('reconcile.result', reconcileResultOf(outcome));
        return outcome;
      } catch (error) {
        span.setAttribute('reconcile.result', 'error');
        recordSpanError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}
