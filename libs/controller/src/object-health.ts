import { objectKey } from '@steward/informer';
import { type KubeObject } from '@steward/kube';
import { type ObjectHealthFacts } from '@steward/telemetry';

interface Tracked {
  /** The last successful reconcile, or when the object was first seen. */
  lastSuccessAt: number;
  failures: number;
  /** The oldest generation not yet observed by status, and when it was first seen. */
  unobserved?: { generation: number; since: number };
}

interface WithStatus extends KubeObject {
  status?: {
    observedGeneration?: number;
    conditions?: { type: string; status: string; lastTransitionTime?: string }[];
  };
}

/**
 * What one controller knows of its objects' health between scrapes: each object's reconcile
 * streak (from the worker loop) and since when its newest generation has waited to be observed
 * (from the informer's events). `facts` joins that with the objects in the cache; state for
 * objects that left the cache is dropped there, so it never outgrows the cache.
 */
export class ObjectHealthTracker {
  private readonly byKey = new Map<string, Tracked>();

  constructor(private readonly now: () => number = Date.now) {}

  private tracked(key: string): Tracked {
    let t = this.byKey.get(key);
    if (!t) this.byKey.set(key, (t = { lastSuccessAt: this.now(), failures: 0 }));
    return t;
  }

  /** An object as the informer delivered it (add or update). */
  seen(obj: KubeObject): void {
    const t = this.tracked(objectKey(obj));
    const generation = obj.metadata.generation;
    const observed = (obj as WithStatus).status?.observedGeneration;
    if (generation === undefined || (observed !== undefined && observed >= generation))
      delete t.unobserved;
    else t.unobserved ??= { generation, since: this.now() };
  }

  succeeded(key: string): void {
    const t = this.tracked(key);
    t.lastSuccessAt = this.now();
    t.failures = 0;
  }

  failed(key: string): void {
    this.tracked(key).failures++;
  }

  /** The facts of every object in `objects` (the cache); forgets objects no longer in it. */
  facts(objects: readonly KubeObject[]): ObjectHealthFacts[] {
    const now = this.now();
    const present = new Set<string>();
    const facts = objects.map((obj): ObjectHealthFacts => {
      const key = objectKey(obj);
      present.add(key);
      const t = this.tracked(key);
      const ready = (obj as WithStatus).status?.conditions?.find((c) => c.type === 'Ready');
      const readyStatus =
        ready?.status === 'True' ? 'true' : ready?.status === 'False' ? 'false' : 'unknown';
      const deletion = obj.metadata.deletionTimestamp;
      const since = (text: string | undefined) => {
        const ms = text ? Date.parse(text) : NaN;
        return Number.isFinite(ms) ? ms : undefined;
      };
      return {
        namespace: obj.metadata.namespace ?? '',
        ready: readyStatus,
        ...(readyStatus !== 'true'
          ? {
              notReadySince:
                since(ready?.lastTransitionTime) ?? since(obj.metadata.creationTimestamp) ?? now,
            }
          : {}),
        ...(t.unobserved ? { generationUnobservedSince: t.unobserved.since } : {}),
        ...(deletion ? { terminatingSince: since(deletion) ?? now } : {}),
        lastSuccessAt: t.lastSuccessAt,
        consecutiveFailures: t.failures,
      };
    });
    for (const key of this.byKey.keys()) if (!present.has(key)) this.byKey.delete(key);
    return facts;
  }
}
