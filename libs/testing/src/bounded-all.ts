/**
 * Runs `fn(0) … fn(count - 1)` with at most `concurrency` calls in flight (each lane takes the next
 * index when its call settles); resolves when all have resolved, rejects with the first failure.
 * What the benchmarks use to create thousands of objects the way a GitOps tool applies them.
 */
export async function boundedAll(
  count: number,
  concurrency: number,
  fn: (i: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
