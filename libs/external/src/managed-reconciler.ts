import {
  findCondition,
  jsonEqual,
  setConditions,
  type Condition,
  type ConditionUpdate,
} from '@steward/conditions';
import {
  TerminalError,
  terminalCause,
  type EventSink,
  type Reconciler,
  type Result,
} from '@steward/controller';
import { type Informer } from '@steward/informer';
import { ConflictError, type KubeClient, type KubeObject, type ResourceType } from '@steward/kube';
import { withFinalizer } from '@steward/finalizers';
import { ExternalAnnotations as A } from './annotations.js';
import { decideMissing, ledgerState, ledgerTime } from './ledger.js';
import { type ExternalClient, type ExternalProvider } from './provider.js';

/** The fields every external kind has (DESIGN.md, "Common API conventions"). */
export interface ManagedObject extends KubeObject {
  spec: { deletionPolicy?: 'Retain' | 'Delete'; adopt?: boolean };
  status?: {
    conditions?: Condition[];
    observedGeneration?: number;
    externalName?: string;
    providerState?: string;
  } & Record<string, unknown>;
}

export const Reasons = {
  Available: 'Available',
  Creating: 'Creating',
  Updating: 'Updating',
  Deleting: 'Deleting',
  ReconcileSuccess: 'ReconcileSuccess',
  ReconcileError: 'ReconcileError',
  ReconcilePaused: 'ReconcilePaused',
  AlreadyExists: 'AlreadyExists',
  CreateOutcomeUnknown: 'CreateOutcomeUnknown',
  ExternalResourceRetained: 'ExternalResourceRetained',
  ExternalResourceDeleted: 'ExternalResourceDeleted',
} as const;

export interface ManagedReconcilerOptions<T extends ManagedObject> {
  client: KubeClient;
  resourceType: ResourceType;
  informer: Informer<T>;
  provider: ExternalProvider<T>;
  /** e.g. `database.steward.dev/external`. */
  finalizer: string;
  /** Re-observe a converged resource this often. Default 60 s. */
  pollIntervalMs?: number;
  /** Re-observe while the provider is busy (creating, modifying, deleting). Default 5 s. */
  busyPollIntervalMs?: number;
  events?: EventSink;
}

/**
 * The managed-external-resource reconciler shared by every kind that lives outside the cluster
 * (Crossplane's managed.Reconciler): connect → observe → create | update | delete, with
 * - the external-create ledger: the external name is recorded before the first create; a
 *   `create-pending` mark is written by a resourceVersion-checked update (a conflict stops the
 *   create); then `create-succeeded` or `create-failed`. A pending mark without outcome, for a
 *   provider without deterministic names, stops with `Synced=False, CreateOutcomeUnknown` — never a
 *   second create;
 * - a resource that exists but was not created by this object is adopted only when `spec.adopt`;
 * - `deletionPolicy` Retain (default): the CR goes, the resource stays, an Event says where; Delete:
 *   the provider deletes (final snapshot is the provider's business) and the finalizer goes after;
 * - `steward.dev/paused: "true"`: nothing happens, `Synced=False, ReconcilePaused` says so;
 * - `Synced` (did the last reconcile work) and `Ready` (is the resource usable) conditions, written
 *   only when they change, and Events with constant reasons.
 */
