import { type NamespaceGauge } from '@steward/telemetry';

/** What a workload's status says of its failovers, as the failover gauges read it. */
export interface FailoverFacts {
  /** Failovers the object has recorded (status.failoverCount). */
  count: number;
  /** The newest failover, if any. */
  newest?: {
    /** Not yet Completed: promoting or repointing. */
    inProgress: boolean;
    /**
     * The most the newest failover may have lost, in bytes of the replication stream (0 when
     * nothing can have been lost); undefined when unknown (the old primary's last position was
     * never seen).
     */
    possibleLossBytes?: number;
  };
}

/**
 * The failover gauges every workload kind with failover reports, per kind and namespace (`read`
 * turns its object's status into {@link FailoverFacts}):
 *
 * - `steward_failovers` — failovers recorded in the status of the objects present (a step up at
 *   each failover; objects deleted take theirs with them)
 * - `steward_failovers_in_progress` — objects whose newest failover has not completed
 * - `steward_failover_possible_loss_bytes` — the largest possible loss published by the objects'
 *   newest failovers (their upper bound on lost writes, in bytes of the replication stream)
 * - `steward_failover_loss_unknown` — objects whose newest failover could not bound its loss
 */
export function failoverGauges<T>(read: (obj: T) => FailoverFacts): NamespaceGauge<T>[] {
  return [
    {
      name: 'steward_failovers',
      description:
        'Failovers recorded in the status of the objects present (status.failoverCount summed), per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => read(obj).count,
    },
    {
      name: 'steward_failovers_in_progress',
      description: 'Objects whose newest failover has not completed, per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => (read(obj).newest?.inProgress ? 1 : 0),
    },
    {
      name: 'steward_failover_possible_loss_bytes',
      description:
        'The largest upper bound on lost writes (bytes of the replication stream) published by the newest failover of each object, per kind and namespace.',
      unit: 'By',
      aggregate: 'max',
      value: (obj) => read(obj).newest?.possibleLossBytes,
    },
    {
      name: 'steward_failover_loss_unknown',
      description:
        'Objects whose newest failover could not bound what it lost (the old primary was never seen), per kind and namespace.',
      aggregate: 'sum',
      value: (obj) => {
        const newest = read(obj).newest;
        return newest && newest.possibleLossBytes === undefined ? 1 : 0;
      },
    },
  ];
}
