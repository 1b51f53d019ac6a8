import { type Attributes, type Meter } from '@opentelemetry/api';

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

interface Aggregate {
  ready: Record<ObjectHealthFacts['ready'], number>;
  longestNotReady: number;
  unobserved: number;
  longestUnobserved: number;
  terminating: number;
  longestTerminating: number;
  longestSinceSuccess: number;
  failing: number;
  maxFailures: number;
}

const emptyAggregate = (): Aggregate => ({
  ready: { true: 0, false: 0, unknown: 0 },
  longestNotReady: 0,
  unobserved: 0,
  longestUnobserved: 0,
  terminating: 0,
  longestTerminating: 0,
  longestSinceSuccess: 0,
  failing: 0,
  maxFailures: 0,
});

/**
 * Aggregates `facts` per namespace at `now` (pure; what the gauges report). Namespaces in
 * `previously` that have no object now are reported with zeros: the OpenTelemetry SDK keeps an
 * asynchronous series' last value, and a namespace emptied of its last stuck object must not go on
 * saying it is stuck.
 */
export function aggregateObjectHealth(
  facts: Iterable<ObjectHealthFacts>,
  now: number,
  previously: Iterable<string> = [],
): Map<string, Aggregate> {
  const byNamespace = new Map<string, Aggregate>();
  for (const namespace of previously) byNamespace.set(namespace, emptyAggregate());
  const age = (since: number | undefined) =>
    since === undefined ? 0 : Math.max(0, now - since) / 1000;
  for (const f of facts) {
    let a = byNamespace.get(f.namespace);
    if (!a) byNamespace.set(f.namespace, (a = emptyAggregate()));
    a.ready[f.ready]++;
    if (f.ready !== 'true')
      a.longestNotReady = Math.max(a.longestNotReady, age(f.notReadySince ?? now));
    if (f.generationUnobservedSince !== undefined) {
      a.unobserved++;
      a.longestUnobserved = Math.max(a.longestUnobserved, age(f.generationUnobservedSince));
    }
    if (f.terminatingSince !== undefined) {
      a.terminating++;
      a.longestTerminating = Math.max(a.longestTerminating, age(f.terminatingSince));
    }
    a.longestSinceSuccess = Math.max(a.longestSinceSuccess, age(f.lastSuccessAt));
    if (f.consecutiveFailures > 0) a.failing++;
    a.maxFailures = Math.max(a.maxFailures, f.consecutiveFailures);
  }
  return byNamespace;
}

/** Records {@link ObjectHealthMetrics} on `meter`. */
export function objectHealthMetrics(
  meter: Meter,
  now: () => number = Date.now,
): ObjectHealthMetrics {
  const objects = meter.createObservableGauge('steward_objects', {
    description: 'Objects per kind and namespace, by their Ready condition.',
  });
  const longestNotReady = meter.createObservableGauge('steward_objects_longest_not_ready_seconds', {
    description:
      'Seconds the object not Ready the longest has been so, per kind and namespace (0: all Ready).',
    unit: 's',
  });
  const unobserved = meter.createObservableGauge('steward_objects_generation_unobserved', {
    description:
      'Objects whose status.observedGeneration lags metadata.generation, per kind and namespace.',
  });
  const longestUnobserved = meter.createObservableGauge(
    'steward_objects_longest_generation_unobserved_seconds',
    {
      description: 'Seconds the oldest unobserved generation has waited, per kind and namespace.',
      unit: 's',
    },
  );
  const terminating = meter.createObservableGauge('steward_objects_terminating', {
    description: 'Objects with a deletionTimestamp (Terminating), per kind and namespace.',
  });
  const longestTerminating = meter.createObservableGauge(
    'steward_objects_longest_terminating_seconds',
    {
      description: 'Seconds since the oldest deletionTimestamp, per kind and namespace.',
      unit: 's',
    },
  );
  const sinceSuccess = meter.createObservableGauge(
    'steward_objects_longest_since_success_seconds',
    {
      description:
        'Seconds since the last successful reconcile of the object longest without one, per kind and namespace.',
      unit: 's',
    },
  );
  const failing = meter.createObservableGauge('steward_objects_failing', {
    description: 'Objects whose last reconcile failed, per kind and namespace.',
  });
  const maxFailures = meter.createObservableGauge('steward_objects_max_consecutive_failures', {
    description: 'The most reconciles in a row that failed for one object, per kind and namespace.',
  });
  const sources = new Map<
    symbol,
    {
      kind: string;
      facts: () => Iterable<ObjectHealthFacts>;
      namespaces: Set<string>;
      retired?: boolean;
    }
  >();
  meter.addBatchObservableCallback(
    (result) => {
      const at = now();
      for (const [id, { kind, facts, namespaces, retired }] of sources) {
        // A retired source (a controller that stopped: leadership lost) reports zeros once, so that
        // its last values do not linger beside the new leader's.
        if (retired) sources.delete(id);
        for (const [namespace, a] of aggregateObjectHealth(
          retired ? [] : facts(),
          at,
          namespaces,
        )) {
          namespaces.add(namespace);
          const labels: Attributes = { kind, namespace };
          for (const ready of ['true', 'false', 'unknown'] as const)
            result.observe(objects, a.ready[ready], { ...labels, ready });
          result.observe(longestNotReady, a.longestNotReady, labels);
          result.observe(unobserved, a.unobserved, labels);
          result.observe(longestUnobserved, a.longestUnobserved, labels);
          result.observe(terminating, a.terminating, labels);
          result.observe(longestTerminating, a.longestTerminating, labels);
          result.observe(sinceSuccess, a.longestSinceSuccess, labels);
          result.observe(failing, a.failing, labels);
          result.observe(maxFailures, a.maxFailures, labels);
        }
      }
    },
    [
      objects,
      longestNotReady,
      unobserved,
      longestUnobserved,
      terminating,
      longestTerminating,
      sinceSuccess,
      failing,
      maxFailures,
    ],
  );
  return {
    observe(kind, facts) {
      const id = Symbol(kind);
      sources.set(id, { kind, facts, namespaces: new Set() });
      return () => {
        const source = sources.get(id);
        if (source) source.retired = true;
      };
    },
  };
}

/** {@link ObjectHealthMetrics} that records nothing. */
export const noopObjectHealthMetrics: ObjectHealthMetrics = { observe: () => () => undefined };
