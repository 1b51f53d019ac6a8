import { RingBuffer } from './ring-buffer.js';

/**
 * The items waiting to be handed out, in hand-out order: the one part of a work queue that differs
 * between a FIFO queue and a fair one. Internal to the work queue, which guarantees that `push` is
 * only called for an item not in the line and `raise` only for one that is.
 */
export interface WaitingLine {
  /** Number of items in the line. */
  readonly length: number;
  /** Whether priorities order the line; when false, `raise` is a no-op and priorities are 0. */
  readonly prioritized: boolean;
  /** Puts an item that is not in the line into it at `priority`. */
  push(item: string, priority: number): void;
  /** Moves an item in the line up to `priority` if that is higher than its own; never down. */
  raise(item: string, priority: number): void;
  /** Takes the next item out, or `undefined` when empty; its priority is then `shiftedPriority`. */
  shift(): string | undefined;
  /** The priority of the item `shift` returned last. */
  readonly shiftedPriority: number;
}

/** client-go's order: first in, first out, priorities ignored. */
export class FifoLine implements WaitingLine {
  readonly prioritized = false;
  readonly shiftedPriority = 0;
  private readonly items = new RingBuffer<string>(64);

  get length(): number {
    return this.items.length;
  }

  push(item: string): void {
    this.items.push(item);
  }

  raise(): void {}

  shift(): string | undefined {
    return this.items.shift();
  }
}
