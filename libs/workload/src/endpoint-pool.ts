import { createHmac, randomBytes } from 'node:crypto';

/** Keys the password hash of entry keys, so a key reveals nothing about a password. */
const keySecret = randomBytes(32);

/** What the pool needs of an entry; the rest (its connection, a request queue) is the admin's. */
export interface EndpointEntry {
  /** The address, `#` and a keyed hash of the password. */
  readonly key: string;
  /** Where the entry connects to: an entry for another password replaces this one. */
  readonly address: string;
  /** `Date.now()` of the entry's last request. */
  lastUsed: number;
}

export interface EndpointPoolOptions<E extends EndpointEntry> {
  /** An entry unused for this long is dropped at the next request. */
  idleTimeoutMs: number;
  /**
   * Ends the connection `entry` holds, if any; called by `drop`, the entry already out of the
   * pool. May be called more than once for an entry: it must be idempotent.
   */
  release(entry: E): void;
}

/**
 * The connections a server admin (PostgreSQL, Redis: the protocol is the admin's) keeps to the
 * servers a controller polls: one entry per address and password, so a changed password replaces
 * the connection, and none left behind by pods that went away (an entry idle for `idleTimeoutMs`
 * is dropped at the next request). The pool also keeps the ends of the connections in flight, so
 * an admin's `close()` resolves only once they are all over.
 */
export class EndpointPool<E extends EndpointEntry> {
  private readonly entries = new Map<string, E>();
  private readonly ending = new Set<Promise<void>>();

  constructor(private readonly options: EndpointPoolOptions<E>) {}

  /**
   * The entry of `address` for `password`, made by `create` when the pool has none. Called at
   * every request, before it runs: first drops the entries of `address` for another password and
   * every entry idle for longer than `idleTimeoutMs`, then marks the entry used now.
   */
  entry(address: string, password: string, create: (key: string, now: number) => E): E {
    const now = Date.now();
    const hash = createHmac('sha256', keySecret).update(password).digest('hex');
    const key = `${address}#${hash.slice(0, 16)}`;
    for (const other of this.entries.values()) {
      if (
        other.key !== key &&
        (other.address === address || now - other.lastUsed > this.options.idleTimeoutMs)
      )
        this.drop(other);
    }
    let entry = this.entries.get(key);
    if (!entry) {
      entry = create(key, now);
      this.entries.set(key, entry);
    }
    entry.lastUsed = now;
    return entry;
  }

  /** Whether `entry` is still the pool's: neither replaced by another password nor swept as idle. */
  holds(entry: E): boolean {
    return this.entries.get(entry.key) === entry;
  }

  /** Takes `entry` out of the pool (when it is still in it) and releases its connection. */
  drop(entry: E): void {
    if (this.holds(entry)) this.entries.delete(entry.key);
    this.options.release(entry);
  }

  /** Every entry the pool holds, in the order they were made. */
  all(): E[] {
    return [...this.entries.values()];
  }

  /** Drops every entry (an admin's `close()`). */
  dropAll(): void {
    for (const entry of this.all()) this.drop(entry);
  }

  /** Keeps the end of a connection (a promise that resolves by itself, never rejects) until it resolves. */
  track(ended: Promise<void>): void {
    this.ending.add(ended);
    void ended.then(() => this.ending.delete(ended));
  }

  /** Resolves once every connection end tracked so far has. */
  async ended(): Promise<void> {
    await Promise.all([...this.ending]);
  }
}
