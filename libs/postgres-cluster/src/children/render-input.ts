import { type BackupDestination, type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ChildObject } from '@steward/workload';

/** A quantity pair as a container's `resources` takes it. */
export interface CpuMemory {
  cpu?: string;
  memory?: string;
}

/** What the children of one PostgresCluster are rendered from: the cluster and what was resolved for it. */
export interface RenderInput {
  /** The PostgresCluster as stored (the API server has applied its defaults). */
  cluster: PostgresCluster;
  /** The PostgreSQL image, resolved from the catalogue for the major the cluster runs. */
  image: string;
  /** The instance container's requests and limits, resolved (spec, else the size class). */
  resources?: { requests?: CpuMemory; limits?: CpuMemory };
  /** The StatefulSet's replicas, when not spec.replicas (the primary is never scaled away). */
  replicas?: number;
  /** Each instance's volume. */
  storage: { size: string; storageClassName?: string };
  /**
   * The StatefulSet's current `volumeClaimTemplates` storage request, when the StatefulSet
   * exists: templates are immutable, so the template keeps it (the claims are grown separately).
   */
  existingTemplateStorage?: string;
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
  /** The controller's pods, which must reach every instance (NetworkPolicy); absent: no such rule. */
  controller?: { namespace: string; podLabels: Record<string, string> };
}

export type { ChildObject };
