import { type Result } from '@steward/controller';
import {
  ready,
  synced,
  track,
  providerName,
  type ManagedObject,
  type ManagedRun,
} from './managed-run.js';
import { ledgerState } from './ledger.js';
import { Reasons } from './reasons.js';

/**
 * Sync (the resource exists and is this object's): record what the metadata lacks in one write
 * (`record`: finalizer, name, the create's success or the adoption), bring the resource to the
 * spec (`update`), publish connection details once it is ready, then one status write with what
 * was observed. Requeued at the busy interval while the provider is busy or was just asked to
 * change something, else at the poll interval (drift detection).
 */
export async function syncPhase<T extends ManagedObject>(
  run: ManagedRun<T>,
  record: boolean,
  update: boolean,
): Promise<Result> {
  const name = run.externalName!;
  const observed = run.observed!;
  let obj = run.obj;
  if (record) {
    const unrecorded = ledgerState(obj.metadata.annotations) !== 'succeeded';
    obj = track(run, await run.writes.recordManaged(obj, name, unrecorded));
  }
  if (update) await run.client!.update(obj, name, run.desired, observed, run.ctx.signal);
  if (observed.ready && observed.connectionDetails && run.options.publishConnectionDetails) {
    await run.options.publishConnectionDetails(obj, observed.connectionDetails, run.ctx.signal);
  }
  const where = providerName(run);
  await run.ctx.status.write({
    conditions: [
      synced(Reasons.ReconcileSuccess, ''),
      observed.ready
        ? ready('True', Reasons.Available, `${name} is available at ${where}`)
        : ready(
            'False',
            observed.upToDate ? Reasons.Creating : Reasons.Updating,
            `${name} is ${observed.state ?? 'not ready'} at ${where}`,
          ),
    ],
    removeConditions: ['Reconciling'],
    fields: {
      ...observed.status,
      externalName: name,
      ...(observed.state ? { providerState: observed.state } : {}),
    },
  });
  const busy = update || !observed.ready;
  return { requeueAfter: busy ? run.busyPollIntervalMs : run.pollIntervalMs };
}
