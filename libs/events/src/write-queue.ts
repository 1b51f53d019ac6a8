/**
 * A bounded FIFO of writes with a single worker: `run` is awaited for one item at a time, so
 * writes about one Event keep their order and the recorder never has more than one request in
 * flight. `run` must not throw (the recorder reports failures itself).
 */
export class WriteQueue<T> {
  private readonly items: T[] = [];
  private readonly delayed = new Map<NodeJS.Timeout, T>();
  private running = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly capacity: number,
    private readonly run: (item: T) => Promise<void>,
  ) {}

  /** Items waiting, delayed ones included (the one being written is not counted). */
  get length(): number {
    return this.items.length + this.delayed.size;
  }

  /** Appends `item`; false (and nothing queued) when the queue is full. */
  push(item: T): boolean {
    if (this.length >= this.capacity) return false;
    this.items.push(item);
    this.pump();
    return true;
  }

  /**
   * Appends `item` after `delayMs` (a retry); false when the queue is full. The item counts
   * against the capacity while it waits, and `idle()` waits for it.
   */
  pushAfter(item: T, delayMs: number): boolean {
    if (this.length >= this.capacity) return false;
    const timer = setTimeout(() => {
      this.delayed.delete(timer);
      this.items.push(item);
      this.pump();
    }, delayMs);
    timer.unref();
    this.delayed.set(timer, item);
    return true;
  }

  /** Moves every delayed item to the end of the queue now. */
  expedite(): void {
    for (const [timer, item] of this.delayed) {
      clearTimeout(timer);
      this.items.push(item);
    }
    this.delayed.clear();
    this.pump();
  }

  /** Resolves once nothing is waiting, delayed or being written. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return !this.running && this.items.length === 0 && this.delayed.size === 0;
  }

  /**
   * Starts the worker in a microtask, so that the calls a caller makes in one synchronous stretch
   * are all queued (and repeats folded) before the first write is sent.
   */
  private pump(): void {
    if (this.running) return;
    this.running = true;
    queueMicrotask(() => void this.drain());
  }

  private async drain(): Promise<void> {
    for (let item = this.items.shift(); item !== undefined; item = this.items.shift()) {
      try {
        await this.run(item);
      } catch {
        // `run` reports its own failures; the worker must survive anything.
      }
    }
    this.running = false;
    if (this.isIdle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
