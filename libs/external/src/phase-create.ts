import { type Result, terminalCause } from '@steward/controller';
import {
  ready,
  synced,
  track,
  providerName,
  type ManagedObject,
  type ManagedRun,
} from './managed-run.js';
import { Reasons } from './reasons.js';

/**
 * Create (the resource is absent and may be made). Three writes, in this order:
 * 1. finalizer, external name and the pending mark in one resourceVersion-checked patch — a
 *    conflict stops here, before any call;
 * 2. the provider's `create`; a `TerminalError` from it records the refusal for this generation
 *    (`create-failed` + `create-refused`) and is rethrown; any other error leaves the mark pending
 *    (outcome unknown: the ledger decides what the next reconcile may do);
 * 3. `create-succeeded`, then the status (`Synced=True`, `Ready=False, Creating`, the external name).
 * The next observation — after `busyPollIntervalMs` — reports progress.
 */
export async function createPhase<T extends ManagedObject>(run: ManagedRun<T>): Promise<Result> {
  const name = run.externalName!;
  let obj = track(run, await run.writes.recordCreatePending(run.obj, name));
  try {
    await run.client!.create(obj, name, run.desired, run.ctx.signal);
  } catch (error) {
    const refusal = terminalCause(error);
    if (refusal) {
      track(
        run,
        await run.writes.recordRefused(obj, {
          generation: obj.metadata.generation ?? 0,
          reason: refusal.reason,
          message: refusal.message,
        }),
      );
    }
    throw error;
  }
  obj = track(run, await run.writes.recordCreated(obj));
  run.options.events?.event(
    obj,
    'Normal',
    Reasons.Creating,
    `creating ${name} at ${providerName(run)}`,
  );
  await run.ctx.status.write({
    conditions: [
      synced(Reasons.ReconcileSuccess, ''),
      ready('False', Reasons.Creating, `${name} is being created at ${providerName(run)}`),
    ],
    removeConditions: ['Reconciling'],
    fields: { externalName: name },
  });
  return { requeueAfter: run.busyPollIntervalMs };
}
