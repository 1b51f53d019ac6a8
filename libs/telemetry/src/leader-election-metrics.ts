import { type Meter } from '@opentelemetry/api';

/** client-go's `leader_election_master_status{name}`: 1 while this process leads, else 0. */
export interface LeaderElectionMetrics {
  /**
   * Called when leadership of the lease `name` is acquired (`true`) or lost or not yet held
   * (`false`). Call it with `false` when the elector starts, so standbys report 0.
   */
  setMaster(name: string, isLeader: boolean): void;
}

/** Records {@link LeaderElectionMetrics} on `meter`. */
export function leaderElectionMetrics(meter: Meter): LeaderElectionMetrics {
  const status = meter.createGauge('leader_election_master_status', {
    description:
      'Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 ' +
      "indicates master. 'name' is the string used to identify the lease. Please make sure to " +
      'group by name.',
  });
  return {
    setMaster(name, isLeader) {
      status.record(isLeader ? 1 : 0, { name });
    },
  };
}

/** {@link LeaderElectionMetrics} that records nothing. */
export const noopLeaderElectionMetrics: LeaderElectionMetrics = { setMaster: () => undefined };
