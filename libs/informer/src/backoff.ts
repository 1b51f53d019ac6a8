/**
 * Exponential backoff with jitter, as client-go's reflector uses: 800 ms doubling to 30 s, each
 * delay stretched by a random factor in [1, 1 + jitter). `reset()` after a success.
 */
export class Backoff {
  private attempt = 0;

  constructor(
    private readonly initialMs = 800,
    private readonly maxMs = 30_000,
    private readonly jitter = 1.0,
    private readonly random: () => number = Math.random,
  ) {}

  /** The next delay, in milliseconds. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** this.attempt);
    if (base < this.maxMs) this.attempt++;
    return Math.min(this.maxMs, base * (1 + this.jitter * this.random()));
  }

  reset(): void {
    this.attempt = 0;
  }
}
