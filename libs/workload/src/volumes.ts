import {
  isForbidden,
  isInvalid,
  isNotFound,
  PersistentVolumeClaims,
  Secrets,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { parseQuantity } from './quantity.js';
import { type WorkloadChildren } from './workload-children.js';

/** A PersistentVolumeClaim as the volume pieces read it. */
export type ClaimObject = KubeObject & {
  spec?: { resources?: { requests?: { storage?: string } }; storageClassName?: string };
  status?: { capacity?: { storage?: string }; phase?: string };
};

/** The reasons the volume pieces report (the same words for every workload kind). */
export const VolumeReasons = {
  /** A claim's growth was refused (the StorageClass does not allow expansion, a quota, …). */
  VolumeExpansionFailed: 'VolumeExpansionFailed',
  /** A claim was asked to grow and its capacity has not caught up yet. */
  VolumeExpanding: 'VolumeExpanding',
  /** The spec asks for less than a volume already has: volumes never shrink. */
  VolumeShrinkNotPossible: 'VolumeShrinkNotPossible',
} as const;

/** How long a refused growth is not asked again (unless the claim or the size changes). */
export const EXPANSION_RECHECK_MS = 10 * 60_000;

/** A growth the API server refused, remembered so that it is not asked again every reconcile. */
export interface ExpansionRefusal {
  size: string;
  resourceVersion: string;
  message: string;
  at: number;
}

export interface VolumeGrowthFacts {
  /** The claims of the instances that serve (not an upgrade's other set). */
  claims: readonly ClaimObject[];
  /** The size the spec asks for. */
  size: string;
  /** Refusals remembered, by claim uid. */
  refusals: ReadonlyMap<string, ExpansionRefusal>;
  /** Milliseconds since the epoch (the reconcile's clock). */
  now: number;
}

export interface Problem {
  reason: string;
  message: string;
}

export interface VolumeGrowthPlan {
  /** Claims to patch to `to`. */
  grow: { claim: string; namespace: string; uid: string; from: string; to: string }[];
  /** What stops the spec from taking effect (Ready=False). */
  problems: Problem[];
  /** What is under way (Progressing). */
  notes: Problem[];
  /** A spec that cannot take effect (a shrink): Ready=False, not converged. */
  refusals: Problem[];
  /** Refusals no longer relevant (the claim has the size now). */
  forget: string[];
}

const uidOf = (claim: ClaimObject) =>
  claim.metadata.uid ?? `${claim.metadata.namespace}/${claim.metadata.name}`;

/** -1, 0 or 1, or undefined when either is not a quantity. */
export function compareQuantity(a: string, b: string): -1 | 0 | 1 | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (!x || !y) return undefined;
  const left = x.numerator * y.denominator;
  const right = y.numerator * x.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * What volume growth does this reconcile (pure): every claim below `size` is patched to it
 * (StatefulSet templates cannot change, so the claims are grown one by one), unless the API server
 * refused that very growth of that very claim version within `EXPANSION_RECHECK_MS`; a claim whose
 * capacity lags its request is expanding; a claim above `size` cannot shrink, and says so.
 */
export function planVolumeGrowth(facts: VolumeGrowthFacts): VolumeGrowthPlan {
  const plan: VolumeGrowthPlan = { grow: [], problems: [], notes: [], refusals: [], forget: [] };
  const larger: string[] = [];
  for (const claim of facts.claims) {
    const has = claim.spec?.resources?.requests?.storage;
    if (!has) continue;
    const uid = uidOf(claim);
    const order = compareQuantity(has, facts.size);
    if (order === undefined) continue;
    if (order >= 0) {
      if (facts.refusals.has(uid)) plan.forget.push(uid);
      if (order > 0) larger.push(`${claim.metadata.name} (${has})`);
      const capacity = claim.status?.capacity?.storage;
      if (capacity && compareQuantity(capacity, has) === -1)
        plan.notes.push({
          reason: VolumeReasons.VolumeExpanding,
          message: `PersistentVolumeClaim ${claim.metadata.name} grows from ${capacity} to ${has}`,
        });
      continue;
    }
    const refusal = facts.refusals.get(uid);
    if (
      refusal &&
      refusal.size === facts.size &&
      refusal.resourceVersion === (claim.metadata.resourceVersion ?? '') &&
      facts.now - refusal.at < EXPANSION_RECHECK_MS
    ) {
      plan.problems.push({ reason: VolumeReasons.VolumeExpansionFailed, message: refusal.message });
      continue;
    }
    plan.grow.push({
      claim: claim.metadata.name!,
      namespace: claim.metadata.namespace!,
      uid,
      from: has,
      to: facts.size,
    });
  }
  if (larger.length)
    plan.refusals.push({
      reason: VolumeReasons.VolumeShrinkNotPossible,
      message: `the storage size ${facts.size} is below what the volumes have (${larger.join(', ')}): volumes never shrink; set the size back to at least the largest, or move the data to a new cluster`,
    });
  return plan;
}

/**
 * Volume growth of one workload kind: `planVolumeGrowth` and its patches, with the refusals
 * remembered per claim (only a refusal — Forbidden or Invalid — is remembered; a transient failure
 * is retried next reconcile). One instance per controller.
 */
export class VolumeGrowth {
  private readonly refusals = new Map<string, ExpansionRefusal>();

  constructor(private readonly client: Pick<KubeClient, 'mergePatch'>) {}

  async step(
    claims: readonly ClaimObject[],
    size: string,
    now: number,
    /** Told each growth asked for, in words (the caller's `VolumeExpanding` Event). */
    expanding: (message: string) => void,
  ): Promise<{ problems: Problem[]; notes: Problem[]; refusals: Problem[] }> {
    const plan = planVolumeGrowth({ claims, size, refusals: this.refusals, now });
    for (const uid of plan.forget) this.refusals.delete(uid);
    const problems = [...plan.problems];
    for (const g of plan.grow) {
      try {
        await this.client.mergePatch(PersistentVolumeClaims, g.claim, g.namespace, {
          spec: { resources: { requests: { storage: g.to } } },
        });
        this.refusals.delete(g.uid);
        expanding(`PersistentVolumeClaim ${g.claim} grows from ${g.from} to ${g.to}`);
      } catch (error) {
        const message = `PersistentVolumeClaim ${g.claim} cannot grow from ${g.from} to ${g.to}: ${(error as Error).message}`;
        problems.push({ reason: VolumeReasons.VolumeExpansionFailed, message });
        if (isForbidden(error) || isInvalid(error))
          this.refusals.set(g.uid, {
            size: g.to,
            resourceVersion: claims.find((c) => uidOf(c) === g.uid)?.metadata.resourceVersion ?? '',
            message,
            at: now,
          });
      }
    }
    return { problems, notes: plan.notes, refusals: plan.refusals };
  }

  /** Forgets what was remembered of a deleted object's claims. */
  forget(claims: readonly ClaimObject[]): void {
    for (const claim of claims) this.refusals.delete(uidOf(claim));
  }
}

/**
 * The claims of an object's StatefulSets (those `ofObject` accepts, in its namespace), split into
 * this object's and those that predate it: a claim created before the object was belongs to a
 * predecessor of the same name whose volumes were retained (and which this object's StatefulSet
 * then reused) — never this object's to delete.
 */
export function volumesOf(
  claims: readonly KubeObject[],
  obj: KubeObject,
  ofObject: (claim: KubeObject) => boolean,
): { own: string[]; predecessors: string[] } {
  const own: string[] = [];
  const predecessors: string[] = [];
  const created = Date.parse(obj.metadata.creationTimestamp ?? '');
  for (const claim of claims) {
    if (claim.metadata.namespace !== obj.metadata.namespace || !ofObject(claim)) continue;
    const claimCreated = Date.parse(claim.metadata.creationTimestamp ?? '');
    if (Number.isFinite(created) && Number.isFinite(claimCreated) && claimCreated < created)
      predecessors.push(claim.metadata.name!);
    else own.push(claim.metadata.name!);
  }
  return { own: own.sort(), predecessors: predecessors.sort() };
}

/**
 * The ordinal of a pod of StatefulSet `set` (`<set>-<ordinal>`, in canonical decimal: `web-0`,
 * `web-12`, never `web-01`) — or of its claim when `set` is `<template>-<set>` — or `undefined`
 * for any other name, a pod of another set whose name starts the same (`web-1-0` is not `web`'s)
 * included.
 */
export function ordinalOf(set: string, name: string): number | undefined {
  const prefix = `${set}-`;
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  return /^(0|[1-9][0-9]{0,8})$/.test(rest) ? Number(rest) : undefined;
}

/** What a deletion keeps or removes, for its Event. */
export interface VolumesOfObject {
  own: string[];
  predecessors: string[];
}

const predecessorsNote = (v: VolumesOfObject) =>
  v.predecessors.length
    ? `; PersistentVolumeClaims ${v.predecessors.join(', ')} predate this object (a same-named predecessor's retained volumes) and are kept`
    : '';

/**
 * deletionPolicy Retain: the generated `secrets` are detached (their ownerReference to the object
 * removed, so the garbage collector leaves them); the volumes have no owner. Returns the Event's
 * message: what stays, where, and `suffix` (e.g. where the backups are).
 */
export async function retainVolumes(
  client: Pick<KubeClient, 'get'>,
  children: Pick<WorkloadChildren, 'detach'>,
  obj: KubeObject,
  volumes: VolumesOfObject,
  secrets: readonly string[],
  suffix = '',
): Promise<string> {
  const namespace = obj.metadata.namespace!;
  await children.detach(
    obj,
    secrets.map((name) => ({ resourceType: Secrets, name })),
  );
  // Cleanup may run more than once (a retried finalizer removal): a Secret an earlier run
  // detached is kept all the same, and the Event says so.
  const kept: string[] = [];
  for (const name of secrets) {
    const exists = await client.get(Secrets, name, namespace).then(
      () => true,
      (e: unknown) => {
        if (isNotFound(e)) return false;
        throw e;
      },
    );
    if (exists) kept.push(`Secret ${name}`);
  }
  const all = [
    ...[...volumes.own, ...volumes.predecessors].sort().map((c) => `PersistentVolumeClaim ${c}`),
    ...kept,
  ];
  return all.length
    ? `deletionPolicy Retain: ${all.join(', ')} stay in namespace ${namespace} (no owner); delete them when the data is no longer needed${suffix}`
    : `deletionPolicy Retain: nothing to keep${suffix}`;
}

/**
 * deletionPolicy Delete: this object's own volumes are deleted (never a predecessor's, see
 * `volumesOf`); its other children go with it (owner references). Returns the Event's message
 * (`goWith` names those children, `suffix` adds to it).
 */
export async function deleteOwnVolumes(
  client: Pick<KubeClient, 'delete'>,
  obj: KubeObject,
  volumes: VolumesOfObject,
  goWith: string,
  suffix = '',
): Promise<string> {
  for (const claim of volumes.own) {
    await client
      .delete(PersistentVolumeClaims, claim, obj.metadata.namespace)
      .catch((e: unknown) => {
        if (!isNotFound(e)) throw e;
      });
  }
  return `deletionPolicy Delete: ${volumes.own.length ? `PersistentVolumeClaims ${volumes.own.join(', ')} deleted` : 'no volumes'}${predecessorsNote(volumes)}; ${goWith} go with the ${obj.kind}${suffix}`;
}

/** A StatefulSet as the volume pieces read it. */
export type StatefulSetWithClaims = KubeObject & {
  spec?: {
    volumeClaimTemplates?: { spec?: { resources?: { requests?: { storage?: string } } } }[];
  };
  status?: { updateRevision?: string };
};

/**
 * The storage a live StatefulSet's first claim template asks for: a StatefulSet's templates
 * cannot change, so the rendered one keeps it while the claims grow one by one.
 */
export const templateStorageOf = (sts: StatefulSetWithClaims | undefined): string | undefined =>
  sts?.spec?.volumeClaimTemplates?.[0]?.spec?.resources?.requests?.storage;
