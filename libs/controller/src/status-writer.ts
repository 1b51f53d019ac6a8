import { nextStatus, type StatusChange, type StatusWithConditions } from '@steward/conditions';
import {
  ConflictError,
  NotFoundError,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';

/** An object whose status follows Steward's conventions (conditions, observedGeneration). */
export interface ObjectWithStatus extends KubeObject {
  status?: StatusWithConditions;
}

export interface StatusWriteOptions {
  /** Stamp the object's generation as observed (default true); see `StatusWriter.write`. */
  observe?: boolean;
}

/** What the status writer needs of a `KubeClient`. */
export type StatusClient = Pick<KubeClient, 'get' | 'mergePatch'>;

/**
 * The one writer of `status` for one object during one reconcile — used by the runtime (terminal
 * failures, clearing `Stalled`) and by every domain lib, so every kind follows the same rules:
 * - what is written is `nextStatus(current, generation, change)`: the generation stamped on the
 *   status and on every condition, `Stalled=True` ⇒ `Ready=False` (and `Synced=False`);
 * - nothing differs → no request at all (a converged object costs zero writes);
 * - **conflict rule**: a write carries the resourceVersion of the newest copy this writer knows
 *   (the object read at the start of the reconcile, then whatever this reconcile wrote — see
 *   `track`). On a 409 it reads the object once from the API server (not the cache), computes the
 *   change again over that copy and writes once more; a second 409 throws the `ConflictError`
 *   (the reconcile is retried with backoff). A change given as a function is recomputed over the
 *   fresh copy; a record is therefore never lost to a stale cache, and never written over a status
 *   someone else changed in between;
 * - the object gone (404) → nothing to write, `false`.
 * Status is never the controller's memory: nothing here reads it back to decide what to do.
 */
export class StatusWriter<T extends ObjectWithStatus = ObjectWithStatus> {
  private latest: T;

  constructor(
    private readonly client: StatusClient,
    private readonly rt: ResourceType,
    obj: T,
  ) {
    this.latest = obj;
  }

  /** The newest copy of the object this writer knows. */
  get object(): T {
    return this.latest;
  }

  /**
   * Tells the writer about a newer copy of the object (the response of a metadata write made in
   * this reconcile), so its next write is not refused for a resourceVersion it caused itself.
   */
  track(obj: T): void {
    this.latest = obj;
  }

  /**
   * Writes `change` if it changes anything; resolves whether a request was made that succeeded.
   * `options.observe: false` keeps the status's own `observedGeneration` (top level and the
   * conditions' stamps) instead of stamping the object's generation: for a write made without
   * processing the spec (a paused object), so a GitOps tool still reads a changed spec as not yet
   * observed.
   */
  async write(
    change: StatusChange | ((current: T) => StatusChange),
    options: StatusWriteOptions = {},
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const current = this.latest;
      const generation =
        options.observe === false
          ? current.status?.observedGeneration
          : current.metadata.generation;
      const { status, changed } = nextStatus(
        current.status,
        generation,
        typeof change === 'function' ? change(current) : change,
      );
      if (!changed) return false;
      try {
        this.latest = await this.client.mergePatch<T>(
          this.rt,
          current.metadata.name!,
          current.metadata.namespace,
          {
            metadata: { resourceVersion: current.metadata.resourceVersion },
            status: withRemovals(current.status, status),
          },
          { subresource: 'status' },
        );
        return true;
      } catch (error) {
        if (error instanceof NotFoundError) return false;
        if (!(error instanceof ConflictError) || attempt > 0) throw error;
        try {
          this.latest = await this.client.get<T>(
            this.rt,
            current.metadata.name!,
            current.metadata.namespace,
          );
        } catch (readError) {
          if (readError instanceof NotFoundError) return false;
          throw readError;
        }
      }
    }
  }
}

/** A merge patch sets what it names: a field dropped from the status is sent as `null`. */
function withRemovals(
  before: StatusWithConditions | undefined,
  after: StatusWithConditions,
): Record<string, unknown> {
  const patch: Record<string, unknown> = { ...after };
  for (const field of Object.keys(before ?? {})) if (!(field in after)) patch[field] = null;
  return patch;
}
