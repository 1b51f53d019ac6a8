import { type Meter } from '@opentelemetry/api';
import { namespaceGauges, type NamespaceGauge } from './namespace-gauges.js';

/**
 * What a controller knows of one object it reconciles, at the moment metrics are collected. Times
 * are milliseconds since the epoch.
 */
export interface ObjectHealthFacts {
  namespace: string;
  /** The Ready condition's status; `unknown` without one. */
  ready: 'true' | 'false' | 'unknown';
  /** Since when the object has not been Ready (the condition's lastTransitionTime, or creation). */
  notReadySince?: number;
  /** Since when its metadata.generation has been newer than status.observedGeneration. */
  generationUnobservedSince?: number;
  /** Its deletionTimestamp: it is Terminating (finalizers not yet removed). */
  terminatingSince?: number;
  /** The last successful reconcile, or when the controller started watching it if none yet. */
  lastSuccessAt: number;
  /** Reconciles in a row that failed (0 after a success). */
  consecutiveFailures: number;
}

/**
 * Per-object health, aggregated per kind and namespace so that the series count is bounded by
 * kinds × namespaces, never by objects (10,000 objects in 100 namespaces: at most 11 series per
 * kind and namespace, 1,100 per kind). Every gauge is computed from the controller's informer
 * cache at collection time:
 *
 * - `steward_objects{kind,namespace,ready}` — objects by their Ready condition (true/false/unknown)
 * - `steward_objects_longest_not_ready_seconds{kind,namespace}` — how long the object not Ready the
 *   longest has been so (0 when all are Ready)
 * - `steward_objects_generation_unobserved{kind,namespace}` — objects whose status.observedGeneration
 *   lags metadata.generation; `..._longest_generation_unobserved_seconds` — for how long, the worst
 * - `steward_objects_terminating{kind,namespace}` — objects with a deletionTimestamp;
 *   `..._longest_terminating_seconds` — the oldest deletionTimestamp's age (a stuck finalizer)
 * - `steward_objects_longest_since_success_seconds{kind,namespace}` — time since the last
 *   successful reconcile of the object that has gone longest without one
 * - `steward_objects_failing{kind,namespace}` — objects whose last reconcile failed;
 *   `steward_objects_max_consecutive_failures{kind,namespace}` — the longest run of failures
 *
 * The name of the worst object is deliberately not a label: the runbooks say how to find it
 * (`kubectl get <kind> -n <namespace>` and its conditions).
 */
export interface ObjectHealthMetrics {
  /**
   * Reports the objects `facts` yields under `kind` at every collection until the returned
   * function is called (then the kind's series report zeros once and stop). `facts` must be cheap
   * and must not throw.
   */
  observe(kind: string, facts: () => Iterable<ObjectHealthFacts>): () => void;
}

const age = (since: number | undefined, now: number): number | undefined =>
  since === undefined ? undefined : Math.max(0, now - since) / 1000;

/** The gauges of {@link ObjectHealthMetrics}, over each object's facts. */
export const objectHealthGauges: readonly NamespaceGauge<ObjectHealthFacts>[] = [
  ...(['true', 'false', 'unknown'] as const).map((ready): NamespaceGauge<ObjectHealthFacts> => ({
    name: 'steward_objects',
    description: 'Objects per kind and namespace, by their Ready condition.',
    labels: { ready },
    aggregate: 'sum',
    value: (f) => (f.ready === ready ? 1 : 0),
  })),
  {
    name: 'steward_objects_longest_not_ready_seconds',
    description:
      'Seconds the object not Ready the longest has been so, per kind and namespace (0: all Ready).',
    unit: 's',
    aggregate: 'max',
    value: (f, now) => (f.ready === 'true' ? undefined : age(f.notReadySince ?? now, now)),
  },
  {
    name: 'steward_objects_generation_unobserved',
    description:
      'Objects whose status.observedGeneration lags metadata.generation, per kind and namespace.',
    aggregate: 'sum',
    value: (f) => (f.generationUnobservedSince === undefined ? 0 : 1),
  },
  {
    name: 'steward_objects_longest_generation_unobserved_seconds',
    description: 'Seconds the oldest unobserved generation has waited, per kind and namespace.',
    unit: 's',
    aggregate: 'max',
    value: (f, now) => age(f.generationUnobservedSince, now),
  },
  {
    name: 'steward_objects_terminating',
    description: 'Objects with a deletionTimestamp (Terminating), per kind and namespace.',
    aggregate: 'sum',
    value: (f) => (f.terminatingSince === undefined ? 0 : 1),
  },
  {
    name: 'steward_objects_longest_terminating_seconds',
    description: 'Seconds since the oldest deletionTimestamp, per kind and namespace.',
    unit: 's',
    aggregate: 'max',
    value: (f, now) => age(f.terminatingSince, now),
  },
  {
    name: 'steward_objects_longest_since_success_seconds',
    description:
      'Seconds since the last successful reconcile of the object longest without one, per kind and namespace.',
    unit: 's',
    aggregate: 'max',
    value: (f, now) => age(f.lastSuccessAt, now),
  },
  {
    name: 'steward_objects_failing',
    description: 'Objects whose last reconcile failed, per kind and namespace.',
    aggregate: 'sum',
    value: (f) => (f.consecutiveFailures > 0 ? 1 : 0),
  },
  {
    name: 'steward_objects_max_consecutive_failures',
    description: 'The most reconciles in a row that failed for one object, per kind and namespace.',
    aggregate: 'max',
    value: (f) => f.consecutiveFailures,
  },
];

/** Records {@link ObjectHealthMetrics} on `meter`. */
export function objectHealthMetrics(
  meter: Meter,
  now: () => number = Date.now,
): ObjectHealthMetrics {
  const gauges = namespaceGauges(meter, now);
  return {
    observe: (kind, facts) => gauges.observe(kind, objectHealthGauges, facts, (f) => f.namespace),
  };
}

/** {@link ObjectHealthMetrics} that records nothing. */
export const noopObjectHealthMetrics: ObjectHealthMetrics = { observe: () => () => undefined };
