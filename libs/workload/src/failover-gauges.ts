import { type NamespaceGauge } from '@steward/telemetry';

/** The part of a workload's status the failover gauges read. */
export interface FailoverStatus<F extends { phase: string }> {
  /** Failovers the object has recorded. */
  failoverCount?: number;
  /** The newest failover; `phase` `Completed` once it has finished. */
  failover?: F;
}

/** The loss part of a failover record, in the shared vocabulary (`@steward/crd`'s FailoverRecordFields). */
export interface LossRecord {
  phase: string;
  dataLossRisk?: 'None' | 'Bounded' | 'Unknown';
  bytesPossiblyLost?: number;
}

/** The most a failover may have lost, in bytes (0: nothing), or undefined when unknown. */
export function lossBoundOf(f: LossRecord): number | undefined {
  return f.dataLossRisk === 'None'
    ? 0
    : f.dataLossRisk === 'Bounded'
      ? (f.bytesPossiblyLost ?? 0)
      : undefined;
}

/**
 * The failover gauges every workload kind with failover reports, per kind and namespace, from its
 * objects' status (`status`) and the loss bound of a failover record (`possibleLossBytes`: the
 * most it may have lost, in bytes of the replication stream, 0 when nothing can have been lost;
 * undefined when it could not be bounded):
 *
 * - `steward_failovers` — failovers recorded in the status of the objects present (a step up at
 *   each failover; objects deleted take theirs with them)
 * - `steward_failovers_in_progress` — objects whose newest failover has not completed
 * - `steward_failover_possible_loss_bytes` — the largest possible loss published by the objects'
 *   newest failovers (their upper bound on lost writes)
 * - `steward_failover_loss_unknown` — objects whose newest failover could not bound its loss
 */
export function failoverGauges<T, F extends LossRecord>(
  status: (obj: T) => FailoverStatus<F> | undefined,
  possibleLossBytes: (failover: F) => number | undefined = lossBoundOf,
): NamespaceGauge<T>[] {
  const newest = (obj: T) => status(obj)?.failover;
  return [
    {
      name: 'steward_failovers',
      description:
        'Failovers recorded in the status of the objects present (status.failoverCount summed), per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => status(obj)?.failoverCount ?? 0,
    },
    {
      name: 'steward_failovers_in_progress',
      description: 'Objects whose newest failover has not completed, per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => {
        const f = newest(obj);
        return f && f.phase !== 'Completed' ? 1 : 0;
      },
    },
    {
      name: 'steward_failover_possible_loss_bytes',
      description:
        'The largest upper bound on lost writes (bytes of the replication stream) published by the newest failover of each object, per kind and namespace.',
      unit: 'By',
      aggregate: 'max',
      value: (obj) => {
        const f = newest(obj);
        return f && possibleLossBytes(f);
      },
    },
    {
      name: 'steward_failover_loss_unknown',
      description:
        'Objects whose newest failover could not bound what it lost (the old primary was never seen), per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => {
        const f = newest(obj);
        return f && possibleLossBytes(f) === undefined ? 1 : 0;
      },
    },
  ];
}
