/** The identity of a cached object: `namespace/name`, or `name` for cluster-scoped objects. */
export type ObjectKey = string;

/** The part of an object the cache needs. */
export interface Keyed {
  metadata?: {
    name?: string;
    namespace?: string;
    resourceVersion?: string;
    uid?: string;
  };
}

/** Returns the values an object is indexed under (e.g. its owners' uids, a label's value). */
export type IndexFunc<T> = (obj: T) => readonly string[];

export function objectKey(obj: Keyed): ObjectKey {
  const name = obj.metadata?.name;
  if (!name) throw new Error('steward: cannot cache an object without metadata.name');
  const namespace = obj.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key back into namespace (absent for cluster-scoped) and name. */
export function splitKey(key: ObjectKey): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * A thread-unsafe (single event loop) keyed cache with secondary indexes, like client-go's
 * `cache.Indexer`. The reflector is its only writer; readers get the stored objects themselves and
 * must treat them as immutable (copy before changing).
 */
export class Store<T extends Keyed> {
  private readonly items = new Map<ObjectKey, T>();
  private readonly indexers = new Map<string, IndexFunc<T>>();
  /** index name → indexed value → keys */
  private readonly indices = new Map<string, Map<string, Set<ObjectKey>>>();

  /** Adds index functions. Existing objects are indexed at once. Names must be new. */
  addIndexers(indexers: Record<string, IndexFunc<T>>): void {
    for (const [name, fn] of Object.entries(indexers)) {
      if (this.indexers.has(name)) throw new Error(`steward: indexer ${name} exists already`);
      this.indexers.set(name, fn);
      this.indices.set(name, new Map());
      for (const [key, obj] of this.items) this.indexOne(name, fn, key, obj);
    }
  }

  get(key: ObjectKey): T | undefined {
    return this.items.get(key);
  }

  has(key: ObjectKey): boolean {
    return this.items.has(key);
  }

  get size(): number {
    return this.items.size;
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): ObjectKey[] {
    return [...this.items.keys()];
  }

  /** Objects whose index function `indexName` returned `value`. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.indices.get(indexName);
    if (!index) throw new Error(`steward: no indexer named ${indexName}`);
    const keys = index.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.items.get(k)!);
  }

  /** Sets the object under its key; returns the object it replaced, if any. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    this.items.set(key, obj);
    for (const [name, fn] of this.indexers) this.indexOne(name, fn, key, obj);
    return old;
  }

  /** Removes the object under `key`; returns it, if it was there. */
  remove(key: ObjectKey): T | undefined {
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    return old;
  }

  private indexOne(name: string, fn: IndexFunc<T>, key: ObjectKey, obj: T): void {
    const index = this.indices.get(name)!;
    for (const value of new Set(fn(obj))) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: ObjectKey, obj: T): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of new Set(fn(obj))) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}

/** Index function: the uids of an object's owners. */
export const byOwnerUid: IndexFunc<
  Keyed & { metadata?: { ownerReferences?: { uid: string }[] } }
> = (obj) => (obj.metadata?.ownerReferences ?? []).map((o) => o.uid);

/** Index function: the object's namespace (cluster-scoped objects are indexed under ''). */
export const byNamespace: IndexFunc<Keyed> = (obj) => [obj.metadata?.namespace ?? ''];
