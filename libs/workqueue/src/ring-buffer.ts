/**
 * A FIFO of values on a growable power-of-two ring: `push` and `shift` are O(1) amortised, with no
 * `Array.prototype.shift` (which is O(n) on large arrays). Internal to the work queue.
 */
export class RingBuffer<T> {
  private buffer: (T | undefined)[];
  private head = 0;
  private size = 0;
  private mask: number;

  constructor(initialCapacity = 16) {
    let capacity = 2;
    while (capacity < initialCapacity) capacity *= 2;
    this.buffer = new Array<T | undefined>(capacity);
    this.mask = capacity - 1;
  }

  get length(): number {
    return this.size;
  }

  push(value: T): void {
    if (this.size === this.buffer.length) this.grow();
    this.buffer[(this.head + this.size) & this.mask] = value;
    this.size++;
  }

  /** Removes and returns the oldest value, or `undefined` when empty. */
  shift(): T | undefined {
    if (this.size === 0) return undefined;
    const value = this.buffer[this.head];
    // Drop the reference so a long-lived queue does not pin old items.
    this.buffer[this.head] = undefined;
    this.head = (this.head + 1) & this.mask;
    this.size--;
    return value;
  }

  /** Removes every value, oldest first, handing each to `visit`. */
  drain(visit: (value: T) => void): void {
    while (this.size > 0) visit(this.shift() as T);
  }

  private grow(): void {
    const old = this.buffer;
    const next = new Array<T | undefined>(old.length * 2);
    for (let i = 0; i < this.size; i++) next[i] = old[(this.head + i) & this.mask];
    this.buffer = next;
    this.head = 0;
    this.mask = next.length - 1;
  }
}
