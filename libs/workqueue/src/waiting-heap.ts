/** An item waiting in a delaying queue, and when it becomes ready. */
export interface WaitingEntry {
  readonly item: string;
  readyAt: number;
  /** The priority it is added with once ready: the highest any of its schedules asked for. */
  priority: number;
  /** Insertion order: breaks ties between equal ready times, so they leave first-in first-out. */
  readonly seq: number;
  /** Position in the heap array. */
  index: number;
}

/**
 * A binary min-heap of waiting items by ready time, with at most one entry per item (client-go's
 * `waitForPriorityQueue` plus its `waitingEntryByData` map). Internal to the delaying queue.
 */
export class WaitingHeap {
  private readonly heap: WaitingEntry[] = [];
  private readonly byItem = new Map<string, WaitingEntry>();
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  peek(): WaitingEntry | undefined {
    return this.heap[0];
  }

  /**
   * Schedules `item` at `readyAt`. If it is already scheduled, the earlier of the two times wins,
   * and the higher of the two priorities.
   */
  schedule(item: string, readyAt: number, priority = 0): void {
    const existing = this.byItem.get(item);
    if (existing !== undefined) {
      if (priority > existing.priority) existing.priority = priority;
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.up(existing.index);
      }
      return;
    }
    const entry: WaitingEntry = {
      item,
      readyAt,
      priority,
      seq: this.seq++,
      index: this.heap.length,
    };
    this.heap.push(entry);
    this.byItem.set(item, entry);
    this.up(entry.index);
  }

  /** Removes and returns the entry that is ready first. */
  pop(): WaitingEntry | undefined {
    const top = this.heap[0];
    if (top === undefined) return undefined;
    const last = this.heap.pop() as WaitingEntry;
    if (last !== top) {
      this.place(last, 0);
      this.down(0);
    }
    this.byItem.delete(top.item);
    return top;
  }

  clear(): void {
    this.heap.length = 0;
    this.byItem.clear();
  }

  private before(a: WaitingEntry, b: WaitingEntry): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private place(entry: WaitingEntry, index: number): void {
    this.heap[index] = entry;
    entry.index = index;
  }

  private up(index: number): void {
    const entry = this.heap[index] as WaitingEntry;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = this.heap[parentIndex] as WaitingEntry;
      if (!this.before(entry, parent)) break;
      this.place(parent, index);
      index = parentIndex;
    }
    this.place(entry, index);
  }

  private down(index: number): void {
    const entry = this.heap[index] as WaitingEntry;
    const n = this.heap.length;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (
        right < n &&
        this.before(this.heap[right] as WaitingEntry, this.heap[left] as WaitingEntry)
      )
        child = right;
      const childEntry = this.heap[child] as WaitingEntry;
      if (!this.before(childEntry, entry)) break;
      this.place(childEntry, index);
      index = child;
    }
    this.place(entry, index);
  }
}
