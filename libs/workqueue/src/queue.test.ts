import { describe, expect, it } from 'vitest';
import { newDelayingQueue } from './delaying-queue.js';
import { FakeClock } from './fake-clock.js';
import { newWorkQueue, type WorkQueue } from './queue.js';
import { newRateLimitingQueue } from './rate-limiting-queue.js';

/**
 * Every queue is a WorkQueue and keeps its contract, whichever decorators are stacked. The keys
 * below are of one namespace (or all cluster-scoped) and added at one priority, where a fair queue
 * must behave exactly as the FIFO queue: it runs the same suite.
 */
const implementations: [string, () => WorkQueue][] = [
  ['newWorkQueue', () => newWorkQueue()],
  ['newDelayingQueue', () => newDelayingQueue({ clock: new FakeClock() })],
  ['newRateLimitingQueue', () => newRateLimitingQueue(undefined, { clock: new FakeClock() })],
  ['newWorkQueue (fair)', () => newWorkQueue({ fairness: 'fair' })],
  [
    'newRateLimitingQueue (fair)',
    () => newRateLimitingQueue(undefined, { clock: new FakeClock(), fairness: 'fair' }),
  ],
];

/** Takes every waiting item, in order, marking each done. */
function takeAll(queue: WorkQueue): string[] {
  const taken: string[] = [];
  for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
    taken.push(item);
    queue.done(item);
  }
  return taken;
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe.each(implementations)('%s', (_name, create) => {
  describe('fair', () => {
    it('hands items out in the order they were first added', () => {
      const queue = create();
      for (const key of ['ns/c', 'ns/a', 'ns/b']) queue.add(key);
      expect(takeAll(queue)).toEqual(['ns/c', 'ns/a', 'ns/b']);
    });

    it.each([
      { adds: ['a', 'b', 'a'], handedOut: ['a', 'b'] },
      { adds: ['a', 'b', 'c', 'a', 'b', 'a'], handedOut: ['a', 'b', 'c'] },
      { adds: ['b', 'a', 'b', 'b', 'c', 'a'], handedOut: ['b', 'a', 'c'] },
    ])('a repeated add keeps the item’s place: $adds → $handedOut', ({ adds, handedOut }) => {
      const queue = create();
      for (const key of adds) queue.add(key);
      expect(takeAll(queue)).toEqual(handedOut);
    });

    it('does not starve old items when a hot key is re-added during every processing', () => {
      const queue = create();
      for (const key of ['hot', 'old-1', 'old-2', 'old-3']) queue.add(key);
      const order: string[] = [];
      for (let round = 0; round < 8; round++) {
        const item = queue.tryGet();
        if (item === undefined) break;
        order.push(item);
        if (item === 'hot') queue.add('hot'); // an event arrives while it is being reconciled
        queue.done(item);
      }
      expect(order.slice(0, 5)).toEqual(['hot', 'old-1', 'old-2', 'old-3', 'hot']);
    });

    it('serves waiting get() calls in the order they were made', async () => {
      const queue = create();
      const received: string[] = [];
      const waiters = ['first', 'second', 'third'].map((worker) =>
        queue.get().then((result) => {
          if (!result.shutdown) received.push(`${worker}:${result.item}`);
        }),
      );
      queue.add('x');
      queue.add('y');
      queue.add('z');
      await Promise.all(waiters);
      expect(received).toEqual(['first:x', 'second:y', 'third:z']);
    });
  });

  describe('stingy', () => {
    it.each([1, 2, 10, 1000])('an item added %i times while waiting is handed out once', (n) => {
      const queue = create();
      for (let i = 0; i < n; i++) queue.add('ns/name');
      expect(queue.len()).toBe(1);
      expect(takeAll(queue)).toEqual(['ns/name']);
    });

    it('does not hand out an item being processed until it is done', () => {
      const queue = create();
      queue.add('a');
      expect(queue.tryGet()).toBe('a');
      queue.add('a');
      expect(queue.len()).toBe(0);
      expect(queue.tryGet()).toBeUndefined();
      queue.done('a');
      expect(queue.tryGet()).toBe('a');
    });

    it('never gives one key to two of several concurrent workers', async () => {
      const queue = create();
      const keys = Array.from({ length: 20 }, (_, i) => `ns/obj-${i}`);
      const inFlight = new Set<string>();
      const processed = new Map<string, number>();
      let overlaps = 0;

      const worker = async (id: number) => {
        for (;;) {
          const result = await queue.get();
          if (result.shutdown) return;
          if (inFlight.has(result.item)) overlaps++;
          inFlight.add(result.item);
          // Hold the key across several turns of the event loop, and re-add it meanwhile.
          for (let t = 0; t < 1 + ((id * 7 + result.item.length) % 5); t++) await settle();
          if ((processed.get(result.item) ?? 0) < 2) queue.add(result.item);
          processed.set(result.item, (processed.get(result.item) ?? 0) + 1);
          inFlight.delete(result.item);
          queue.done(result.item);
        }
      };
      const workers = [0, 1, 2, 3, 4].map(worker);
      for (let round = 0; round < 3; round++) {
        for (const key of keys) queue.add(key);
        await settle();
      }
      while (queue.len() > 0 || inFlight.size > 0) await settle();
      queue.shutDown();
      await Promise.all(workers);

      expect(overlaps).toBe(0);
      for (const key of keys) expect(processed.get(key)).toBeGreaterThanOrEqual(1);
    });
  });

  describe('re-added while processing', () => {
    it.each([1, 3])('is handed out exactly once more after done (re-added %i times)', (readds) => {
      const queue = create();
      queue.add('a');
      queue.add('b');
      expect(queue.tryGet()).toBe('a');
      for (let i = 0; i < readds; i++) queue.add('a');
      queue.done('a');
      // 'a' goes to the back, behind 'b' which waited longer.
      expect(takeAll(queue)).toEqual(['b', 'a']);
      expect(queue.tryGet()).toBeUndefined();
    });

    it('is handed straight to a waiting worker when done', async () => {
      const queue = create();
      queue.add('a');
      expect(queue.tryGet()).toBe('a');
      queue.add('a');
      const next = queue.get();
      queue.done('a');
      await expect(next).resolves.toEqual({ item: 'a', shutdown: false });
    });

    it('ignores done for an item that is not being processed', () => {
      const queue = create();
      queue.add('a');
      queue.done('a'); // stray: 'a' is waiting, not processing
      queue.done('never-added');
      expect(queue.len()).toBe(1);
      expect(takeAll(queue)).toEqual(['a']);
    });
  });

  describe('get', () => {
    it('waits while the queue is empty and resolves when an item arrives', async () => {
      const queue = create();
      let result: unknown;
      const pending = queue.get().then((r) => (result = r));
      await settle();
      expect(result).toBeUndefined();
      queue.add('a');
      await pending;
      expect(result).toEqual({ item: 'a', shutdown: false });
    });

    it('resolves at once with an item that is already waiting', async () => {
      const queue = create();
      queue.add('a');
      await expect(queue.get()).resolves.toEqual({ item: 'a', shutdown: false });
      expect(queue.len()).toBe(0);
    });

    it('tryGet returns undefined when nothing waits', () => {
      expect(create().tryGet()).toBeUndefined();
    });

    it('len counts waiting items, not those being processed', () => {
      const queue = create();
      queue.add('a');
      queue.add('b');
      expect(queue.len()).toBe(2);
      queue.tryGet();
      expect(queue.len()).toBe(1);
    });
  });

  describe('shutDown', () => {
    it('resolves every waiting get with shutdown', async () => {
      const queue = create();
      const waiting = [queue.get(), queue.get()];
      queue.shutDown();
      await expect(Promise.all(waiting)).resolves.toEqual([{ shutdown: true }, { shutdown: true }]);
      expect(queue.shuttingDown()).toBe(true);
    });

    it('ignores later adds', async () => {
      const queue = create();
      queue.shutDown();
      queue.add('a');
      expect(queue.len()).toBe(0);
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('still hands out items that were waiting, then reports shutdown', async () => {
      const queue = create();
      queue.add('a');
      queue.add('b');
      queue.shutDown();
      await expect(queue.get()).resolves.toEqual({ item: 'a', shutdown: false });
      await expect(queue.get()).resolves.toEqual({ item: 'b', shutdown: false });
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('is idempotent', async () => {
      const queue = create();
      queue.shutDown();
      queue.shutDown();
      await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
      expect(queue.shuttingDown()).toBe(true);
    });
  });

  describe('shutDownWithDrain', () => {
    it('resolves at once when nothing is being processed', async () => {
      const queue = create();
      await expect(queue.shutDownWithDrain()).resolves.toBeUndefined();
    });

    it('waits for every item in flight to be done, and hands out no item added after it', async () => {
      const queue = create();
      queue.add('a');
      queue.add('b');
      const a = queue.tryGet() as string;
      const b = queue.tryGet() as string;
      let drained = false;
      const drain = queue.shutDownWithDrain().then(() => (drained = true));

      queue.add('c');
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
      queue.done(a);
      await settle();
      expect(drained).toBe(false);
      queue.done(b);
      await drain;
      expect(drained).toBe(true);
      expect(queue.tryGet()).toBeUndefined();
    });

    it('queues again on done an item re-added before the drain began (client-go)', async () => {
      const queue = create();
      queue.add('a');
      const a = queue.tryGet() as string;
      queue.add('a');
      const drain = queue.shutDownWithDrain();
      queue.done(a);
      await drain; // nothing is in flight any more
      await expect(queue.get()).resolves.toEqual({ item: 'a', shutdown: false });
      queue.done('a');
      await expect(queue.get()).resolves.toEqual({ shutdown: true });
    });

    it('is cut short by a later shutDown', async () => {
      const queue = create();
      queue.add('a');
      queue.tryGet();
      const drain = queue.shutDownWithDrain();
      queue.shutDown();
      await expect(drain).resolves.toBeUndefined();
    });
  });
});
