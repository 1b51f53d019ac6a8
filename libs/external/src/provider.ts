import { type KubeObject } from '@steward/kube';

/** `observe` found nothing under the external name. */
export interface Absent {
  exists: false;
}

/** What `observe` learned about an existing external resource. */
export interface Present<R = unknown> {
  exists: true;
  /**
   * The provider's own description of the resource as observed (an RDS `DBInstance`, a Cloud SQL
   * instance, a topic's metadata and config): handed back to `update` and `delete` of the same
   * reconcile, so they act on what was seen without asking again.
   */
  raw: R;
  /** Its settings match the desired state. */
  upToDate: boolean;
  /** It is usable (e.g. `available`); sets `Ready`. */
  ready: boolean;
  /** The provider's own state word, for status and messages (e.g. `creating`, `available`). */
  state?: string;
  /**
   * The ownership mark the resource carries at the provider (tags, labels written by `create` and
   * by an adoption): the object it names, `null` when the resource has none, undefined when the
   * provider keeps no marks (then the create ledger alone says whose it is). The reconciler
   * compares it with the object — the mark, not the object's annotations, is the proof.
   */
  mark?: OwnerMark | null;
  /** Fields to merge into `status` (e.g. endpoint). Never secrets. */
  status?: Record<string, unknown>;
  /**
   * What clients need to connect (e.g. `host`, `port`), for the reconciler's connection-details
   * publisher; published before `Ready=True` is written, so whoever sees Ready finds them.
   */
  connectionDetails?: Record<string, string>;
}

export type Observation<R = unknown> = Absent | Present<R>;

/** The object an external resource's ownership mark names (what the provider recorded). */
export interface OwnerMark {
  uid?: string;
  namespace?: string;
  name?: string;
}

/**
 * The mark a provider's tags or labels record: `read(keys.uid)` and the others, or null when the
 * resource has no owner uid (unmarked).
 */
export function readOwnerMark(
  read: (key: string) => string | undefined,
  keys: { uid: string; namespace: string; name: string },
): OwnerMark | null {
  const uid = read(keys.uid);
  if (!uid) return null;
  const namespace = read(keys.namespace);
  const name = read(keys.name);
  return { uid, ...(namespace !== undefined ? { namespace } : {}), ...(name ? { name } : {}) };
}

/**
 * Talks to the provider about one object's external resource, for one reconcile (Crossplane's
 * `ExternalClient`). `desired` is what the provider's `validate` computed from the spec for this
 * reconcile (never recomputed here). Errors: throw `TerminalError` (from @steward/controller) for
 * what only the user can fix; from `create` that also records the create as refused for this
 * generation (not tried again until the spec changes). Any other error is retried with backoff;
 * from `create` it leaves the outcome unknown (the ledger's `pending`).
 */
export interface ExternalClient<T extends KubeObject, D = unknown, R = unknown> {
  /**
   * Called on every reconcile that reaches the provider, before any other method. Must not mutate
   * anything, anywhere. `desired` is undefined while the object is being deleted (its spec may no
   * longer validate, and it does not matter then).
   */
  observe(
    obj: T,
    externalName: string,
    desired: D | undefined,
    signal: AbortSignal,
  ): Promise<Observation<R>>;
  /**
   * Called when `observe` found nothing, after the ledger recorded the create as pending (a
   * resourceVersion-checked write: it runs at most once per recorded attempt). Must be idempotent
   * (a resource of this name that turns out to be ours counts as created) and must not wait for the
   * provider to finish: start the creation and return; later observations report progress. May
   * mutate only the provider's world.
   */
  create(obj: T, externalName: string, desired: D, signal: AbortSignal): Promise<void>;
  /**
   * Called when the resource exists, is this object's (created, adopted, or owned by its mark) and
   * is not up to date. Acts on the difference between `desired` and `observed.raw`; idempotent and
   * non-blocking. What the provider cannot change is a `TerminalError` raised before anything
   * changes (e.g. `NotSupported`).
   */
  update(
    obj: T,
    externalName: string,
    desired: D,
    observed: Present<R>,
    signal: AbortSignal,
  ): Promise<void>;
  /**
   * Called while the object is being deleted with `deletionPolicy: Delete`, for a resource this
   * object created or adopted that still exists. Starts the deletion (idempotent: a deletion under
   * way or a resource already gone is fine); resolves `{ done: true }` once the resource is gone.
   */
  delete(
    obj: T,
    externalName: string,
    observed: Present<R>,
    signal: AbortSignal,
  ): Promise<{ done: boolean }>;
  /** Releases connections; called once at the end of every reconcile that connected. */
  close?(): Promise<void>;
}

/**
 * A provider of one kind of external resource. `C` is what the kind's admission resolved for the
 * object (e.g. its ProviderProfile), `D` the desired state `validate` computes, `R` the raw
 * observed resource.
 */
export interface ExternalProvider<T extends KubeObject, C = void, D = unknown, R = unknown> {
  /** For metrics and messages, e.g. `aws-rds`, `gcp-cloudsql`, `kafka`. */
  readonly name: string;
  /**
   * True when the provider lets us choose the resource's name and refuses a second resource of the
   * same name (RDS identifiers, Cloud SQL instance names, Kafka topics): then a repeated create after
   * a crash is harmless. False otherwise: a create with an unrecorded outcome stops reconciliation.
   */
  readonly deterministicNames: boolean;
  /**
   * The external name for an object that has none recorded yet; must be a pure function of the
   * object when `deterministicNames`. Called before anything is created; recorded in the same write
   * as the create's pending mark.
   */
  externalName(obj: T, context: C): string;
  /**
   * Called on every reconcile of a live object before any provider call (pure, no I/O): checks
   * what the provider would refuse and computes the desired state from the spec, once. Throws
   * `TerminalError` for an invalid spec — nothing is then asked of the provider.
   */
  validate(obj: T, context: C): D;
  /**
   * Called once per reconcile that needs the provider, after `validate`: resolves credentials and
   * opens (or borrows) a connection. May throw `TerminalError` (e.g. credentials missing); must not
   * mutate anything.
   */
  connect(obj: T, context: C, signal: AbortSignal): Promise<ExternalClient<T, D, R>>;
  /**
   * For an error that is retried: a `Ready` reason when it means the resource itself cannot be
   * used now (e.g. no Kafka broker answers — the admin API *is* the service), so `Ready=False`
   * even for a resource known to be available. Otherwise (undefined, or no such method) an
   * available resource stays Ready while only its control API fails (a throttled cloud API).
   */
  unavailableReason?(error: unknown): string | undefined;
}
