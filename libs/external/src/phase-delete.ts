import { type Result } from '@steward/controller';
import { NotFoundError } from '@steward/kube';
import { ready, providerName, type ManagedObject, type ManagedRun } from './managed-run.js';
import { type ReleaseReason } from './plan.js';
import { Reasons } from './reasons.js';

/**
 * Delete (`deletionPolicy: Delete`, a resource this object created or adopted, still there): the
 * provider starts (or follows) the deletion; the finalizer goes once it reports the resource gone,
 * until then `Ready=False, Deleting` and a look again at the busy interval.
 */
export async function deletePhase<T extends ManagedObject>(
  run: ManagedRun<T>,
): Promise<Result | void> {
  const name = run.externalName!;
  const { done } = await run.client!.delete(run.obj, name, run.observed!, run.ctx.signal);
  if (done) return releasePhase(run, 'deleted');
  await run.ctx.status.write({
    conditions: [
      ready('False', Reasons.Deleting, `${name} is being deleted at ${providerName(run)}`),
    ],
  });
  return { requeueAfter: run.busyPollIntervalMs };
}

/**
 * Release: the finalizer goes, and nothing (more) is done at the provider — an Event says where
 * the resource stays, or that it is gone, or that it was not this object's to delete.
 */
export async function releasePhase<T extends ManagedObject>(
  run: ManagedRun<T>,
  reason: ReleaseReason,
): Promise<void> {
  const name = run.externalName;
  const where = providerName(run);
  const events = run.options.events;
  if (name && reason === 'retained') {
    events?.event(
      run.obj,
      'Normal',
      Reasons.ExternalResourceRetained,
      `deletionPolicy is Retain: ${name} stays at ${where}; delete it there, or adopt it with a new object`,
    );
  } else if (name && reason === 'deleted') {
    events?.event(
      run.obj,
      'Normal',
      Reasons.ExternalResourceDeleted,
      `${name} was deleted at ${where}`,
    );
  } else if (name && reason === 'foreign') {
    events?.event(
      run.obj,
      'Normal',
      Reasons.ExternalResourceNotOwned,
      `${name} at ${where} is not this object's to delete; it was left as it is`,
    );
  }
  await run.writes.removeFinalizer(run.obj).catch((error: unknown) => {
    if (!(error instanceof NotFoundError)) throw error;
  });
}
