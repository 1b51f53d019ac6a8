/** When a `Batcher` sends, and what must be unique within one request. */
export interface BatcherOptions<I> {
  /** The most calls in one request. Default 100; 1 sends every call on its own, at once. */
  maxItems?: number;
  /** The longest a call waits for others. Default 10 ms. */
  maxWaitMs?: number;
  /**
   * Also send at once (next `setImmediate`) when nothing is in flight, so that a lone call pays no
   * window. Default false: fewer, fuller requests for a few milliseconds of latency (the KafkaTopic
   * benchmark measured both; see BENCHMARKS.md).
   */
  sendWhenIdle?: boolean;
  /** What must be unique within a request (e.g. the topic). Default: nothing. */
  key?(item: I): string;
}

/** One item's outcome, in the order of the items sent. */
export type BatchResult<R> = { ok: true; value: R } | { ok: false; error: unknown };

/** Sends one request for `items` (never empty); the results are in the same order. */
export type BatchSend<I, R> = (items: readonly I[]) => Promise<readonly BatchResult<R>[]>;

interface Pending<I, R> {
  item: I;
  resolve(value: R): void;
  reject(error: unknown): void;
}

interface OpenBatch<I, R> {
  calls: Pending<I, R>[];
  keys: Set<string>;
  timer: ReturnType<typeof setTimeout> | undefined;
  idle: ReturnType<typeof setImmediate> | undefined;
}

/**
 * A coalescing batcher: single-item calls that arrive close together go out as one request, and
 * each caller gets back its own item's result.
 *
 * When a batch is sent — the first of:
 * - it holds `maxItems` calls;
 * - `maxWaitMs` have passed since its first call;
 * - with `sendWhenIdle`, nothing of this batcher is in flight: a call on an idle batcher waits
 *   only for the calls made in the same turn of the event loop (one `setImmediate`), and calls made
 *   while a request is in flight wait for it to answer (or for `maxWaitMs`) — so a lone call pays
 *   no window and a burst is gathered while the previous request is under way, as Nagle's
 *   algorithm does;
 * - a call whose `key` is already in the open batch arrives (that batch goes, the call opens the
 *   next): a request never holds one key twice (Kafka refuses duplicate topics in CreateTopics).
 *
 * Guarantees: calls of one batch are sent in the order they were made, and their results are
 * matched by position; a failure `send` reports for one item rejects only that caller; `send`
 * throwing (or answering with too few results) rejects every caller of the batch — no caller is
 * ever left pending. Batches are independent: one failing does not affect the next.
 */
export class Batcher<I, R> {
  private open: OpenBatch<I, R> | undefined;
  private inFlight = 0;
  private readonly maxItems: number;
  private readonly maxWaitMs: number;
  private readonly sendWhenIdle: boolean;

  constructor(
    private readonly send: BatchSend<I, R>,
    private readonly options: BatcherOptions<I> = {},
  ) {
    this.maxItems = Math.max(1, options.maxItems ?? 100);
    this.maxWaitMs = Math.max(0, options.maxWaitMs ?? 10);
    this.sendWhenIdle = options.sendWhenIdle ?? false;
  }

  /** Requests being answered now. */
  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Calls waiting for their batch to be sent. */
  get waiting(): number {
    return this.open?.calls.length ?? 0;
  }

  /** The result of `item` in whichever request carries it. */
  call(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const key = this.options.key?.(item);
      if (this.open && key !== undefined && this.open.keys.has(key)) this.dispatch(this.open);
      const batch = (this.open ??= this.openBatch());
      batch.calls.push({ item, resolve, reject });
      if (key !== undefined) batch.keys.add(key);
      if (batch.calls.length >= this.maxItems) this.dispatch(batch);
    });
  }

  /** Sends the open batch now, if there is one. */
  flush(): void {
    if (this.open) this.dispatch(this.open);
  }

  private openBatch(): OpenBatch<I, R> {
    const batch: OpenBatch<I, R> = {
      calls: [],
      keys: new Set(),
      timer: undefined,
      idle: undefined,
    };
    if (this.maxItems > 1) {
      batch.timer = setTimeout(() => this.dispatch(batch), this.maxWaitMs);
      if (this.sendWhenIdle && this.inFlight === 0) this.scheduleIdleSend(batch);
    }
    return batch;
  }

  private scheduleIdleSend(batch: OpenBatch<I, R>): void {
    batch.idle ??= setImmediate(() => {
      batch.idle = undefined;
      if (this.inFlight === 0) this.dispatch(batch);
    });
  }

  private dispatch(batch: OpenBatch<I, R>): void {
    if (this.open === batch) this.open = undefined;
    if (batch.timer) clearTimeout(batch.timer);
    if (batch.idle) clearImmediate(batch.idle);
    batch.timer = batch.idle = undefined;
    const calls = batch.calls.splice(0);
    if (calls.length === 0) return;
    this.inFlight++;
    void this.run(calls).finally(() => {
      this.inFlight--;
      if (this.open && this.sendWhenIdle && this.inFlight === 0) this.scheduleIdleSend(this.open);
    });
  }

  private async run(calls: Pending<I, R>[]): Promise<void> {
    let results: readonly BatchResult<R>[];
    try {
      results = await this.send(calls.map((c) => c.item));
    } catch (error) {
      for (const c of calls) c.reject(error);
      return;
    }
    calls.forEach((c, i) => {
      const result = results[i];
      if (!result)
        c.reject(new Error(`steward: a batched request answered no result for item ${i}`));
      else if (result.ok) c.resolve(result.value);
      else c.reject(result.error);
    });
  }
}
