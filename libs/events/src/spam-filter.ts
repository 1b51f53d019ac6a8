export interface SpamFilterOptions {
  /** New Events an object may cause at once. Default 25 (client-go's). */
  burst?: number;
  /** One more allowed per this many milliseconds. Default 300 000 (5 min, client-go's). */
  refillIntervalMs?: number;
  /** Objects tracked at once; the least recently seen is forgotten first. Default 4096. */
  maxObjects?: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/**
 * client-go's `EventSourceObjectSpamFilter`: a token bucket per object (the recorder is one
 * source), so one object in a crash loop cannot flood the API server with Events. Forgetting an
 * object (beyond `maxObjects`) gives it a full bucket again, as client-go's LRU does.
 */
export class SpamFilter {
  private readonly burst: number;
  private readonly refillIntervalMs: number;
  private readonly maxObjects: number;
  private readonly buckets = new Map<string, Bucket>();

  constructor(options: SpamFilterOptions = {}) {
    this.burst = Math.max(1, options.burst ?? 25);
    this.refillIntervalMs = Math.max(1, options.refillIntervalMs ?? 300_000);
    this.maxObjects = Math.max(1, options.maxObjects ?? 4096);
  }

  /** Takes a token from `key`'s bucket at time `now` (ms): false when there is none. */
  allow(key: string, now: number): boolean {
    let bucket = this.buckets.get(key);
    if (bucket) {
      this.buckets.delete(key);
      const refill = Math.max(0, now - bucket.updatedAt) / this.refillIntervalMs;
      bucket = { tokens: Math.min(this.burst, bucket.tokens + refill), updatedAt: now };
    } else {
      bucket = { tokens: this.burst, updatedAt: now };
    }
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxObjects) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
