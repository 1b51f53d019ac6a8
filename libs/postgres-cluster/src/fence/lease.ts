/**
 * The fence's Lease (docs/design/fencing.md): `<set>-primary` (`fenceLease`), which the serving
 * instance set's primary renews and the controller takes for a new primary. What the controller reads of it (the
 * holder, and how long its current version has stood by this process's clock), how it is written
 * (created, or taken under a resourceVersion precondition), and the fence bound.
 */
import { type PostgresClusterStatus } from '@steward/postgres-cluster-api';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  Leases,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { controllerReference, durationMs } from '@steward/workload';
import { LeaseEnv } from '../children/instance-account.js';
import { commonLabels, currentInstanceSet, fenceLease } from '../children/names.js';
import { type Cluster } from '../phases/env.js';
import { type FenceInput, type LeaseTake } from '../plan/plan.js';
import { instanceEnvNames, type Pod } from '../pods.js';

/** A coordination.k8s.io/v1 Lease, as far as the fence reads and writes it. */
export interface LeaseObject extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * The shortest fence bound. The agent renews about once a second (each try waits up to 2 s for its
 * server and 2 s for the API server) and stops its server 1.5 s early: 10 s lets a loaded node
 * miss a few renewals in a row without stopping a healthy primary (5 s did not, under load).
 */
export const MIN_FENCE_BOUND_SECONDS = 10;

/**
 * The fence bound (the Lease's duration): `spec.failover.after` in whole seconds, at least
 * {@link MIN_FENCE_BOUND_SECONDS} — how long a primary may go without proving it holds the role.
 */
export function fenceBoundSeconds(cluster: Cluster): number {
  const after = Math.ceil(durationMs(cluster.spec.failover?.after ?? '10s') / 1000);
  return Math.max(MIN_FENCE_BOUND_SECONDS, after);
}

/** Whether a pod's instance agent fences itself (its template gives it the Lease). */
export function podFences(pod: Pod | undefined): boolean {
  return instanceEnvNames(pod)?.includes(LeaseEnv) ?? false;
}

/** When this process first saw the Lease's current version (a plan memory's `lease`). */
export interface LeaseSight {
  resourceVersion: string;
  since: string;
}

/**
 * The plan's fence input from the Lease as cached (undefined: there is none) and this process's
 * earlier sight of it: the time a version was first seen is kept while the version stands — a
 * new process starts counting from its first sight, never earlier.
 */
export function fenceInput(
  lease: LeaseObject | undefined,
  earlier: LeaseSight | undefined,
  boundSeconds: number,
  now: string,
  enforced: boolean,
): { input: FenceInput; sight: LeaseSight } {
  const resourceVersion = lease?.metadata.resourceVersion ?? '';
  const sight: LeaseSight =
    earlier?.resourceVersion === resourceVersion ? earlier : { resourceVersion, since: now };
  // A version's duration may be shorter than the bound now asked for (spec.failover.after was
  // raised since it was written): wait for the longer of the two.
  const recorded = lease?.spec?.leaseDurationSeconds ?? 0;
  const holder = lease?.spec?.holderIdentity;
  return {
    input: {
      boundMs: Math.max(recorded, boundSeconds) * 1000,
      ...(holder ? { holder } : {}),
      resourceVersion,
      quietSince: sight.since,
      enforced,
    },
    sight,
  };
}

/** A Lease write that lost the race: the holder renewed (or someone changed it) since it was read. */
export class LeaseMovedError extends Error {
  constructor(lease: string) {
    super(`Lease ${lease} changed since it was read (renewed by its holder?): nothing is decided`);
    this.name = 'LeaseMovedError';
  }
}

/**
 * Takes the Lease `name` for `take.holder`: creates it when `take.resourceVersion` is '' (none
 * was seen), otherwise replaces it under that resourceVersion — renewTime now, leaseTransitions
 * + 1, the bound as `leaseDurationSeconds`. Throws {@link LeaseMovedError} when it changed
 * meanwhile.
 */
export async function takeLease(
  client: KubeClient,
  cluster: Cluster,
  name: string,
  current: LeaseObject | undefined,
  take: LeaseTake,
  boundSeconds: number,
  now: Date,
): Promise<LeaseObject> {
  const at = microTime(now);
  try {
    if (take.resourceVersion === '' || !current) {
      return await client.create<LeaseObject>(Leases, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name,
          namespace: cluster.metadata.namespace!,
          labels: commonLabels(cluster),
          ownerReferences: [controllerReference(cluster)],
        },
        spec: {
          holderIdentity: take.holder,
          leaseDurationSeconds: boundSeconds,
          acquireTime: at,
          renewTime: at,
          leaseTransitions: 0,
        },
      });
    }
    return await client.update<LeaseObject>(Leases, {
      ...current,
      metadata: { ...current.metadata, resourceVersion: take.resourceVersion },
      spec: {
        ...current.spec,
        holderIdentity: take.holder,
        leaseDurationSeconds: boundSeconds,
        acquireTime: at,
        renewTime: at,
        leaseTransitions: (current.spec?.leaseTransitions ?? 0) + 1,
      },
    });
  } catch (error) {
    if (isConflict(error) || isAlreadyExists(error) || isNotFound(error))
      throw new LeaseMovedError(name);
    throw error;
  }
}

/**
 * A major upgrade's new instance (its set's first pod, before the switch) is given its set's
 * Lease before it is told to initdb (its agent waits for it): taken from whatever it names — no
 * primary of that set serves before the switch. Nothing is written when it names `pod` already.
 */
export async function holdNewSetLease(
  client: KubeClient,
  cluster: Cluster,
  set: string,
  pod: string,
  current: LeaseObject | undefined,
  now: Date,
): Promise<void> {
  if (current?.spec?.holderIdentity === pod) return;
  await takeLease(
    client,
    cluster,
    fenceLease(set),
    current,
    { holder: pod, resourceVersion: current?.metadata.resourceVersion ?? '' },
    fenceBoundSeconds(cluster),
    now,
  );
}

/** A Lease's MicroTime (RFC 3339 with microseconds). */
export function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** `status.fencing` of a cluster whose pods fence themselves (or not yet: `None`). */
export function fencingStatus(
  cluster: Cluster,
  fences: boolean,
): NonNullable<PostgresClusterStatus['fencing']> {
  const lease = fenceLease(currentInstanceSet(cluster));
  const bound = fenceBoundSeconds(cluster);
  return fences
    ? {
        mode: 'Lease',
        boundSeconds: bound,
        lease,
        message: `the primary renews Lease ${lease}; one that cannot for ${bound}s stops PostgreSQL by itself, and a standby is promoted only after that`,
      }
    : {
        mode: 'None',
        message: `the primary's pod runs a template from before fencing: a primary cut off from the controller may go on acknowledging writes until it is rolled`,
      };
}
