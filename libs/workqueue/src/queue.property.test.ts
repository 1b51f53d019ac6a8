import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newDelayingQueue } from './delaying-queue.js';
import { FakeClock } from './fake-clock.js';
import { newWorkQueue } from './queue.js';

const keys = ['ns/a', 'ns/b', 'ns/c', 'ns/d', 'ns/e'];

type Op = { kind: 'add'; key: string } | { kind: 'get' } | { kind: 'done'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), key: fc.constantFrom(...keys) }),
  fc.constant({ kind: 'get' as const }),
  fc.record({ kind: fc.constant('done' as const), pick: fc.nat() }),
);

/**
 * What a caller can see: a key is "pending" from an add made while it was not pending until it is
 * handed out. The contract, in those terms: each pending period ends in exactly one hand-out, never
 * while another holder has the key, and first-pending keys leave first.
 */
describe('WorkQueue invariants (property)', () => {
  it('every pending key is handed out exactly once per pending period, never to two holders', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const queue = newWorkQueue();
        const held: string[] = [];
        const pending = new Set<string>();
        const periods = new Map<string, number>();
        const handOuts = new Map<string, number>();

        const take = (item: string) => {
          expect(held).not.toContain(item); // never two holders
          expect(pending.has(item)).toBe(true); // only what was added
          pending.delete(item);
          held.push(item);
          handOuts.set(item, (handOuts.get(item) ?? 0) + 1);
        };

        for (const o of ops) {
          if (o.kind === 'add') {
            if (!pending.has(o.key)) periods.set(o.key, (periods.get(o.key) ?? 0) + 1);
            pending.add(o.key);
            queue.add(o.key);
          } else if (o.kind === 'get') {
            const item = queue.tryGet();
            if (item !== undefined) take(item);
            // Nothing handed out means every pending key is held right now.
            else for (const key of pending) expect(held).toContain(key);
          } else if (held.length > 0) {
            const [item] = held.splice(o.pick % held.length, 1);
            queue.done(item as string);
          }
          // Waiting keys are the pending keys nobody holds.
          expect(queue.len()).toBe([...pending].filter((k) => !held.includes(k)).length);
        }

        // Liveness: finish everything held, then drain; nothing pending is left behind.
        for (const item of held.splice(0)) queue.done(item);
        for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
          take(item);
          held.pop();
          queue.done(item);
        }
        expect(pending.size).toBe(0);
        expect(handOuts).toEqual(periods);
      }),
    );
  });

  it('hands out waiting keys in the order their pending periods began (FIFO)', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), (ops) => {
        const queue = newWorkQueue();
        const held = new Set<string>();
        // Reference: a key joins the line when it becomes pending while not held, or when it is
        // done while pending.
        const line: string[] = [];
        const pending = new Set<string>();
        const heldList: string[] = [];
        for (const o of ops) {
          if (o.kind === 'add') {
            if (!pending.has(o.key) && !held.has(o.key)) line.push(o.key);
            pending.add(o.key);
            queue.add(o.key);
          } else if (o.kind === 'get') {
            const item = queue.tryGet();
            expect(item).toBe(line.shift());
            if (item !== undefined) {
              pending.delete(item);
              held.add(item);
              heldList.push(item);
            }
          } else if (heldList.length > 0) {
            const [item] = heldList.splice(o.pick % heldList.length, 1) as [string];
            held.delete(item);
            if (pending.has(item)) line.push(item);
            queue.done(item);
          }
        }
      }),
    );
  });

  it('concurrent async workers never share a key and process every pending key', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.tuple(fc.constantFrom(...keys), fc.nat({ max: 4 }), fc.boolean()), {
          minLength: 1,
          maxLength: 60,
        }),
        async (workerCount, script) => {
          const queue = newWorkQueue();
          const inFlight = new Set<string>();
          const addedAt = new Map<string, number>();
          const processedAt = new Map<string, number>();
          let step = 0;
          let cursor = 0;
          let overlaps = 0;
          let readds = 0;
          const yieldTimes = async (n: number) => {
            for (let i = 0; i < n; i++) await Promise.resolve();
          };

          const worker = async () => {
            for (;;) {
              const result = await queue.get();
              if (result.shutdown) return;
              const { item } = result;
              if (inFlight.has(item)) overlaps++;
              inFlight.add(item);
              processedAt.set(item, step++);
              const [, hold, readd] = script[cursor++ % script.length]!;
              await yieldTimes(hold);
              if (readd && readds++ < script.length && !queue.shuttingDown()) {
                addedAt.set(item, step++);
                queue.add(item);
              }
              inFlight.delete(item);
              queue.done(item);
            }
          };
          const workers = Array.from({ length: workerCount }, worker);
          for (const [key, pause] of script) {
            addedAt.set(key, step++);
            queue.add(key);
            await yieldTimes(pause);
          }
          // Wait for quiescence, then stop the workers.
          const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
          do await turn();
          while (queue.len() > 0 || inFlight.size > 0);
          await queue.shutDownWithDrain();
          await Promise.all(workers);

          expect(overlaps).toBe(0);
          // Every key was processed after its last add.
          for (const [key, at] of addedAt) expect(processedAt.get(key)).toBeGreaterThan(at);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe('DelayingQueue invariants (property)', () => {
  it('releases each item once, at the earliest time it was scheduled for, in ready-time order', () => {
    type Step = { item: string; delay: number } | { advance: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ item: fc.constantFrom(...keys), delay: fc.integer({ min: 1, max: 100 }) }),
      fc.record({ advance: fc.integer({ min: 0, max: 60 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 100 }), (steps) => {
        const clock = new FakeClock();
        const queue = newDelayingQueue({ clock });
        const scheduled = new Map<string, { readyAt: number; seq: number }>();
        let seq = 0;
        const release = (until: number) => {
          const due = [...scheduled.entries()]
            .filter(([, e]) => e.readyAt <= until)
            .sort(([, x], [, y]) => x.readyAt - y.readyAt || x.seq - y.seq)
            .map(([item]) => item);
          for (const item of due) scheduled.delete(item);
          return due;
        };
        const takeAll = () => {
          const taken: string[] = [];
          for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
            taken.push(item);
            queue.done(item);
          }
          return taken;
        };
        for (const s of [...steps, { advance: 1000 }]) {
          if ('item' in s) {
            const readyAt = clock.now() + s.delay;
            const existing = scheduled.get(s.item);
            if (existing === undefined) scheduled.set(s.item, { readyAt, seq: seq++ });
            else existing.readyAt = Math.min(existing.readyAt, readyAt);
            queue.addAfter(s.item, s.delay);
          } else {
            clock.advance(s.advance);
            expect(takeAll()).toEqual(release(clock.now()));
          }
        }
        expect(scheduled.size).toBe(0);
        expect(clock.pendingTimers()).toBe(0);
      }),
    );
  });
});
