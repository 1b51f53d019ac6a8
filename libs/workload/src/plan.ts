import { apiVersionOf, type KubeObject, type ResourceType } from '@steward/kube';
import {
  childKey,
  ConflictReasons,
  type ApplyObject,
  type ChildConflict,
  type DesiredChild,
} from './desired-child.js';
import { DesiredHashAnnotation, desiredHash } from './desired-hash.js';
import { controllerOf, controllerReference, isControlledBy } from './owner-reference.js';
import { isSubset } from './subset.js';

/** A desired child, checked and addressed: where it lives and what would be written. */
export interface AddressedChild {
  rt: ResourceType;
  name: string;
  /** Undefined for a cluster-scoped kind. */
  namespace: string | undefined;
  /** `${kind}/${name}`, the key of `ChildrenSync.children`. */
  key: string;
  mode: 'apply' | 'create-once';
  /** mode `apply`: the whole apply configuration (controller reference and hash annotation included). */
  configuration: ApplyObject | undefined;
  /** mode `create-once`: builds the object to POST (calls a generator function only now). */
  build: () => ApplyObject;
}

/** What to do about one desired child, given what the cache (or the server) holds under its name. */
export type ChildPlan =
  /** Nothing to write: converged, a create-once child that exists, or a child being deleted. */
  | { action: 'keep'; object: KubeObject }
  | { action: 'apply'; configuration: ApplyObject }
  | { action: 'create' }
  | { action: 'conflict'; conflict: ChildConflict };

/**
 * Checks a desired child and works out its address and configuration. Throws a `TypeError` for a
 * declaration that cannot be right: a function object in mode `apply`, no name, a name or
 * apiVersion/kind that disagree, ownerReferences, a namespace other than the parent's, a
 * cluster-scoped child of a namespaced parent (the garbage collector would delete it).
 */
export function addressChild(parent: KubeObject, desired: DesiredChild): AddressedChild {
  const rt = desired.resourceType;
  const mode = desired.mode ?? 'apply';
  const { object } = desired;
  if (typeof object === 'function' && mode !== 'create-once') {
    throw new TypeError(
      `steward/workload: a ${rt.kind} given as a function must be mode 'create-once'`,
    );
  }
  const name = desired.name ?? (typeof object === 'function' ? undefined : object.metadata?.name);
  if (!name) throw new TypeError(`steward/workload: a desired ${rt.kind} needs a name`);
  const namespace = childNamespace(parent, rt, name, typeof object === 'function' ? {} : object);
  const finish = (obj: ApplyObject): ApplyObject =>
    normalise(rt, checked(rt, name, namespace, obj), namespace);
  const ref = controllerReference(parent);
  const withOwner = (obj: ApplyObject): ApplyObject => ({
    ...obj,
    metadata: { ...obj.metadata, ownerReferences: [ref] },
  });
  let configuration: ApplyObject | undefined;
  if (mode === 'apply') {
    const desiredObject = finish(object as ApplyObject);
    const hash = desiredHash(desiredObject);
    configuration = withOwner({
      ...desiredObject,
      metadata: {
        ...desiredObject.metadata,
        annotations: { ...desiredObject.metadata.annotations, [DesiredHashAnnotation]: hash },
      },
    });
  }
  return {
    rt,
    name,
    namespace,
    key: childKey(rt.kind, name),
    mode,
    configuration,
    build: () => withOwner(finish(typeof object === 'function' ? object() : object)),
  };
}

/**
 * The plan for one child. Pure. `live` is what the cache (or, for a name the cache lacks, the
 * server) holds under the child's name:
 * - absent → `apply`, or `create` for a create-once child;
 * - not controlled by this parent → `conflict` (never adopted, never changed);
 * - being deleted → `keep` (an apply would not stop the deletion; its end wakes the parent);
 * - create-once → `keep`, whatever it holds;
 * - apply → `keep` when converged (`isConverged`), else `apply`.
 */
export function planChild(
  parent: KubeObject,
  child: AddressedChild,
  live: KubeObject | undefined,
): ChildPlan {
  if (!live) {
    return child.mode === 'create-once'
      ? { action: 'create' }
      : { action: 'apply', configuration: child.configuration! };
  }
  if (!isControlledBy(live, parent)) {
    return { action: 'conflict', conflict: conflictFor(parent, child, live) };
  }
  if (live.metadata.deletionTimestamp || child.mode === 'create-once') {
    return { action: 'keep', object: live };
  }
  return isConverged(child.configuration!, live)
    ? { action: 'keep', object: live }
    : { action: 'apply', configuration: child.configuration! };
}

/**
 * An applied child is converged when the live object (a) has this parent as controller (checked
 * by `planChild`), (b) carries the hash annotation of this very configuration — so a field
 * removed from the configuration, invisible to a subset test, still triggers an apply — and (c)
 * holds every field of the configuration (`isSubset`). Owner references are left out of (c):
 * (a) covers ours, and another owner listed before it must not look like drift.
 */
