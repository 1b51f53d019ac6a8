import { type KubeObject } from '@steward/kube';

/** What `observe` learned about the external resource. */
export interface Observation {
  /** The resource exists at the provider. */
  exists: boolean;
  /** Its settings match the spec (ignored when it does not exist). Default true. */
  upToDate?: boolean;
  /** It is usable (e.g. `available`); sets `Ready`. */
  ready?: boolean;
  /** The provider's own state word, for status and messages (e.g. `creating`, `available`). */
  state?: string;
  /**
   * Whether the resource carries this object's ownership mark (tag/label). `false` for a resource of
   * that name made by someone else; undefined when the provider cannot tell.
   */
  ownedByThisObject?: boolean;
  /** Fields to merge into `status` (e.g. endpoint). Never secrets. */
  status?: Record<string, unknown>;
}

/**
 * Talks to the provider about one object's external resource. Crossplane's contract:
 * - `observe` is called on every reconcile; it must not mutate anything, anywhere;
 * - `create`, `update` and `delete` must be idempotent and must not block until the provider has
 *   finished: start the operation and return; later `observe` calls report progress.
 * - Throw `TerminalError` (from @steward/controller) for what only the user can fix (invalid
 *   parameters, forbidden); from `create`, that also records the create as definitely failed. Any
 *   other error is retried with backoff; from `create` it leaves the outcome unknown.
 */
export interface ExternalClient<T extends KubeObject> {
  observe(obj: T, externalName: string, signal: AbortSignal): Promise<Observation>;
  create(obj: T, externalName: string, signal: AbortSignal): Promise<void>;
  update(
    obj: T,
    externalName: string,
    observation: Observation,
    signal: AbortSignal,
  ): Promise<void>;
  /** Starts deletion; resolves `{ done: true }` once the resource is gone. */
  delete(
    obj: T,
    externalName: string,
    observation: Observation,
    signal: AbortSignal,
  ): Promise<{ done: boolean }>;
  /** Releases connections; called at the end of every reconcile. */
  close?(): Promise<void>;
}

/** A provider of one kind of external resource. */
export interface ExternalProvider<T extends KubeObject> {
  /** For metrics and messages, e.g. `aws-rds`, `gcp-cloudsql`, `kafka`. */
  readonly name: string;
  /**
   * True when the provider lets us choose the resource's name and refuses a second resource of the
   * same name (RDS identifiers, Cloud SQL instance names, Kafka topics): then a repeated create after
   * a crash is harmless. False otherwise: a create with an unrecorded outcome stops reconciliation.
   */
  readonly deterministicNames: boolean;
  /** The external name for a new object; must be a pure function of the object when deterministic. */
  externalName(obj: T): string;
  /** Resolves credentials and configuration (e.g. the ProviderProfile) for this object. */
  connect(obj: T, signal: AbortSignal): Promise<ExternalClient<T>>;
  /**
   * For an error that is retried: a `Ready` reason when it means the resource itself cannot be
   * used now (e.g. no Kafka broker answers — the admin API *is* the service), so `Ready=False`
   * even for a resource known to be available. Otherwise (undefined, or no such method) an
   * available resource stays Ready while only its control API fails (a throttled cloud API).
   */
  unavailableReason?(error: unknown): string | undefined;
}
