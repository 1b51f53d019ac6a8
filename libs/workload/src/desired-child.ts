import { type ApplyConfiguration, type KubeObject, type ResourceType } from '@steward/kube';

/**
 * A child's apply configuration: `metadata.name` required, `apiVersion`/`kind` optional (taken
 * from the resource type), `metadata.namespace` defaulting to the parent's. Never
 * `metadata.ownerReferences`: the toolkit adds the controller reference.
 */
export type ApplyObject = ApplyConfiguration;

/**
 * One child a parent should have, declared as data: an apply configuration, or — for a
 * create-once child — a function that builds it, called only when the child must be created
 * (so e.g. a password is generated only then; the child's `name` must then be given, since the
 * cache is looked up without calling it).
 */
export type DesiredChild = DesiredObject | DesiredGenerator;

interface DesiredBase {
  resourceType: ResourceType;
  /**
   * `apply` (default): server-side applied, and applied again when the desired configuration
   * changed or the live object drifted from it. `create-once`: created (POST) when missing —
   * AlreadyExists is fine, what is there is kept — and never updated or regenerated afterwards
   * (generated Secrets).
   */
  mode?: 'apply' | 'create-once';
}

/** A child given as its apply configuration. */
export interface DesiredObject extends DesiredBase {
  object: ApplyObject;
  /** Optional; when given it must equal `object.metadata.name`. */
  name?: string;
}

/** A create-once child given as a function, called only when the child must be created. */
export interface DesiredGenerator extends DesiredBase {
  mode: 'create-once';
  object: () => ApplyObject;
  /** The child's name (the function's object must carry the same). */
  name: string;
}

/** A write `sync` performed. */
export interface ChildWrite {
  verb: 'apply' | 'create' | 'delete';
  kind: string;
  name: string;
}

/** Why a desired child was left alone. */
export const ConflictReasons = {
  /** Another object (another parent, another controller) is its controller. */
  ControlledByAnother: 'ControlledByAnother',
  /** It has no controller reference at all (created by hand, or detached). */
  NotControlled: 'NotControlled',
} as const;
export type ConflictReason = (typeof ConflictReasons)[keyof typeof ConflictReasons];

/** A desired child whose name is taken by an object this parent does not control. */
export interface ChildConflict {
  kind: string;
  name: string;
  /** `Kind/name` of the object's controller, when it has one. */
  owner?: string;
  reason: ConflictReason;
  message: string;
}

export interface ChildrenSync {
  /** What was written, in order: applies and creates (desired order), then deletes. */
  writes: ChildWrite[];
  /** Desired children left alone because their name is taken; never adopted, never changed. */
  conflicts: ChildConflict[];
  /**
   * Each desired child (conflicts excepted) as it stands after the sync — the apply/create
   * answer, else the cache — keyed `${kind}/${name}`.
   */
  children: Map<string, KubeObject>;
}

/** The `children` key of a child: `${kind}/${name}`. */
export function childKey(kind: string, name: string): string {
  return `${kind}/${name}`;
}
