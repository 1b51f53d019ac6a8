import { type ObjectWithStatus } from '@steward/controller';
import { removeFinalizerPatch } from '@steward/finalizers';
import { type KubeClient, type ResourceType } from '@steward/kube';
import { ExternalAnnotations as A } from './annotations.js';
import { formatRefusal, ledgerTime, type CreateRefusal } from './ledger.js';

/** What the managed reconciler writes to an object's metadata: the finalizer and the ledger. */
export interface MetadataWrites<T extends ObjectWithStatus> {
  /**
   * Before a create: the finalizer (if missing), the external name (if not recorded) and the
   * pending mark, in **one** merge patch checked against `obj`'s resourceVersion — a concurrent
   * writer (another process, a user) makes it fail with a conflict and the create is not made.
   */
  recordCreatePending(obj: T, externalName: string): Promise<T>;
  /**
   * For a resource that exists and is this object's: whatever of finalizer, external name and the
   * create's success (or the adoption) the metadata lacks, in one patch — checked against the
   * resourceVersion when it changes the finalizers.
   */
  recordManaged(obj: T, externalName: string, created: boolean): Promise<T>;
  /** The create succeeded (unchecked: the outcome of a call made under a checked pending mark). */
  recordCreated(obj: T): Promise<T>;
  /** The provider refused the create for this generation: failed mark + the refusal, one patch. */
  recordRefused(obj: T, refusal: CreateRefusal): Promise<T>;
  /** Removes exactly this finalizer (a JSON patch that tests it is still at its index). */
  removeFinalizer(obj: T): Promise<void>;
}

export function metadataWrites<T extends ObjectWithStatus>(
  client: Pick<KubeClient, 'mergePatch' | 'jsonPatch'>,
  rt: ResourceType,
  finalizer: string,
): MetadataWrites<T> {
  const patch = (obj: T, metadata: Record<string, unknown>): Promise<T> =>
    client.mergePatch<T>(rt, obj.metadata.name!, obj.metadata.namespace, { metadata });
  const withFinalizer = (obj: T): { finalizers?: string[] } => {
    const current = obj.metadata.finalizers ?? [];
    return current.includes(finalizer) ? {} : { finalizers: [...current, finalizer] };
  };
  const nameIfMissing = (obj: T, externalName: string): Record<string, string> =>
    obj.metadata.annotations?.[A.externalName] ? {} : { [A.externalName]: externalName };

  return {
    recordCreatePending: (obj, externalName) =>
      patch(obj, {
        resourceVersion: obj.metadata.resourceVersion,
        ...withFinalizer(obj),
        annotations: { ...nameIfMissing(obj, externalName), [A.createPending]: ledgerTime() },
      }),
    recordManaged: async (obj, externalName, created) => {
      const finalizers = withFinalizer(obj);
      const annotations = {
        ...nameIfMissing(obj, externalName),
        ...(created ? { [A.createSucceeded]: ledgerTime() } : {}),
      };
      if (!finalizers.finalizers && Object.keys(annotations).length === 0) return obj;
      return patch(obj, {
        ...(finalizers.finalizers ? { resourceVersion: obj.metadata.resourceVersion } : {}),
        ...finalizers,
        annotations,
      });
    },
    recordCreated: (obj) => patch(obj, { annotations: { [A.createSucceeded]: ledgerTime() } }),
    recordRefused: (obj, refusal) =>
      patch(obj, {
        annotations: { [A.createFailed]: ledgerTime(), [A.createRefused]: formatRefusal(refusal) },
      }),
    removeFinalizer: async (obj) => {
      const operations = removeFinalizerPatch(obj, finalizer);
      if (!operations) return;
      await client.jsonPatch(rt, obj.metadata.name!, obj.metadata.namespace, operations);
    },
  };
}