export function isConverged(configuration: ApplyObject, live: KubeObject): boolean {
  const hash = configuration.metadata.annotations?.[DesiredHashAnnotation];
  if (live.metadata.annotations?.[DesiredHashAnnotation] !== hash) return false;
  const { ownerReferences: _ours, ...metadata } = configuration.metadata as Record<string, unknown>;
  return isSubset({ ...configuration, metadata }, live);
}

/** The controlled children of kind `rt` that are no longer desired (and not already being deleted). */
export function planPrune(
  rt: ResourceType,
  owned: KubeObject[],
  wanted: ReadonlySet<string>,
): KubeObject[] {
  return owned.filter(
    (obj) =>
      !obj.metadata.deletionTimestamp &&
      !wanted.has(addressKey(rt, obj.metadata.namespace, obj.metadata.name!)),
  );
}

/** A child's identity across kinds and groups: `group/kind/namespace/name`. */
export function addressKey(rt: ResourceType, namespace: string | undefined, name: string): string {
  return `${rt.group}/${rt.kind}/${namespace ?? ''}/${name}`;
}

export function conflictFor(
  parent: KubeObject,
  child: Pick<AddressedChild, 'rt' | 'name'>,
  live: KubeObject,
): ChildConflict {
  const kind = child.rt.kind;
  const controller = controllerOf(live);
  if (controller) {
    const owner = `${controller.kind}/${controller.name}`;
    return {
      kind,
      name: child.name,
      owner,
      reason: ConflictReasons.ControlledByAnother,
      message: `${kind} ${child.name} exists and is controlled by ${owner}, not by ${parent.kind} ${parent.metadata.name}: it is left as it is`,
    };
  }
  return {
    kind,
    name: child.name,
    reason: ConflictReasons.NotControlled,
    message: `${kind} ${child.name} exists without a controller reference to ${parent.kind} ${parent.metadata.name}: it is left as it is, not adopted (delete it, or rename it, to let the ${parent.kind} create its own)`,
  };
}

function childNamespace(
  parent: KubeObject,
  rt: ResourceType,
  name: string,
  object: { metadata?: { namespace?: string } },
): string | undefined {
  const parentNamespace = parent.metadata.namespace;
  const given = object.metadata?.namespace;
  if (!rt.namespaced) {
    if (parentNamespace) {
      throw new TypeError(
        `steward/workload: ${rt.kind} ${name} is cluster-scoped and cannot be a child of a namespaced ${parent.kind}`,
      );
    }
    if (given) throw new TypeError(`steward/workload: ${rt.kind} is cluster-scoped: no namespace`);
    return undefined;
  }
  if (parentNamespace && given && given !== parentNamespace) {
    throw new TypeError(
      `steward/workload: ${rt.kind} ${name} must be in its parent's namespace ${parentNamespace}, not ${given}`,
    );
  }
  const namespace = given ?? parentNamespace;
  if (!namespace) throw new TypeError(`steward/workload: ${rt.kind} ${name} needs a namespace`);
  return namespace;
}

function checked(
  rt: ResourceType,
  name: string,
  namespace: string | undefined,
  obj: ApplyObject,
): ApplyObject {
  if (!obj?.metadata) throw new TypeError(`steward/workload: ${rt.kind} ${name} has no metadata`);
  if (obj.metadata.name !== name) {
    throw new TypeError(
      `steward/workload: ${rt.kind} named ${name} has metadata.name ${String(obj.metadata.name)}`,
    );
  }
  if (obj.metadata.namespace !== undefined && obj.metadata.namespace !== namespace) {
    throw new TypeError(`steward/workload: ${rt.kind} ${name} must be in namespace ${namespace}`);
  }
  if ((obj.metadata as { ownerReferences?: unknown }).ownerReferences !== undefined) {
    throw new TypeError(
      `steward/workload: ${rt.kind} ${name} carries ownerReferences; the controller reference is added here`,
    );
  }
  const apiVersion = apiVersionOf(rt);
  if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
    throw new TypeError(`steward/workload: ${rt.kind} ${name} must be ${apiVersion}`);
  }
  if (obj.kind !== undefined && obj.kind !== rt.kind) {
    throw new TypeError(`steward/workload: ${name} is a ${rt.kind}, not a ${String(obj.kind)}`);
  }
  return obj;
}

/**
 * Fills apiVersion, kind and namespace, and turns a core Secret's `stringData` into `data`: the
 * API server folds `stringData` into `data` and never returns it, so a configuration that kept it
 * would never look converged.
 */
function normalise(rt: ResourceType, obj: ApplyObject, namespace: string | undefined): ApplyObject {
  const result: ApplyObject = {
    ...obj,
    apiVersion: apiVersionOf(rt),
    kind: rt.kind,
    metadata: { ...obj.metadata, ...(namespace ? { namespace } : {}) },
  };
  if (rt.group === '' && rt.kind === 'Secret' && isRecord(result.stringData)) {
    const data: Record<string, unknown> = isRecord(result.data) ? { ...result.data } : {};
    for (const [key, value] of Object.entries(result.stringData)) {
      data[key] = Buffer.from(String(value), 'utf8').toString('base64');
    }
    delete result.stringData;
    result.data = data;
  }
  return result;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
