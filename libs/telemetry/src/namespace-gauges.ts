import { type Attributes, type Meter, type Observable } from '@opentelemetry/api';

/**
 * One gauge computed from a set of objects at collection time and reported per kind and
 * namespace: the series count is bounded by kinds × namespaces (× `labels` variants), never by
 * objects.
 */
export interface NamespaceGauge<T> {
  /** The metric's name, e.g. `steward_objects_failing`. Specs may share a name (see `labels`). */
  name: string;
  description: string;
  unit?: string;
  /**
   * Labels of this series besides `kind` and `namespace`, e.g. `{ ready: 'true' }`: specs that
   * share a name and differ here are one metric with one series each.
   */
  labels?: Attributes;
  /** `sum`: the objects' values added (a count when they are 0 or 1); `max`: the largest. */
  aggregate: 'sum' | 'max';
  /**
   * What one object contributes at `now` (ms since the epoch); `undefined`: nothing. A namespace
   * with no contribution reports 0. Called at every collection: must be cheap and never throw.
   */
  value(item: T, now: number): number | undefined;
}

/** Per-kind, per-namespace gauges over a source of objects, while the source is observed. */
export interface NamespaceGauges {
  /**
   * Reports `gauges` over what `items` yields, grouped by `namespaceOf`, at every collection
   * until the returned function is called; then every namespace it reported is reported once
   * more with zeros, and never again. Zeros matter: the OpenTelemetry SDK keeps an asynchronous
   * series' last value, and a namespace emptied of its last stuck object — or a controller that
   * lost leadership — must not go on saying something is wrong.
   */
  observe<T>(
    kind: string,
    gauges: readonly NamespaceGauge<T>[],
    items: () => Iterable<T>,
    namespaceOf: (item: T) => string,
  ): () => void;
}

/**
 * The value of every gauge (by its index in `gauges`) per namespace at `now` (pure; what the
 * gauges report). Namespaces in `previously` with no item now are reported with zeros.
 */
export function aggregateByNamespace<T>(
  items: Iterable<T>,
  gauges: readonly NamespaceGauge<T>[],
  namespaceOf: (item: T) => string,
  now: number,
  previously: Iterable<string> = [],
): Map<string, number[]> {
  const byNamespace = new Map<string, number[]>();
  const zeros = () => gauges.map(() => 0);
  for (const namespace of previously) byNamespace.set(namespace, zeros());
  for (const item of items) {
    const namespace = namespaceOf(item);
    let values = byNamespace.get(namespace);
    if (!values) byNamespace.set(namespace, (values = zeros()));
    for (let i = 0; i < gauges.length; i++) {
      const gauge = gauges[i]!;
      const v = gauge.value(item, now);
      if (v === undefined || !Number.isFinite(v)) continue;
      values[i] = gauge.aggregate === 'sum' ? values[i]! + v : Math.max(values[i]!, v);
    }
  }
  return byNamespace;
}

/** Records {@link NamespaceGauges} on `meter`; `now` is handed to every gauge's `value`. */
export function namespaceGauges(meter: Meter, now: () => number = Date.now): NamespaceGauges {
  const instruments = new Map<string, Observable>();
  const instrument = (gauge: NamespaceGauge<never>): Observable => {
    let found = instruments.get(gauge.name);
    if (!found) {
      found = meter.createObservableGauge(gauge.name, {
        description: gauge.description,
        ...(gauge.unit ? { unit: gauge.unit } : {}),
      });
      instruments.set(gauge.name, found);
    }
    return found;
  };
  return {
    observe(kind, gauges, items, namespaceOf) {
      const observables = gauges.map((g) => instrument(g as NamespaceGauge<never>));
      const distinct = [...new Set(observables)];
      const namespaces = new Set<string>();
      let retired = false;
      const callback = (result: {
        observe(o: Observable, value: number, attributes?: Attributes): void;
      }): void => {
        const values = aggregateByNamespace(
          retired ? [] : items(),
          gauges,
          namespaceOf,
          now(),
          namespaces,
        );
        for (const [namespace, row] of values) {
          namespaces.add(namespace);
          for (let i = 0; i < gauges.length; i++)
            result.observe(observables[i]!, row[i]!, { kind, namespace, ...gauges[i]!.labels });
        }
        // A retired source has reported its zeros: it reports nothing more.
        if (retired) queueMicrotask(() => meter.removeBatchObservableCallback(callback, distinct));
      };
      meter.addBatchObservableCallback(callback, distinct);
      return () => {
        retired = true;
      };
    },
  };
}

/** {@link NamespaceGauges} that records nothing. */
export const noopNamespaceGauges: NamespaceGauges = { observe: () => () => undefined };
