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
 * spec (`update`; for an adoption this also writes the provider's ownership mark), record an
 * adoption (`adopt`: a Normal Event `ExternalResourceAdopted`, `status.adoptedAt`), publish
 * connection details once it is ready, then one status write with what was observed. Requeued at the busy interval while the provider is busy or was just asked to
 * change something, else at the poll interval (drift detection).
 */
export async function syncPhase<T extends ManagedObject>(
  run: ManagedRun<T>,
  record: boolean,
  update: boolean,
  adopt = false,
): Promise<Result> {
  const name = run.externalName!;
  const observed = run.observed!;
  let obj = run.obj;
  if (record) {
    const unrecorded = ledgerState(obj.metadata.annotations) !== 'succeeded';
    obj = track(run, await run.writes.recordManaged(obj, name, unrecorded));
  }
  if (update) await run.client!.update(obj, name, run.desired, observed, run.ctx.signal);
  const where = providerName(run);
  if (adopt) {
    const mark = observed.mark;
    const from = mark
      ? `marked as ${mark.namespace ?? '?'}/${mark.name ?? '?'}'s`
      : mark === null
        ? 'unmarked'
        : 'not created by this object';
    run.options.events?.event(
      obj,
      'Normal',
      Reasons.ExternalResourceAdopted,
      `${name} at ${where} (${from}) adopted through spec.adopt, as the ProviderProfile allows for namespace ${obj.metadata.namespace ?? ''}`,
    );
  }
  if (observed.ready && observed.connectionDetails && run.options.publishConnectionDetails) {
    await run.options.publishConnectionDetails(obj, observed.connectionDetails, run.ctx.signal);
  }
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
      ...(adopt ? { adoptedAt: new Date().toISOString() } : {}),
    },
  });
  const busy = update || !observed.ready;
  return { requeueAfter: busy ? run.busyPollIntervalMs : run.pollIntervalMs };
}
