import { describe, expect, it } from 'vitest';
import { FakeClock } from './fake-clock.js';
import { newDelayingQueue } from './delaying-queue.js';
import { noopMetricsProvider, type WorkqueueMetricsProvider } from './metrics.js';
import { newWorkQueue } from './queue.js';
import { rateLimiterFunc } from './rate-limiters.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

/** A provider that writes every instrument call as `"<metric>(<queue>) <call>"`. */
function recordingProvider() {
  const calls: string[] = [];
  const created: string[] = [];
  const instrument = (metric: string, name: string) => {
    created.push(`${metric}(${name})`);
    const record = (call: string) => calls.push(`${metric} ${call}`);
    return {
      inc: () => record('inc'),
      dec: () => record('dec'),
      observe: (v: number) => record(`observe ${v}`),
      set: (v: number) => record(`set ${v}`),
    };
  };
  const provider: WorkqueueMetricsProvider = {
    newDepthMetric: (name) => instrument('depth', name),
    newAddsMetric: (name) => instrument('adds', name),
    newLatencyMetric: (name) => instrument('latency', name),
    newWorkDurationMetric: (name) => instrument('work', name),
    newUnfinishedWorkSecondsMetric: (name) => instrument('unfinished', name),
    newLongestRunningProcessorSecondsMetric: (name) => instrument('longest', name),
    newRetriesMetric: (name) => instrument('retries', name),
  };
  /** Returns the calls recorded since the last take, excluding the 500 ms gauges unless asked. */
  const take = (withGauges = false) =>
    calls
      .splice(0)
      .filter((c) => withGauges || !(c.startsWith('unfinished') || c.startsWith('longest')));
  return { provider, created, take };
}

describe('queue metrics', () => {
  it('are created once per named queue, with the queue’s name', () => {
    const { provider, created } = recordingProvider();
    newRateLimitingQueue(undefined, {
      name: 'widgets',
      metricsProvider: provider,
      clock: new FakeClock(),
    });
    expect(created.sort()).toEqual(
      [
        'adds(widgets)',
        'depth(widgets)',
        'latency(widgets)',
        'longest(widgets)',
        'retries(widgets)',
        'unfinished(widgets)',
        'work(widgets)',
      ].sort(),
    );
  });

  it('are not recorded for an unnamed queue, nor with the no-op provider', () => {
    const { provider, created } = recordingProvider();
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(undefined, { metricsProvider: provider, clock });
    queue.add('a');
    queue.addRateLimited('b');
    expect(created).toEqual([]);
    clock.advance(10);
    newWorkQueue({ name: 'x', metricsProvider: noopMetricsProvider, clock });
    expect(clock.pendingTimers()).toBe(0); // no unfinished-work updates either
  });

  it('count adds and depth, and time the wait and the work in seconds', () => {
    const { provider, take } = recordingProvider();
    const clock = new FakeClock();
    const queue = newWorkQueue({ name: 'q', metricsProvider: provider, clock });

    queue.add('a');
    queue.add('a'); // already waiting: not counted
    expect(take()).toEqual(['adds inc', 'depth inc']);

    clock.advance(1500);
    expect(queue.tryGet()).toBe('a');
    expect(take()).toEqual(['depth dec', 'latency observe 1.5']);

    clock.advance(250);
    queue.done('a');
    expect(take()).toEqual(['work observe 0.25']);
  });

  it('count an add while processing, and time its wait from that add', () => {
    const { provider, take } = recordingProvider();
    const clock = new FakeClock();
    const queue = newWorkQueue({ name: 'q', metricsProvider: provider, clock });
    queue.add('a');
    queue.tryGet();
    take();

    clock.advance(100);
    queue.add('a');
    queue.add('a');
    expect(take()).toEqual(['adds inc', 'depth inc']);

    clock.advance(400);
    queue.done('a');
    expect(take()).toEqual(['work observe 0.5']);
    queue.tryGet();
    expect(take()).toEqual(['depth dec', 'latency observe 0.4']);
  });

  it('record nothing for adds after shut-down', () => {
    const { provider, take } = recordingProvider();
    const queue = newWorkQueue({ name: 'q', metricsProvider: provider, clock: new FakeClock() });
    queue.shutDown();
    queue.add('a');
    expect(take()).toEqual([]);
  });

  it('report unfinished work and the longest-running item every 500 ms until shut-down', () => {
    const { provider, take } = recordingProvider();
    const clock = new FakeClock();
    const queue = newWorkQueue({ name: 'q', metricsProvider: provider, clock });
    clock.advance(500);
    expect(take(true)).toEqual(['unfinished set 0', 'longest set 0']);

    queue.add('a');
    queue.add('b');
    queue.tryGet(); // a, at 500
    clock.advance(250);
    queue.tryGet(); // b, at 750
    take();
    clock.advance(250); // tick at 1000: a is 0.5 s old, b 0.25 s
    expect(take(true)).toEqual(['unfinished set 0.75', 'longest set 0.5']);

    queue.shutDown();
    clock.advance(5000);
    expect(take(true)).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe('retry metrics', () => {
  it('count addAfter, and therefore addRateLimited, like client-go', () => {
    const { provider, take } = recordingProvider();
    const clock = new FakeClock();
    const queue = newRateLimitingQueue(
      rateLimiterFunc(() => 10),
      { name: 'q', metricsProvider: provider, clock },
    );
    queue.addRateLimited('a');
    expect(take()).toEqual(['retries inc']);
    queue.addAfter('b', 0);
    expect(take()).toEqual(['retries inc', 'adds inc', 'depth inc']);
    queue.add('c');
    expect(take()).toEqual(['adds inc', 'depth inc']);
    clock.advance(10); // 'a' becomes ready: an add, not another retry
    expect(take()).toEqual(['adds inc', 'depth inc']);
  });

  it('are not counted after shut-down', () => {
    const { provider, take } = recordingProvider();
    const queue = newDelayingQueue({
      name: 'q',
      metricsProvider: provider,
      clock: new FakeClock(),
    });
    queue.shutDown();
    queue.addAfter('a', 10);
    expect(take()).toEqual([]);
  });
});
