/**
 * Histogram bucket boundaries, in seconds, copied in value (not in code) from the Go libraries whose
 * dashboards Steward keeps working.
 */

/**
 * `n` boundaries starting at `start`, each `factor` times the previous one. Computed by repeated
 * multiplication, exactly as Prometheus' Go client `ExponentialBuckets` does, so the float values
 * (and therefore the `le` series after Prometheus normalises them) are bit-identical to a Go
 * controller's: e.g. the fourth workqueue boundary is 9.999999999999999e-6, not 1e-5.
 */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  if (count < 1) throw new RangeError('steward: exponentialBuckets needs a positive count');
  if (start <= 0) throw new RangeError('steward: exponentialBuckets needs a positive start');
  if (factor <= 1) throw new RangeError('steward: exponentialBuckets needs a factor above 1');
  const buckets: number[] = [];
  let bound = start;
  for (let i = 0; i < count; i++) {
    buckets.push(bound);
    bound *= factor;
  }
  return buckets;
}

/** controller-runtime `controller_runtime_reconcile_time_seconds`: 5 ms … 60 s. */
export const RECONCILE_TIME_BUCKETS: readonly number[] = Object.freeze([
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
]);

/**
 * client-go / controller-runtime workqueue latency and work duration: `ExponentialBuckets(10e-9, 10,
 * 12)`, i.e. 10 ns … 1000 s.
 */
export const WORKQUEUE_DURATION_BUCKETS: readonly number[] = Object.freeze(
  exponentialBuckets(10e-9, 10, 12),
);

/**
 * Steward's `steward_time_to_ready_seconds`: from a Secret-and-Service object that is ready in a
 * second to a cloud database that takes most of an hour.
 */
export const TIME_TO_READY_BUCKETS: readonly number[] = Object.freeze([
  1, 2, 5, 10, 15, 30, 60, 120, 180, 300, 600, 900, 1200, 1800, 2700, 3600,
]);
