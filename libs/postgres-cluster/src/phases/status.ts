import {
  POSTGRES_PORT,
  type BackupStatus,
  type RestoreStatus,
} from '@steward/postgres-cluster-api';
import { childNames } from '../children/index.js';
import { type PlanHealth } from '../plan/plan.js';
import { postgresStatus, type PostgresStatusChange } from '../status.js';
import { type UpgradeOutcome } from '../upgrade/upgrade.js';
import { type Cluster, type Problem } from './env.js';

/** Everything the phases found, gathered for the one status write of the reconcile. */
export interface StatusFacts {
  desired: number;
  /** Pods of the serving set that exist and are not being deleted. */
  podCount: number;
  health: PlanHealth;
  outdated: string[];
  image: string;
  version: string;
  problems: Problem[];
  notes: Problem[];
  /** Why pods or volumes do not come up (`readFailures`). */
  failures?: Problem[];
  /** Spec changes that cannot take effect (a refused parameter, a shrink). */
  refusals?: Problem[];
  upgrade: Pick<UpgradeOutcome, 'condition' | 'writesStopped' | 'active'>;
  /** status.backup to state, if the backups phase ran. */
  backup?: BackupStatus;
  /** The restore under way (status.restore), if any. */
  restore?: RestoreStatus;
  /** The reconcile's time. */
  now: string;
  /** status.fencing: how the primary fences itself (`fencingStatus`). */
  fencing?: NonNullable<Cluster['status']>['fencing'];
}

/**
 * The status of a reconcile (pure), stated over `cluster` — the newest copy the writer holds:
 * `postgresStatus` with, during a major upgrade, phase `Upgrading`, `Progressing=True` and
 * `Ready=False` while writes are stopped (and the `Upgrading` condition); status.backup; a
 * restored cluster's restore marked complete once its first primary serves.
 */
export function clusterStatus(cluster: Cluster, facts: StatusFacts): PostgresStatusChange {
  const namespace = cluster.metadata.namespace!;
  const names = childNames(cluster.metadata.name!);
  const base = postgresStatus({
    cluster,
    replicas: facts.desired,
    podCount: facts.podCount,
    health: facts.health,
    outdated: facts.outdated,
    image: facts.image,
    version: facts.version,
    endpoints: {
      readWrite: `${names.readWrite}.${namespace}.svc`,
      readOnly: `${names.readOnly}.${namespace}.svc`,
      any: `${names.any}.${namespace}.svc`,
      port: POSTGRES_PORT,
      superuserSecret: names.superuserSecret,
      appSecret: names.appSecret,
    },
    problems: facts.problems,
    notes: facts.notes,
    ...(facts.failures ? { failures: facts.failures } : {}),
    ...(facts.refusals ? { refusals: facts.refusals } : {}),
  });
  const { upgrade, restore } = facts;
  const says = upgrade.condition;
  const conditions = says
    ? [
        ...base.conditions.map((c) =>
          upgrade.writesStopped && c.type === 'Ready'
            ? { ...c, status: 'False' as const, reason: 'Upgrading', message: says.message }
            : upgrade.active && c.type === 'Progressing'
              ? { ...c, status: 'True' as const, reason: 'Upgrading', message: says.message }
              : c,
        ),
        { type: 'Upgrading', ...says },
      ]
    : base.conditions;
  const phase = says && upgrade.active ? ('Upgrading' as const) : base.phase;
  return {
    phase,
    conditions,
    fields: {
      ...base.fields,
      phase,
      ...(facts.fencing ? { fencing: facts.fencing } : {}),
      ...(facts.backup ? { backup: facts.backup } : {}),
      // A restored cluster's first primary serving: the restore is complete.
      ...(restore && !restore.completedAt && facts.health.primaryServing
        ? { restore: { ...restore, completedAt: facts.now } }
        : {}),
    },
  };
}
