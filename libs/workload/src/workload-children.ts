import { byOwnerUid, type Informer, type InformerFactory, type Selection } from '@steward/informer';
import {
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { childKey, type ChildrenSync, type DesiredChild } from './desired-child.js';
import { ChildrenSyncError, type ChildFailure } from './errors.js';
import { isControlledBy } from './owner-reference.js';
import { addressChild, addressKey, planChild, planPrune, type AddressedChild } from './plan.js';

/** The name of the owner-uid index this library adds to every child informer (shared if present). */
export const OwnerUidIndex = 'byOwnerUid';

export interface WorkloadChildrenOptions {
  client: KubeClient;
  informers: InformerFactory;
  /** The controller's field manager: every apply is made as it, with `force`. */
  fieldManager: string;
  /**
   * Every kind this parent's children can be. Informers for them (with `selection`) are the cache
   * the comparison and pruning read; a controller passes the same kinds to
   * `controllerFor(...).owns()`.
   */
  kinds: ResourceType[];
  /**
   * The selection the controller's informers use, so informers are shared. Children must fall
   * inside it (a label selector means the children carry those labels): what the cache cannot
   * see is re-applied on every sync and never pruned.
   */
  selection?: Selection;
}

/** How often `detach` re-reads an object whose owner references moved under it. */
const detachAttempts = 3;

/**
 * The children of one kind of parent, declared as data and kept converged: server-side applied
 * with the controller's field manager and a controller reference, compared with the informer
 * cache so a converged parent costs no request at all, pruned when no longer desired.
 *
 * Applies use `force: true`. That is deliberate and the only place the runtime forces: a
 * controller owns the fields it declares on its own children, and a field another manager (a
 * `kubectl edit`, a merge patch) has changed is drift to correct, not a conflict to report.
 * Fields the controller does not declare are never touched, and objects it does not control are
 * never written at all (see `sync`). What force cannot do: an element of a keyed list that
 * another manager added — or made by changing a key, e.g. a Service port's number — is that
 * manager's, and stays; the apply adds ours beside it, which the server may refuse (two ports of
 * one name: `InvalidError`, thrown in a `ChildrenSyncError` on every sync until a human removes
 * it) or keep (then the child reads as drifted and is re-applied on each sync; an apply that
 * changes nothing does not change the resourceVersion).
 */
export class WorkloadChildren {
  private readonly client: KubeClient;
  private readonly fieldManager: string;
  private readonly informers = new Map<
    string,
    { rt: ResourceType; informer: Informer<KubeObject> }
  >();

  /** Creates (or shares) the informers of `kinds` and indexes them by owner uid. Sends nothing. */
  constructor(options: WorkloadChildrenOptions) {
    if (!options.fieldManager) throw new TypeError('steward/workload: a fieldManager is required');
    this.client = options.client;
    this.fieldManager = options.fieldManager;
    for (const rt of options.kinds) {
      const informer = options.informers.informerFor<KubeObject>(rt, options.selection ?? {});
      try {
        informer.store.addIndexers({ [OwnerUidIndex]: byOwnerUid });
      } catch {
        // Already indexed: another user of this shared informer added the same index.
      }
      this.informers.set(kindKey(rt), { rt, informer });
    }
  }

  /**
   * Converges the parent's children to `desired`, in one pass, in `desired` order:
   * - a child whose cached object is converged (`isConverged`) costs nothing; one that differs
   *   is applied; one the cache lacks is first looked up on the server (a GET), so that an
   *   object created by someone else since the cache last heard is never taken over;
   * - a create-once child that is missing is created (POST); AlreadyExists keeps what is there;
   *   one that exists is never written;
   * - a name held by an object this parent does not control (another owner, or none) is a
   *   conflict: reported, never adopted or changed;
   * - then children of these kinds that this parent controls but that are no longer desired are
   *   deleted (uid precondition, background propagation; NotFound and a changed uid are fine) —
   *   but only in a sync where every desired child is in place (no failure, no conflict), so a
   *   replacement that could not be written never costs the child it replaces.
   *
   * Waits for the kinds' informers to have synced (the manager starts them). Idempotent; safe to
   * call on every reconcile. A sync right after a write may repeat it while the informer has not
   * yet seen the write (server-side apply makes that harmless). Throws `ChildrenSyncError` when
   * some writes failed (the rest went through), a `TypeError` for a declaration that cannot be
   * right (nothing is sent), and the signal's reason when it aborts.
   */
  async sync(
    parent: KubeObject,
    desired: DesiredChild[],
    options: { signal?: AbortSignal } = {},
  ): Promise<ChildrenSync> {
    const { signal } = options;
    const parentUid = parent.metadata.uid;
    if (!parentUid) throw new TypeError('steward/workload: the parent has no uid');
    const children = desired.map((d) => {
      this.entry(d.resourceType);
      return addressChild(parent, d);
    });
    const wanted = new Set<string>();
    for (const child of children) {
      const address = addressKey(child.rt, child.namespace, child.name);
      if (wanted.has(address)) {
        throw new TypeError(`steward/workload: ${child.key} is desired twice`);
      }
      wanted.add(address);
    }
    await Promise.all([...this.informers.values()].map((e) => e.informer.waitForSync(signal)));

    const result: ChildrenSync = { writes: [], conflicts: [], children: new Map() };
    const failures: ChildFailure[] = [];
    for (const child of children) {
      signal?.throwIfAborted();
      try {
        await this.syncChild(parent, child, result, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        failures.push({ kind: child.rt.kind, name: child.name, error });
      }
    }
    if (failures.length > 0) throw new ChildrenSyncError(failures, result);
    if (result.conflicts.length > 0) return result;

    for (const { rt } of this.informers.values()) {
      for (const obj of planPrune(rt, this.ownedBy(parent, rt), wanted)) {
        signal?.throwIfAborted();
        const name = obj.metadata.name!;
        try {
          await this.client.delete(rt, name, obj.metadata.namespace, {
            preconditions: { uid: obj.metadata.uid! },
            propagationPolicy: 'Background',
            signal,
          });
          result.writes.push({ verb: 'delete', kind: rt.kind, name });
        } catch (error) {
          // Gone already, or replaced by another object of that name (the uid precondition).
          if (isNotFound(error) || isConflict(error)) continue;
          if (signal?.aborted) throw error;
          failures.push({ kind: rt.kind, name, error });
        }
      }
    }
    if (failures.length > 0) throw new ChildrenSyncError(failures, result);
    return result;
  }

  /**
   * The cached child of kind `rt` named `name` in the parent's namespace (for a cluster-scoped
   * parent, name a namespaced child `namespace/name`), when this parent controls it. Reads the
   * cache only. Throws a `TypeError` for a kind not among `kinds`.
   */
  get<T extends KubeObject>(parent: KubeObject, rt: ResourceType, name: string): T | undefined {
    const { informer } = this.entry(rt);
    const namespace = parent.metadata.namespace;
    const key = rt.namespaced && namespace ? `${namespace}/${name}` : name;
    const obj = informer.store.get(key);
    return obj && isControlledBy(obj, parent) ? (obj as T) : undefined;
  }

  /**
   * The cached objects of kind `rt` this parent controls (by the uid of its controller
   * reference). Reads the cache only. Throws a `TypeError` for a kind not among `kinds`.
   */
  ownedBy<T extends KubeObject>(parent: KubeObject, rt: ResourceType): T[] {
    const uid = parent.metadata.uid;
    if (!uid) return [];
    const { informer } = this.entry(rt);
    return informer.store
      .byIndex(OwnerUidIndex, uid)
      .filter((obj) => isControlledBy(obj, parent)) as T[];
  }

  /**
   * For deletionPolicy Retain: removes this parent's ownerReference from the named children (in
   * the parent's namespace) so that the garbage collector leaves them when the parent goes. Each
   * is one JSON patch that `test`s the reference's uid at the index it removes, so nothing else —
   * another owner's reference — is ever removed; when references moved since the object was read,
   * it is read again and retried. Objects that are missing, or carry no reference to this parent,
   * are skipped. Call it before the parent's finalizer is removed (once the parent is gone the
   * collector may act first). Afterwards the objects are no longer children: `sync` reports a
   * desired one as a conflict and never prunes it. Kinds outside `kinds` are read from the server.
   * Answers the `${kind}/${name}` of each object detached. Idempotent.
   */
  async detach(
    parent: KubeObject,
    children: { resourceType: ResourceType; name: string }[],
    options: { signal?: AbortSignal } = {},
  ): Promise<string[]> {
    const uid = parent.metadata.uid;
    if (!uid) throw new TypeError('steward/workload: the parent has no uid');
    const namespace = parent.metadata.namespace;
    const detached: string[] = [];
    for (const { resourceType: rt, name } of children) {
      options.signal?.throwIfAborted();
      const ns = rt.namespaced ? namespace : undefined;
      const cacheKey = ns ? `${ns}/${name}` : name;
      let obj: KubeObject | undefined = this.informers
        .get(kindKey(rt))
        ?.informer.store.get(cacheKey);
      for (let attempt = 0; attempt < detachAttempts; attempt++) {
        obj ??= await this.read(rt, name, ns, options.signal);
        const index = obj?.metadata.ownerReferences?.findIndex((ref) => ref.uid === uid) ?? -1;
        if (!obj || index < 0) break;
        try {
          await this.client.jsonPatch(
            rt,
            name,
            ns,
            [
              { op: 'test', path: `/metadata/ownerReferences/${index}/uid`, value: uid },
              { op: 'remove', path: `/metadata/ownerReferences/${index}` },
            ],
            { signal: options.signal },
          );
          detached.push(childKey(rt.kind, name));
          break;
        } catch (error) {
          if (isNotFound(error)) break;
          // A failed `test` (422): the references moved since `obj` was read. Read again.
          if (!isInvalid(error) || attempt === detachAttempts - 1) throw error;
          obj = undefined;
        }
      }
    }
    return detached;
  }

  private async syncChild(
    parent: KubeObject,
    child: AddressedChild,
    result: ChildrenSync,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const { rt, name, namespace } = child;
    const { informer } = this.entry(rt);
    const cached = informer.store.get(namespace ? `${namespace}/${name}` : name);
    let plan = planChild(parent, child, cached);
    if (!cached && plan.action === 'apply') {
      const fresh = await this.read(rt, name, namespace, signal);
      if (fresh) plan = planChild(parent, child, fresh);
    }
    switch (plan.action) {
      case 'keep':
        result.children.set(child.key, plan.object);
        return;
      case 'conflict':
        result.conflicts.push(plan.conflict);
        return;
      case 'apply': {
        const applied = await this.client.apply(rt, plan.configuration, {
          fieldManager: this.fieldManager,
          force: true,
          signal,
        });
        result.writes.push({ verb: 'apply', kind: rt.kind, name });
        result.children.set(child.key, applied);
        return;
      }
      case 'create': {
        try {
          const created = await this.client.create(rt, child.build() as KubeObject, { signal });
          result.writes.push({ verb: 'create', kind: rt.kind, name });
          result.children.set(child.key, created);
        } catch (error) {
          if (!isAlreadyExists(error)) throw error;
          // The cache had not seen it yet: keep what is there — if it is ours.
          const existing = await this.client.get(rt, name, namespace, { signal });
          const again = planChild(parent, child, existing);
          if (again.action === 'conflict') result.conflicts.push(again.conflict);
          else result.children.set(child.key, existing);
        }
        return;
      }
    }
  }

  private async read(
    rt: ResourceType,
    name: string,
    namespace: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<KubeObject | undefined> {
    try {
      return await this.client.get(rt, name, namespace, { signal });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  private entry(rt: ResourceType): { rt: ResourceType; informer: Informer<KubeObject> } {
    const entry = this.informers.get(kindKey(rt));
    if (!entry) {
      throw new TypeError(
        `steward/workload: ${rt.kind} (${rt.group || 'core'}) is not among the kinds given to WorkloadChildren`,
      );
    }
    return entry;
  }
}

function kindKey(rt: ResourceType): string {
  return `${rt.group}/${rt.version}/${rt.plural}`;
}
