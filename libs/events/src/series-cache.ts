import { type RecordedEvent } from './event-recorder.js';

/**
 * One Event and the repeats folded into it. `count` and `lastObservedAt` grow with every repeat;
 * `writtenCount` is what the API server has been told so far.
 */
export interface EventSeries {
  /** The aggregation key: regarding object, type, reason, note and action. */
  readonly key: string;
  /** What was recorded, with reason, note and action as they are written. */
  readonly recorded: RecordedEvent;
  readonly namespace: string;
  /** The first observation, epoch ms: the Event's `eventTime`. */
  readonly firstObservedAt: number;
  /** The Event's current name; a new one when the Event has to be created again. */
  name: string;
  count: number;
  lastObservedAt: number;
  /** `pending`: the create has not succeeded yet; `created`: the Event exists (as far as we know). */
  state: 'pending' | 'created';
  writtenCount: number;
  /** Epoch ms of the last successful write of this Event. */
  lastWriteAt: number;
  /** A series update is waiting in the write queue. */
  queued: boolean;
  /** A series update is scheduled for later. */
  timer: NodeJS.Timeout | undefined;
}

/**
 * The series still open for aggregation: a series closes `windowMs` after its last observation
 * (client-go: 6 min), and the least recently observed is forgotten first beyond `maxEntries`.
 * Forgetting a series never loses a write already scheduled: the write holds the series itself.
 */
export class SeriesCache {
  private readonly entries = new Map<string, EventSeries>();

  constructor(
    private readonly windowMs: number,
    private readonly maxEntries: number,
  ) {}

  /** The open series for `key` at `now`, moved to most recently used; a closed one is forgotten. */
  get(key: string, now: number): EventSeries | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (now - entry.lastObservedAt > this.windowMs) return undefined;
    this.entries.set(key, entry);
    return entry;
  }

  set(entry: EventSeries): void {
    this.entries.delete(entry.key);
    this.entries.set(entry.key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  /** Forgets `entry`, unless a newer series has taken its key. */
  delete(entry: EventSeries): void {
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  get size(): number {
    return this.entries.size;
  }
}
