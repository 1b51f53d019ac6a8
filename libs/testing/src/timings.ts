/**
 * A benchmark's timings per measure, reported as BENCHMARKS.md gives them: the median of the runs
 * and their range, `1.2 s (1.0–1.5)`. Figures only — a benchmark never passes or fails on time.
 */
export class Timings {
  private readonly samples = new Map<string, number[]>();

  /** Records one run's `seconds` for `measure`; answers them. */
  add(measure: string, seconds: number): number {
    const samples = this.samples.get(measure) ?? [];
    samples.push(seconds);
    this.samples.set(measure, samples);
    return seconds;
  }

  /** The median (the upper one of an even count) and the min–max of `measure`'s runs. */
  figure(measure: string): string {
    const xs = this.samples.get(measure);
    if (!xs?.length) throw new Error(`steward: no timings of ${measure}`);
    const median = [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return `${median.toFixed(1)} s (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  }
}
