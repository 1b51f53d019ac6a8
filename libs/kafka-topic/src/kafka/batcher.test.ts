import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Batcher, type BatcherOptions, type BatchResult } from './batcher.js';

/** A send that records each request and answers when told to (or at once with `auto`). */
function recorder(answer: (item: string) => BatchResult<string> = (i) => ({ ok: true, value: i })) {
  const requests: string[][] = [];
  const gates: (() => void)[] = [];
  let auto = true;
  let fail: unknown;
  const send = async (items: readonly string[]) => {
    requests.push([...items]);
    if (!auto) await new Promise<void>((resolve) => gates.push(resolve));
    if (fail !== undefined) throw fail;
    return items.map(answer);
  };
  return {
    requests,
    send,
    hold: () => void (auto = false),
    /** Lets the oldest held request answer. */
    answer: () => gates.shift()?.(),
    failWith: (error: unknown) => void (fail = error),
  };
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

beforeEach(() => void vi.useFakeTimers());
afterEach(() => void vi.useRealTimers());

function batcher(options: BatcherOptions<string>, r = recorder()) {
  return { b: new Batcher(r.send, options), r };
}

describe('Batcher', () => {
  it('sends the calls of one window as one request, in call order, and gives each caller its own result', async () => {
    const { b, r } = batcher({});
    const results = Promise.all(['a', 'b', 'c'].map((i) => b.call(i)));
    await vi.advanceTimersByTimeAsync(9);
    expect(r.requests).toEqual([]); // the default window is 10 ms
    await vi.advanceTimersByTimeAsync(1);
    expect(await results).toEqual(['a', 'b', 'c']);
    expect(r.requests).toEqual([['a', 'b', 'c']]);
  });

  it('fails only the caller whose item failed', async () => {
    const r = recorder((i) =>
      i === 'bad'
        ? { ok: false, error: new Error(`no ${i}`) }
        : { ok: true, value: i.toUpperCase() },
    );
    const { b } = batcher({}, r);
    const results = Promise.all(['x', 'bad', 'y'].map((i) => settle(b.call(i))));
    await vi.advanceTimersByTimeAsync(10);
    expect(await results).toEqual([
      { ok: true, value: 'X' },
      { ok: false, error: new Error('no bad') },
      { ok: true, value: 'Y' },
    ]);
    expect(r.requests).toHaveLength(1);
  });

  it('fails every caller of a request that fails as a whole, and the next batch is unaffected', async () => {
    const { b, r } = batcher({});
    const broken = new Error('connection refused');
    r.failWith(broken);
    const first = Promise.all(['a', 'b'].map((i) => settle(b.call(i))));
    await vi.advanceTimersByTimeAsync(10);
    expect(await first).toEqual([
      { ok: false, error: broken },
      { ok: false, error: broken },
    ]);
    r.failWith(undefined);
    const second = b.call('c');
    await vi.advanceTimersByTimeAsync(10);
    expect(await second).toBe('c');
    expect(r.requests).toEqual([['a', 'b'], ['c']]);
  });

  it('loses no caller when the answer holds too few results', async () => {
    const b = new Batcher<string, string>(async () => [{ ok: true, value: 'only one' }]);
    const results = Promise.all(['a', 'b'].map((i) => settle(b.call(i))));
    await vi.advanceTimersByTimeAsync(10);
    const [a, second] = await results;
    expect(a).toEqual({ ok: true, value: 'only one' });
    expect(second).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('no result for item 1') },
    });
  });

  it('sends a batch as soon as it holds maxItems calls', async () => {
    const { b, r } = batcher({ maxItems: 3, maxWaitMs: 1_000 });
    const results = Promise.all(['1', '2', '3', '4', '5', '6', '7'].map((i) => b.call(i)));
    expect(r.requests).toEqual([
      ['1', '2', '3'],
      ['4', '5', '6'],
    ]); // without waiting for any timer
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await results).toEqual(['1', '2', '3', '4', '5', '6', '7']);
    expect(r.requests[2]).toEqual(['7']);
  });

  it('gathers the calls of maxWaitMs after the first into one request', async () => {
    const { b, r } = batcher({ maxWaitMs: 10 });
    const a = b.call('a');
    await vi.advanceTimersByTimeAsync(6);
    const c = b.call('b');
    await vi.advanceTimersByTimeAsync(3);
    expect(r.requests).toEqual([]); // 9 ms: still gathering
    await vi.advanceTimersByTimeAsync(1);
    expect(r.requests).toEqual([['a', 'b']]);
    const late = b.call('late');
    await vi.advanceTimersByTimeAsync(10);
    expect(await Promise.all([a, c, late])).toEqual(['a', 'b', 'late']);
    expect(r.requests).toEqual([['a', 'b'], ['late']]);
  });

  it('with sendWhenIdle, sends a lone call at once, and gathers the calls made while a request is under way', async () => {
    const r = recorder();
    const { b } = batcher({ maxWaitMs: 1_000, sendWhenIdle: true }, r);
    r.hold();
    const first = b.call('first');
    await vi.advanceTimersByTimeAsync(0); // one setImmediate, not the 1 s window
    expect(r.requests).toEqual([['first']]);
    const rest = ['x', 'y', 'z'].map((i) => b.call(i));
    await vi.advanceTimersByTimeAsync(5);
    expect(b.waiting).toBe(3);
    expect(r.requests).toHaveLength(1); // waiting for the request in flight
    r.answer();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.requests).toEqual([['first'], ['x', 'y', 'z']]);
    r.answer();
    expect(await Promise.all([first, ...rest])).toEqual(['first', 'x', 'y', 'z']);
  });

  it('with sendWhenIdle, still sends after maxWaitMs when a request in flight takes longer', async () => {
    const r = recorder();
    const { b } = batcher({ maxWaitMs: 10, sendWhenIdle: true }, r);
    r.hold();
    const first = b.call('slow');
    await vi.advanceTimersByTimeAsync(0);
    const next = b.call('next');
    await vi.advanceTimersByTimeAsync(10);
    expect(r.requests).toEqual([['slow'], ['next']]);
    expect(b.requestsInFlight).toBe(2);
    r.answer();
    r.answer();
    expect(await Promise.all([first, next])).toEqual(['slow', 'next']);
  });

  it('never puts one key twice into a request', async () => {
    const { b, r } = batcher({ key: (i) => i.split(':')[0]! });
    const results = Promise.all(['t1:a', 't2:a', 't1:b'].map((i) => b.call(i)));
    await vi.advanceTimersByTimeAsync(20);
    expect(await results).toEqual(['t1:a', 't2:a', 't1:b']);
    expect(r.requests).toEqual([['t1:a', 't2:a'], ['t1:b']]);
  });

  it('sends every call alone, at once, with maxItems 1', async () => {
    const { b, r } = batcher({ maxItems: 1 });
    const results = Promise.all(['a', 'b'].map((i) => b.call(i)));
    expect(r.requests).toEqual([['a'], ['b']]);
    expect(await results).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends what is waiting on flush', async () => {
    const { b, r } = batcher({ maxWaitMs: 1_000 });
    const a = b.call('a');
    b.flush();
    expect(r.requests).toEqual([['a']]);
    expect(await a).toBe('a');
    expect(vi.getTimerCount()).toBe(0);
  });
});
