import { type WaitingLine } from './waiting-line.js';

/** One waiting item. */
interface Entry {
  readonly item: string;
  priority: number;
  /** When the item joined the line; kept when it is raised, so it keeps its age. */
  readonly seq: number;
  bucket: Bucket;
  /** Position in `bucket.heap`. */
  index: number;
}

/** One tenant's waiting items at one priority: a min-heap by `seq` (oldest first). */
interface Bucket {
  readonly tenant: string;
  readonly level: Level;
  readonly heap: Entry[];
  /** Neighbours in the level's round-robin; `undefined` at the ends. */
  prev: Bucket | undefined;
  next: Bucket | undefined;
}

/** The tenants with waiting items at one priority, in round-robin order (`head` is served next). */
interface Level {
  readonly priority: number;
  readonly buckets: Map<string, Bucket>;
  head: Bucket | undefined;
  tail: Bucket | undefined;
  /** Items waiting at this priority. */
  size: number;
}

/**
 * The order of a fair queue. The highest priority with waiting items is served first; within it,
 * the tenants that have items at that priority take turns (round-robin, one item per turn, a tenant
 * joining at the back of the turn order); within a tenant, the item that joined the line first
 * goes first. A raised item moves to its new priority with its age, so it goes ahead of younger
 * items of its tenant there. Every operation is O(log n) in the tenant's items at that priority,
 * plus O(number of distinct priorities) when a priority gains or loses its last item.
 */
export class FairLine implements WaitingLine {
  readonly prioritized = true;
  shiftedPriority = 0;
  private readonly entries = new Map<string, Entry>();
  private readonly levels = new Map<number, Level>();
  /** The priorities of `levels` (all of which have items), highest first. */
  private readonly order: number[] = [];
  private seq = 0;

  constructor(private readonly tenantOf: (item: string) => string) {}

  get length(): number {
    return this.entries.size;
  }

  push(item: string, priority: number): void {
    const bucket = this.bucketFor(this.tenantOf(item), priority);
    const entry: Entry = { item, priority, seq: this.seq++, bucket, index: 0 };
    this.entries.set(item, entry);
    this.insert(entry);
  }

  raise(item: string, priority: number): void {
    const entry = this.entries.get(item);
    if (entry === undefined || !(priority > entry.priority)) return;
    const tenant = entry.bucket.tenant;
    this.remove(entry);
    entry.priority = priority;
    entry.bucket = this.bucketFor(tenant, priority);
    this.insert(entry);
  }

  shift(): string | undefined {
    const priority = this.order[0];
    if (priority === undefined) return undefined;
    const level = this.levels.get(priority) as Level;
    const bucket = level.head as Bucket;
    const entry = bucket.heap[0] as Entry;
    // The tenant's turn is over: it goes to the back (or leaves, if this was its last item).
    this.remove(entry);
    if (bucket.heap.length > 0 && bucket !== level.tail) {
      this.unlink(bucket);
      this.append(bucket);
    }
    this.entries.delete(entry.item);
    this.shiftedPriority = entry.priority;
    return entry.item;
  }

  /** The tenant's bucket at `priority`, created (at the back of the turn order) if needed. */
  private bucketFor(tenant: string, priority: number): Bucket {
    let level = this.levels.get(priority);
    if (level === undefined) {
      level = { priority, buckets: new Map(), head: undefined, tail: undefined, size: 0 };
      this.levels.set(priority, level);
      let at = 0;
      while (at < this.order.length && (this.order[at] as number) > priority) at++;
      this.order.splice(at, 0, priority);
    }
    let bucket = level.buckets.get(tenant);
    if (bucket === undefined) {
      bucket = { tenant, level, heap: [], prev: undefined, next: undefined };
      level.buckets.set(tenant, bucket);
      this.append(bucket);
    }
    return bucket;
  }

  private insert(entry: Entry): void {
    const heap = entry.bucket.heap;
    entry.index = heap.length;
    heap.push(entry);
    this.up(heap, entry.index);
    entry.bucket.level.size++;
  }

  /** Takes `entry` out of its bucket; drops the bucket, and its level, once empty. */
  private remove(entry: Entry): void {
    const { bucket } = entry;
    const { heap, level } = bucket;
    const last = heap.pop() as Entry;
    if (last !== entry) {
      heap[entry.index] = last;
      last.index = entry.index;
      this.down(heap, last.index);
      this.up(heap, last.index);
    }
    level.size--;
    if (heap.length > 0) return;
    this.unlink(bucket);
    level.buckets.delete(bucket.tenant);
    if (level.size > 0) return;
    this.levels.delete(level.priority);
    this.order.splice(this.order.indexOf(level.priority), 1);
  }

  private append(bucket: Bucket): void {
    const level = bucket.level;
    bucket.prev = level.tail;
    bucket.next = undefined;
    if (level.tail === undefined) level.head = bucket;
    else level.tail.next = bucket;
    level.tail = bucket;
  }

  private unlink(bucket: Bucket): void {
    const level = bucket.level;
    if (bucket.prev === undefined) level.head = bucket.next;
    else bucket.prev.next = bucket.next;
    if (bucket.next === undefined) level.tail = bucket.prev;
    else bucket.next.prev = bucket.prev;
    bucket.prev = bucket.next = undefined;
  }

  private up(heap: Entry[], index: number): void {
    const entry = heap[index] as Entry;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex] as Entry;
      if (parent.seq < entry.seq) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = entry;
    entry.index = index;
  }

  private down(heap: Entry[], index: number): void {
    const entry = heap[index] as Entry;
    const n = heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && (heap[right] as Entry).seq < (heap[left] as Entry).seq) child = right;
      const childEntry = heap[child] as Entry;
      if (entry.seq < childEntry.seq) break;
      heap[index] = childEntry;
      childEntry.index = index;
      index = child;
    }
    heap[index] = entry;
    entry.index = index;
  }
}

/**
 * The tenant of a `namespace/name` key: its namespace. A key without a slash (a cluster-scoped
 * object) belongs to the tenant `''`, which all such keys share.
 */
export function namespaceOf(item: string): string {
  const slash = item.indexOf('/');
  return slash < 0 ? '' : item.slice(0, slash);
}
