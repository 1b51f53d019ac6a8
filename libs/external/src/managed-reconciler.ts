import { findCondition } from '@steward/conditions';
import {
  TerminalError,
  terminalCause,
  type ObjectReconciler,
  type Result,
} from '@steward/controller';
import { hasFinalizer } from '@steward/finalizers';
import { ExternalAnnotations as A } from './annotations.js';
import { ledgerState, refusalAt, type CreateRefusal } from './ledger.js';
import {
  providerName,
  ready,
  synced,
  type Admission,
  type ManagedObject,
  type ManagedReconcilerOptions,
  type ManagedRun,
} from './managed-run.js';
import { metadataWrites } from './metadata-writes.js';
import { createPhase } from './phase-create.js';
import { deletePhase, releasePhase } from './phase-delete.js';
import { syncPhase } from './phase-sync.js';
import {
  planManaged,
  type ManagedAction,
  type ManagedFacts,
  type Owner,
  type RefusalReason,
} from './plan.js';
import { type OwnerMark } from './provider.js';
import { Reasons } from './reasons.js';

/**
 * The managed-external-resource reconciler shared by every kind that lives outside the cluster
 * (Crossplane's managed.Reconciler), as a plan and its executors:
 * 1. facts: pause annotation, deletion state, finalizer, the create ledger, the kind's admission
 *    (`admit`: profile, guardrails — then the provider's `validate`, for live objects);
 * 2. `planManaged(facts)` picks one action; when it needs to see the provider, the reconciler
 *    connects, observes once and plans again with what it saw;
 * 3. one phase executes it: `createPhase`, `syncPhase`, `deletePhase`/`releasePhase`, or a
 *    refusal (`TerminalError`) or the pause report.
 * Failures all take one shape: a terminal one writes `Synced=False` + `Stalled=True` (hence
 * `Ready=False`) with its reason, and the runtime adds the Warning Event; a retried one writes
 * `Synced=False, ReconcileError`, `Reconciling=True` (kstatus: InProgress) and `Ready=False` —
 * unless the resource was Ready and the provider does not say the error makes it unusable (an
 * available database stays Ready while its API throttles). Every status write goes through
 * the reconcile's one writer (`ctx.status`), so each processed generation is observed.
 *
 * Writes for a new resource that is ready at its first observation after the create: 4 (pending
 * record, create-succeeded, status Creating, status Ready); a converged object: none.
 */
export function managedReconciler<T extends ManagedObject, C>(
  options: ManagedReconcilerOptions<T, C>,
): ObjectReconciler<T> {
  const writes = metadataWrites<T>(options.client, options.resourceType, options.finalizer);
  const general = options as ManagedReconcilerOptions<T, unknown>;
  return async (ctx, obj) => {
    const run: ManagedRun<T> = {
      ctx,
      options: general,
      writes,
      obj,
      provider: undefined,
      externalName: obj.metadata.annotations?.[A.externalName],
      desired: undefined,
      client: undefined,
      observed: undefined,
      pollIntervalMs: options.pollIntervalMs ?? 60_000,
      busyPollIntervalMs: options.busyPollIntervalMs ?? 5_000,
    };
    try {
      return await reconcile(run, general);
    } catch (error) {
      await reportFailure(run, error).catch(() => undefined);
      throw error;
    } finally {
      await run.client?.close?.().catch(() => undefined);
    }
  };
}

async function reconcile<T extends ManagedObject>(
  run: ManagedRun<T>,
  options: ManagedReconcilerOptions<T, unknown>,
): Promise<Result | void> {
  const obj = run.obj;
  const paused = obj.metadata.annotations?.[A.paused] === 'true';
  const deleting = Boolean(obj.metadata.deletionTimestamp);
  const admission: Admission<T, unknown> | undefined = paused ? undefined : options.admit(obj);
  let stop: TerminalError | undefined;
  if (admission?.action === 'stop') {
    stop = new TerminalError(admission.reason, admission.message, {
      ...(admission.recheckAfter !== undefined ? { recheckAfter: admission.recheckAfter } : {}),
    });
  } else if (admission?.action === 'manage') {
    run.provider = admission.provider;
    run.externalName ??= admission.provider.externalName(obj, admission.context);
    if (!deleting) {
      try {
        run.desired = admission.provider.validate(obj, admission.context);
      } catch (error) {
        stop = terminalCause(error);
        if (!stop) throw error;
      }
    }
  }
  const refused = refusalAt(obj.metadata.annotations, obj.metadata.generation);
  const facts: ManagedFacts = {
    paused,
    deleting,
    hasFinalizer: hasFinalizer(obj, options.finalizer),
    nameRecorded: Boolean(obj.metadata.annotations?.[A.externalName]),
    ledger: ledgerState(obj.metadata.annotations),
    refusedAtThisGeneration: refused !== undefined,
    deletionPolicy: obj.spec.deletionPolicy ?? 'Retain',
    adopt: obj.spec.adopt === true,
    adoptionAllowed: admission?.action === 'manage' && admission.adoptionAllowed === true,
    deterministicNames: run.provider?.deterministicNames ?? true,
    admission: stop ? 'stop' : (admission?.action ?? 'manage'),
    observed: 'not-yet',
  };
  let action = planManaged(facts);
  if (action.type === 'observe') {
    const provider = run.provider!;
    const context = admission?.action === 'manage' ? admission.context : undefined;
    run.client = await provider.connect(obj, context, run.ctx.signal);
    const observation = await run.client.observe(
      obj,
      run.externalName!,
      run.desired,
      run.ctx.signal,
    );
    run.observed = observation.exists ? observation : undefined;
    action = planManaged({
      ...facts,
      observed: observation.exists
        ? { owner: ownerOf(obj, observation.mark), upToDate: observation.upToDate }
        : 'absent',
    });
  }
  return execute(run, action, stop, refused);
}

