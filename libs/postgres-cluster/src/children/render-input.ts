import { type BackupDestination, type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ChildObject, type CpuMemory, type WorkloadRenderInput } from '@steward/workload';

export type { CpuMemory };

/** What the children of one PostgresCluster are rendered from: the cluster and what was resolved for it. */
export interface RenderInput extends WorkloadRenderInput<PostgresCluster> {
  /** The StatefulSet's replicas, when not spec.replicas (the primary is never scaled away). */
  replicas?: number;
  /** Each instance's volume. */
  storage: { size: string; storageClassName?: string };
  /**
   * With spec.bootstrap.recovery, once the controller has chosen (status.restore): the source
   * bucket, the key prefix of its database system (`<prefix>/<system id>`), the backup and the
   * target time the first instance restores.
   */
  restore?: {
    destination: BackupDestination;
    systemPrefix: string;
    backupId: string;
    targetTime?: string;
  };
  /**
   * The StatefulSet rendered (default `metadata.name`): a major upgrade renders a second one,
   * `<name>-v<major>`, whose selector and pods also carry the instance-set label.
   */
  instanceSet?: string;
  /** A second instance set runs (a major upgrade): `<name>-r` selects the primary only. */
  primaryOnlyReads?: boolean;
  /**
   * A major upgrade is under way to this instance set: `<name>-rw` selects its primary only —
   * none before the switch (the old primary's writes are held), the new one after.
   */
  readWriteSet?: string;
  /**
   * Some instance runs a template without the replication role's password (a cluster made before
   * the role): pg_hba.conf keeps the superuser's replication line until none does.
   */
  superuserReplication?: boolean;
}

export type { ChildObject };
