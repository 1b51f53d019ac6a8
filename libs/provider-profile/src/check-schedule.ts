import { type CredentialsCheckResult } from './credentials-check.js';

/** The part of a profile the schedule looks at. */
interface Checked {
  metadata: { uid?: string; generation?: number };
}

interface Entry {
  uid: string | undefined;
  generation: number | undefined;
  at: number;
  result: CredentialsCheckResult;
}

/**
 * When a profile's credentials are due for a check, and what the last settled check found. A
 * result is reused by every reconcile of the same object (uid) at the same generation until
 * `intervalMs` has passed since it was obtained: usage changes and requeues cost no provider call.
 * Transient failures are never remembered, so the retry after them checks again. In memory: a
 * restarted process checks every profile once more, which is what a new leader should do anyway.
 */
export class CredentialsCheckSchedule {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly intervalMs: number) {
    if (!(intervalMs > 0)) throw new RangeError('recheck interval must be a positive number');
  }

  /** The remembered result for `key`, unless a check is due (new object, new generation, stale). */
  fresh(key: string, profile: Checked, now: number): CredentialsCheckResult | undefined {
    const entry = this.current(key, profile);
    return entry && now - entry.at < this.intervalMs ? entry.result : undefined;
  }

  /** Remembers `result`, obtained at `now`, unless it is transient. */
  record(key: string, profile: Checked, result: CredentialsCheckResult, now: number): void {
    if (!result.ok && result.transient) {
      this.entries.delete(key);
      return;
    }
    this.entries.set(key, {
      uid: profile.metadata.uid,
      generation: profile.metadata.generation,
      at: now,
      result,
    });
  }

  /** Milliseconds until the next check of `key` is due (at least 1; `intervalMs` if unknown). */
  dueIn(key: string, profile: Checked, now: number): number {
    const entry = this.current(key, profile);
    if (!entry) return this.intervalMs;
    return Math.max(1, entry.at + this.intervalMs - now);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }

  private current(key: string, profile: Checked): Entry | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.uid !== profile.metadata.uid || entry.generation !== profile.metadata.generation) {
      return undefined;
    }
    return entry;
  }
}
