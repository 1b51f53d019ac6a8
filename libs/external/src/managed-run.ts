import { type ConditionUpdate, type StatusWithConditions } from '@steward/conditions';
import {
  type EventRecorder,
  type ObjectReconcileContext,
  type ObjectWithStatus,
} from '@steward/controller';
import { type KubeClient, type ResourceType } from '@steward/kube';
import { type MetadataWrites } from './metadata-writes.js';
import { type ExternalClient, type ExternalProvider, type Present } from './provider.js';
import { Reasons } from './reasons.js';

/** The fields every external kind has (DESIGN.md, "Common API conventions"). */
export interface ManagedObject extends ObjectWithStatus {
  spec: { deletionPolicy?: 'Retain' | 'Delete'; adopt?: boolean };
  status?: StatusWithConditions & { externalName?: string; providerState?: string };
}

/**
 * The kind's admission of one object, decided before anything is asked of a provider (pure; the
 * same step for every kind, after the pause annotation): which provider manages it and with what
 * it resolved (e.g. the ProviderProfile) — or why only the user can proceed, or that a deletion
 * need not (or must not) reach any provider.
 */
export type Admission<T extends ManagedObject, C> =
  | {
      action: 'manage';
      provider: ExternalProvider<T, C>;
      context: C;
      /**
       * The object's profile lets its namespace adopt existing resources (`spec.adopt`). Default
       * false: an existing resource that is not this object's is never taken over.
       */
      adoptionAllowed?: boolean;
    }
  | { action: 'stop'; reason: string; message: string; recheckAfter?: number }
  | { action: 'release' };

export interface ManagedReconcilerOptions<T extends ManagedObject, C> {
  /** Writes the finalizer and the create ledger (status goes through the reconcile's writer). */
  client: Pick<KubeClient, 'mergePatch' | 'jsonPatch'>;
  resourceType: ResourceType;
  /** e.g. `database.steward.dev/external`. */
  finalizer: string;
  /** See `Admission`. Called on every reconcile of an object that is not paused. */
  admit(obj: T): Admission<T, C>;
  /** Re-observe a converged resource this often. Default 60 s. */
  pollIntervalMs?: number | undefined;
  /** Re-observe while the provider is busy (creating, modifying, deleting). Default 5 s. */
  busyPollIntervalMs?: number | undefined;
  /** Normal Events (created, retained, deleted); the runtime reports terminal failures. */
  events?: EventRecorder | undefined;
  /**
   * Publishes an observation's `connectionDetails` (e.g. into the object's connection Secret).
   * Called before `Ready=True` is written, on every reconcile that finds the resource ready, so
   * it must write only when something changed. Never for an object being deleted.
   */
  publishConnectionDetails?(
    obj: T,
    details: Record<string, string>,
    signal: AbortSignal,
  ): Promise<void>;
}

/** Everything one reconcile of one object has gathered so far; the phases act on it. */
export interface ManagedRun<T extends ManagedObject> {
  readonly ctx: ObjectReconcileContext<T>;
  readonly options: ManagedReconcilerOptions<T, unknown>;
  readonly writes: MetadataWrites<T>;
  /** The newest copy of the object (after this reconcile's own writes). */
  obj: T;
  /** Undefined when admission did not name one (stopped or released). */
  provider: ExternalProvider<T, unknown> | undefined;
  /** The recorded external name, or the one the provider gives a new object. */
  externalName: string | undefined;
  /** What `validate` computed (live objects under a provider only). */
  desired: unknown;
  client: ExternalClient<T> | undefined;
  observed: Present | undefined;
  readonly pollIntervalMs: number;
  readonly busyPollIntervalMs: number;
}

/** Replaces the run's object with a newer copy written by this reconcile. */
export function track<T extends ManagedObject>(run: ManagedRun<T>, obj: T): T {
  run.obj = obj;
  run.ctx.status.track(obj);
  return obj;
}

export function providerName(run: ManagedRun<ManagedObject>): string {
  return run.provider?.name ?? 'the provider';
}

export const synced = (
  reason: string,
  message: string,
): Omit<ConditionUpdate, 'observedGeneration'> => ({
  type: 'Synced',
  status: reason === Reasons.ReconcileSuccess ? 'True' : 'False',
  reason,
  message,
});

export const ready = (
  status: 'True' | 'False',
  reason: string,
  message: string,
): Omit<ConditionUpdate, 'observedGeneration'> => ({ type: 'Ready', status, reason, message });