export function managedReconciler<T extends ManagedObject>(
  options: ManagedReconcilerOptions<T>,
): Reconciler {
  const { client, resourceType: rt, informer, provider, finalizer } = options;
  const poll = options.pollIntervalMs ?? 60_000;
  const busyPoll = options.busyPollIntervalMs ?? 5_000;

  const writeStatus = async (
    obj: T,
    updates: ConditionUpdate[],
    fields: Record<string, unknown> = {},
  ): Promise<void> => {
    const generation = obj.metadata.generation;
    const stamped = updates.map((u) => ({
      ...u,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    }));
    const { conditions } = setConditions(obj.status?.conditions, stamped);
    const next = {
      ...obj.status,
      ...fields,
      conditions,
      ...(generation !== undefined ? { observedGeneration: generation } : {}),
    };
    if (jsonEqual(next, obj.status)) return;
    try {
      await client.mergePatch(
        rt,
        obj.metadata.name!,
        obj.metadata.namespace,
        { status: next },
        { subresource: 'status' },
      );
    } catch (error) {
      if (!(error instanceof ConflictError)) throw error;
    }
  };

  const annotate = async (
    obj: T,
    annotations: Record<string, string>,
    checkResourceVersion: boolean,
  ): Promise<T> =>
    client.mergePatch<T>(rt, obj.metadata.name!, obj.metadata.namespace, {
      metadata: {
        annotations,
        ...(checkResourceVersion ? { resourceVersion: obj.metadata.resourceVersion } : {}),
      },
    });

  const synced = (reason: string, message: string): ConditionUpdate => ({
    type: 'Synced',
    status: reason === Reasons.ReconcileSuccess ? 'True' : 'False',
    reason,
    message,
  });

  return async (ctx, request): Promise<Result | void> => {
    const cached = informer.store.get(request.key);
    if (!cached) return;
    let obj = cached;

    if (obj.metadata.annotations?.[A.paused] === 'true') {
      await writeStatus(obj, [
        synced(
          Reasons.ReconcilePaused,
          `reconciliation is paused by the ${A.paused} annotation; nothing is changed at ${provider.name}`,
        ),
      ]);
      return;
    }

    let external: ExternalClient<T> | undefined;
    const connect = async (): Promise<ExternalClient<T>> =>
      (external ??= await provider.connect(obj, ctx.signal));
    try {
      const outcome = await withFinalizer<T, Result | void>(client, rt, obj, finalizer, {
        apply: async () => {
          // 1. Record the external name before anything is created.
          let externalName = obj.metadata.annotations?.[A.externalName];
          if (!externalName) {
            externalName = provider.externalName(obj);
            obj = await annotate(obj, { [A.externalName]: externalName }, true);
          }
          const ext = await connect();
          const observation = await ext.observe(obj, externalName, ctx.signal);
          const ledger = ledgerState(obj.metadata.annotations);

          if (!observation.exists) {
            // A create the provider refused for this very generation is not tried again: only a
            // change to the spec (a new generation) can make it succeed.
            const stalled = findCondition(obj.status?.conditions, 'Stalled');
            if (
              ledger === 'failed' &&
              stalled?.status === 'True' &&
              stalled.observedGeneration === obj.metadata.generation
            ) {
              throw new TerminalError(stalled.reason, stalled.message);
            }
            if (
              decideMissing(ledger, provider.deterministicNames).action === 'stop-unknown-outcome'
            ) {
              throw new TerminalError(
                Reasons.CreateOutcomeUnknown,
                `a create call for ${externalName} at ${provider.name} was started at ${obj.metadata.annotations?.[A.createPending]} but its outcome was never recorded, and ${provider.name} names are not deterministic, so another create could make a duplicate. Check ${provider.name} for a resource created then; if there is none, remove the ${A.createPending} annotation to try again`,
              );
            }
            // 2. The pending mark, guarded by resourceVersion: a concurrent writer makes this fail
            //    with a conflict, and the create is not attempted.
            obj = await annotate(obj, { [A.createPending]: ledgerTime() }, true);
            try {
              await ext.create(obj, externalName, ctx.signal);
            } catch (error) {
              if (terminalCause(error))
                await annotate(obj, { [A.createFailed]: ledgerTime() }, false);
              throw error;
            }
            obj = await annotate(obj, { [A.createSucceeded]: ledgerTime() }, false);
            options.events?.event(
              obj,
              'Normal',
              Reasons.Creating,
              `creating ${externalName} at ${provider.name}`,
            );
            await writeStatus(
              obj,
              [
                synced(Reasons.ReconcileSuccess, ''),
                {
                  type: 'Ready',
                  status: 'False',
                  reason: Reasons.Creating,
                  message: `${externalName} is being created at ${provider.name}`,
                },
              ],
              {
                externalName,
              },
            );
            return { requeueAfter: busyPoll };
          }

          // Never created by this object (no create, or only creates the provider refused): the
          // resource is someone else's unless the provider says it is ours or the user adopts it.
          const neverCreated = ledger === 'none' || ledger === 'failed';
          if (neverCreated && !obj.spec.adopt && observation.ownedByThisObject !== true) {
            throw new TerminalError(
              Reasons.AlreadyExists,
              `${externalName} already exists at ${provider.name} and was not created by this object; set spec.adopt: true to manage the existing resource, or choose another name`,
            );
          }
          if (ledger === 'pending')
            obj = await annotate(obj, { [A.createSucceeded]: ledgerTime() }, false);
          if (neverCreated) obj = await annotate(obj, { [A.createSucceeded]: ledgerTime() }, false); // adopted

          let busy = !observation.ready;
          if (observation.upToDate === false) {
            await ext.update(obj, externalName, observation, ctx.signal);
            busy = true;
          }
          const ready: ConditionUpdate = observation.ready
            ? {
                type: 'Ready',
                status: 'True',
                reason: Reasons.Available,
                message: `${externalName} is available at ${provider.name}`,
              }
            : {
                type: 'Ready',
                status: 'False',
                reason: observation.upToDate === false ? Reasons.Updating : Reasons.Creating,
                message: `${externalName} is ${observation.state ?? 'not ready'} at ${provider.name}`,
              };
          await writeStatus(obj, [synced(Reasons.ReconcileSuccess, ''), ready], {
            ...observation.status,
            externalName,
            ...(observation.state ? { providerState: observation.state } : {}),
          });
          return { requeueAfter: busy ? busyPoll : poll };
        },
        cleanup: async () => {
          const externalName = obj.metadata.annotations?.[A.externalName];
          const policy = obj.spec.deletionPolicy ?? 'Retain';
          if (
            !externalName ||
            (ledgerState(obj.metadata.annotations) === 'none' && !obj.spec.adopt)
          )
            return;
          if (policy === 'Retain') {
            options.events?.event(
              obj,
              'Normal',
              Reasons.ExternalResourceRetained,
              `deletionPolicy is Retain: ${externalName} stays at ${provider.name}; delete it there, or adopt it with a new object`,
            );
            return;
          }
          const ext = await connect();
          const observation = await ext.observe(obj, externalName, ctx.signal);
          if (!observation.exists) {
            options.events?.event(
              obj,
              'Normal',
              Reasons.ExternalResourceDeleted,
              `${externalName} was deleted at ${provider.name}`,
            );
            return;
          }
          const { done } = await ext.delete(obj, externalName, observation, ctx.signal);
          await writeStatus(obj, [
            {
              type: 'Ready',
              status: 'False',
              reason: Reasons.Deleting,
              message: `${externalName} is being deleted at ${provider.name}`,
            },
          ]);
          return done ? undefined : { requeueAfter: busyPoll };
        },
      });
      if (outcome.action === 'applied') return outcome.result;
      if (outcome.action === 'cleanup-pending') return { requeueAfter: outcome.requeueAfter };
      return;
    } catch (error) {
      const terminal = terminalCause(error);
      if (!terminal) {
        // Retrying: Synced=False says why. Ready=False says it too unless the resource is known
        // to be available (an available database stays Ready while only its API throttles) and
        // the provider does not say the error makes it unusable — so an object never seen at the
        // provider is never without a Ready condition.
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 1024);
        const updates = [synced(Reasons.ReconcileError, message)];
        const unavailable = provider.unavailableReason?.(error);
        if (unavailable || findCondition(obj.status?.conditions, 'Ready')?.status !== 'True') {
          updates.push({
            type: 'Ready',
            status: 'False',
            reason: unavailable ?? Reasons.ReconcileError,
            message,
          });
        }
        await writeStatus(obj, updates).catch(() => undefined);
      }
      throw error;
    } finally {
      await external?.close?.().catch(() => undefined);
    }
  };
}