/** Whose the observed resource is, by its mark (see `Owner`). */
export function ownerOf(obj: ManagedObject, mark: OwnerMark | null | undefined): Owner {
  if (mark === undefined) return 'unknown';
  if (mark === null) return 'unmarked';
  if (mark.uid && mark.uid === obj.metadata.uid) return 'this';
  if (mark.namespace !== undefined && mark.namespace !== (obj.metadata.namespace ?? ''))
    return 'other-namespace';
  return 'other';
}

async function execute<T extends ManagedObject>(
  run: ManagedRun<T>,
  action: ManagedAction,
  stop: TerminalError | undefined,
  refused: CreateRefusal | undefined,
): Promise<Result | void> {
  switch (action.type) {
    case 'nothing':
      return;
    case 'report-paused':
      await run.ctx.status.write({
        conditions: [
          synced(
            Reasons.ReconcilePaused,
            `reconciliation is paused by the ${A.paused} annotation; nothing is changed at ${providerName(run)}`,
          ),
        ],
        removeConditions: ['Reconciling'],
      });
      return;
    case 'refuse':
      throw refusal(run, action.reason, stop, refused);
    case 'release':
      return releasePhase(run, action.reason);
    case 'create':
      return createPhase(run);
    case 'sync':
      return syncPhase(run, action.record, action.update, action.adopt);
    case 'delete':
      return deletePhase(run);
    case 'observe':
      throw new Error('steward/external: planned to observe twice');
  }
}

function refusal<T extends ManagedObject>(
  run: ManagedRun<T>,
  reason: RefusalReason,
  stop: TerminalError | undefined,
  refused: CreateRefusal | undefined,
): TerminalError {
  const name = run.externalName ?? run.obj.metadata.name;
  const where = providerName(run);
  switch (reason) {
    case 'admission':
      return stop ?? new TerminalError(Reasons.ReconcileError, 'admission refused the object');
    case 'create-refused':
      return new TerminalError(refused!.reason, refused!.message);
    case 'create-outcome-unknown':
      return new TerminalError(
        Reasons.CreateOutcomeUnknown,
        `a create call for ${name} at ${where} was started at ${run.obj.metadata.annotations?.[A.createPending]} but its outcome was never recorded, and ${where} names are not deterministic, so another create could make a duplicate. Check ${where} for a resource created then; if there is none, remove the ${A.createPending} annotation to try again`,
      );
    case 'already-exists':
      return new TerminalError(
        Reasons.AlreadyExists,
        `${name} already exists at ${where} and was not created by this object; set spec.adopt: true to manage the existing resource (if the ProviderProfile allows adoption from this namespace), or choose another name`,
      );
    case 'owned-elsewhere': {
      const mark = run.observed?.mark;
      const owner = mark ? ` (${mark.namespace ?? '?'}/${mark.name ?? '?'})` : '';
      return new TerminalError(
        Reasons.ExternalResourceOwnedElsewhere,
        `${name} at ${where} belongs to an object of another namespace${owner}: nothing was changed at ${where}. Choose another name; annotations and spec.adopt cannot take over another namespace's resource`,
      );
    }
    case 'adoption-not-allowed': {
      return new TerminalError(
        Reasons.AdoptionNotAllowed,
        `${name} already exists at ${where} and is not this object's; spec.adopt is true, but its ProviderProfile does not allow adoption from namespace ${run.obj.metadata.namespace ?? ''} (spec.adoption.namespaces): nothing was changed at ${where}`,
      );
    }
  }
}

/** The one shape of every failure's status (see `managedReconciler`). */
async function reportFailure<T extends ManagedObject>(
  run: ManagedRun<T>,
  error: unknown,
): Promise<void> {
  const terminal = terminalCause(error);
  if (terminal) {
    await run.ctx.status.write({
      conditions: [
        synced(terminal.reason, terminal.message),
        { type: 'Stalled', status: 'True', reason: terminal.reason, message: terminal.message },
      ],
    });
    return;
  }
  const message = (error instanceof Error ? error.message : String(error)).slice(0, 1024);
  const unavailable = run.provider?.unavailableReason?.(error);
  const current = run.ctx.status.object;
  const readyNow = findCondition(current.status?.conditions, 'Ready');
  const stillReady = !unavailable && readyNow?.status === 'True';
  await run.ctx.status.write({
    conditions: [
      synced(Reasons.ReconcileError, message),
      ...(stillReady ? [] : [ready('False', unavailable ?? Reasons.ReconcileError, message)]),
      { type: 'Reconciling', status: 'True', reason: Reasons.ReconcileError, message },
    ],
  });
}
