import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ObjectReconcileContext } from '@steward/controller';
import { type KubeClient } from '@steward/kube';
import { type ClaimObject, type VolumeGrowth, type WorkloadChildren } from '@steward/workload';
import { type Backups } from '../backup/reconcile.js';
import { type LeaseObject, type LeaseSight } from '../fence/lease.js';
import { type PgAdmin } from '../pg/index.js';
import { type Pod } from '../pods.js';
import { type Upgrades } from '../upgrade/upgrade.js';

export type Cluster = PostgresCluster;
export type Context = ObjectReconcileContext<Cluster>;

/** Something to say in a condition: a reason a user can search for and a message to act on. */
export interface Problem {
  reason: string;
  message: string;
}

/** What a phase hands to the status: what stops it (problems), what is under way (notes). */
export interface PhaseOutcome {
  problems: Problem[];
  notes: Problem[];
  /** When to look again for this phase's sake. */
  requeueAfterMs?: number;
}

export const emptyOutcome = (): PhaseOutcome => ({ problems: [], notes: [] });

/** What the phases' executors act with: one client, one clock, one Event sink. */
export interface PhaseEnv {
  client: KubeClient;
  pg: PgAdmin;
  children: WorkloadChildren;
  backups: Backups;
  upgrades: Upgrades;
  volumes: VolumeGrowth;
  /** The pods of one cluster (both instance sets), from the cache's index. */
  pods: (namespace: string, name: string) => Pod[];
  /** The claims of one cluster's pods, from the cache's index. */
  claims: (namespace: string, name: string) => ClaimObject[];
  /** Whether a node is cordoned (being drained), from the cache. */
  nodeCordoned: (nodeName: string) => boolean;
  /** The fence's Lease of a cluster (namespace, Lease name), from the cache. */
  lease: (namespace: string, name: string) => LeaseObject | undefined;
  /** When the watch first delivered that Lease's current version (absent: not seen by it). */
  leaseSeen?: (namespace: string, name: string) => LeaseSight | undefined;
  /** The reconcile's clock: every phase reads time from here. */
  now: () => Date;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}
