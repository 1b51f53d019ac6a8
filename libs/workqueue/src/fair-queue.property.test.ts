import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newDelayingQueue } from './delaying-queue.js';
import { namespaceOf } from './fair-line.js';
import { FakeClock } from './fake-clock.js';
import { newWorkQueue, Priorities, type WorkQueue } from './queue.js';

/**
 * The fair queue's invariants, over random sequences of adds (random key, random priority), hand-
 * outs and dones. Three namespaces plus cluster-scoped keys, three named priorities plus one more.
 *
 * What is proven, per run, at every step:
 * - stingy and not lossy: each pending period of a key (from an add while not pending to its
 *   hand-out) ends in exactly one hand-out, and nothing pending is left once everything is done;
 * - exclusive: a key is never handed out while it is held;
 * - priority: a hand-out is at the highest priority among the waiting keys, and at the highest
 *   priority asked for that key since its pending period began (a raise is never lost, never
 *   lowered);
 * - round-robin between namespaces: while namespace t has waiting keys at priority p, no other
 *   namespace gets two hand-outs at p between two hand-outs of t at p (or before t's first). With
 *   N namespaces at p, a key at position r in its namespace's line therefore waits for at most
 *   r·(N−1) keys of other namespaces at p — a bound that does not depend on how many keys they
 *   have. Lower priorities wait while a higher one has keys (strict priority, by design).
 * And, by a model run (`fc.commands`), the queue hands out exactly what a naive reference of the
 * documented order (arrays, linear scans) hands out.
 */

const keys = ['a/1', 'a/2', 'a/3', 'a/4', 'b/1', 'b/2', 'c/1', 'x', 'y'];
const priorities = [Priorities.low, Priorities.normal, Priorities.high, 7];

type Op =
  | { kind: 'add'; key: string; priority: number | undefined }
  | { kind: 'get' }
  | { kind: 'done'; pick: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('add' as const),
      key: fc.constantFrom(...keys),
      priority: fc.option(fc.constantFrom(...priorities), { nil: undefined }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'get' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('done' as const), pick: fc.nat() }) },
);

describe('fair WorkQueue invariants (property)', () => {
  it('is stingy, exclusive, not lossy; hands out by priority, round-robin between namespaces', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 300 }), (ops) => {
        const queue = newWorkQueue({ fairness: 'fair' });
        const held: string[] = [];
        /** Pending keys → the highest priority asked for in the current pending period. */
        const pending = new Map<string, number>();
        const periods = new Map<string, number>();
        const handOuts = new Map<string, number>();
        /** (priority, namespace t) → hand-outs of each other namespace at p since t's last. */
        const since = new Map<string, Map<string, number>>();
        const lane = (p: number, t: string) => `${p}|${t}`;
        /** The waiting (pending, not held) keys at each priority, by namespace. */
        const waitingLanes = () => {
          const lanes = new Set<string>();
          for (const [key, p] of pending)
            if (!held.includes(key)) lanes.add(lane(p, namespaceOf(key)));
          return lanes;
        };
        /** Keeps `since` to exactly the lanes with waiting keys (a lane that empties starts over). */
        const syncLanes = () => {
          const lanes = waitingLanes();
          for (const l of since.keys()) if (!lanes.has(l)) since.delete(l);
          for (const l of lanes) if (!since.has(l)) since.set(l, new Map());
        };

        const take = (item: string) => {
          expect(held).not.toContain(item); // exclusive
          expect(pending.has(item)).toBe(true); // only what was added
          const p = pending.get(item) as number;
          expect(queue.processingPriority(item)).toBe(p); // the highest asked for, never lowered
          // The highest priority waiting goes first.
          for (const [key, q] of pending) if (!held.includes(key)) expect(q).toBeLessThanOrEqual(p);
          const t = namespaceOf(item);
          for (const [l, counts] of since) {
            const [lp, lt] = l.split('|') as [string, string];
            if (Number(lp) !== p) continue;
            if (lt === t) counts.clear();
            else {
              const n = (counts.get(t) ?? 0) + 1;
              expect(n).toBeLessThanOrEqual(1); // one turn per namespace between two of lt's
              counts.set(t, n);
            }
          }
          pending.delete(item);
          held.push(item);
          handOuts.set(item, (handOuts.get(item) ?? 0) + 1);
        };

        for (const o of ops) {
          if (o.kind === 'add') {
            const p = o.priority ?? Priorities.normal;
            const current = pending.get(o.key);
            if (current === undefined) periods.set(o.key, (periods.get(o.key) ?? 0) + 1);
            pending.set(o.key, Math.max(current ?? -Infinity, p));
            if (o.priority === undefined) queue.add(o.key);
            else queue.add(o.key, { priority: o.priority });
          } else if (o.kind === 'get') {
            const item = queue.tryGet();
            if (item !== undefined) take(item);
            else for (const key of pending.keys()) expect(held).toContain(key);
          } else if (held.length > 0) {
            const [item] = held.splice(o.pick % held.length, 1) as [string];
            queue.done(item);
          }
          syncLanes();
          expect(queue.len()).toBe([...pending.keys()].filter((k) => !held.includes(k)).length);
        }

        // Liveness: finish everything held, then drain; nothing pending is left behind.
        for (const item of held.splice(0)) queue.done(item);
        syncLanes();
        for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
          take(item);
          held.pop();
          queue.done(item);
          syncLanes();
        }
        expect(pending.size).toBe(0);
        expect(handOuts).toEqual(periods);
      }),
      { numRuns: 300 },
    );
  });

  it('a key waits for at most r keys of each other namespace (r: its place in its namespace)', () => {
    // One priority, a backlog per namespace added in a random interleaving, then drained.
    const tenant = fc.constantFrom('a', 'b', 'c', 'd', '');
    fc.assert(
      fc.property(fc.array(tenant, { minLength: 1, maxLength: 200 }), (tenants) => {
        const queue = newWorkQueue({ fairness: 'fair' });
        const place = new Map<string, number>();
        const count = new Map<string, number>();
        tenants.forEach((t, i) => {
          const r = (count.get(t) ?? 0) + 1;
          count.set(t, r);
          const key = t === '' ? `k${i}` : `${t}/k${i}`;
          place.set(key, r);
          queue.add(key);
        });
        const before = new Map<string, number>(); // hand-outs per namespace so far
        for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
          const r = place.get(item) as number;
          for (const [t, n] of before)
            if (t !== namespaceOf(item)) expect(n).toBeLessThanOrEqual(r);
          before.set(namespaceOf(item), (before.get(namespaceOf(item)) ?? 0) + 1);
          queue.done(item);
        }
      }),
    );
  });
});

/**
 * A naive reference of the documented order: the waiting keys in an array; per priority, the turn
 * order of the namespaces with waiting keys at it; each hand-out found by linear scans.
 */
class ReferenceQueue {
  private waiting: { key: string; priority: number; seq: number }[] = [];
  private readonly turns = new Map<number, string[]>();
  readonly held = new Map<string, number>();
  /** Keys added while held → the highest priority asked for meanwhile. */
  private readonly again = new Map<string, number>();
  private seq = 0;

  add(key: string, priority: number): void {
    if (this.held.has(key)) {
      this.again.set(key, Math.max(this.again.get(key) ?? -Infinity, priority));
      return;
    }
    const entry = this.waiting.find((w) => w.key === key);
    if (entry === undefined) {
      this.waiting.push({ key, priority, seq: this.seq++ });
      this.join(priority, namespaceOf(key));
    } else if (priority > entry.priority) {
      const old = entry.priority;
      entry.priority = priority;
      this.leaveIfEmpty(old, namespaceOf(key));
      this.join(priority, namespaceOf(key));
    }
  }

  next(): string | undefined {
    if (this.waiting.length === 0) return undefined;
    const top = Math.max(...this.waiting.map((w) => w.priority));
    const order = this.turns.get(top) as string[];
    const t = order.shift() as string;
    const mine = this.waiting.filter((w) => w.priority === top && namespaceOf(w.key) === t);
    const first = mine.reduce((a, b) => (a.seq < b.seq ? a : b));
    this.waiting = this.waiting.filter((w) => w !== first);
    if (mine.length > 1) order.push(t);
    else if (order.length === 0) this.turns.delete(top);
    this.held.set(first.key, top);
    return first.key;
  }

  done(key: string): void {
    if (!this.held.delete(key)) return;
    const priority = this.again.get(key);
    if (priority === undefined) return;
    this.again.delete(key);
    this.add(key, priority);
  }

  get length(): number {
    return this.waiting.length;
  }

  private join(priority: number, t: string): void {
    const order = this.turns.get(priority) ?? [];
    this.turns.set(priority, order);
    if (!order.includes(t)) order.push(t);
  }

  private leaveIfEmpty(priority: number, t: string): void {
    if (this.waiting.some((w) => w.priority === priority && namespaceOf(w.key) === t)) return;
    const order = (this.turns.get(priority) ?? []).filter((x) => x !== t);
    if (order.length > 0) this.turns.set(priority, order);
    else this.turns.delete(priority);
  }
}

type Model = { ref: ReferenceQueue };
type Real = { queue: WorkQueue };

class AddCommand implements fc.Command<Model, Real> {
  constructor(
    readonly key: string,
    readonly priority: number,
  ) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.ref.add(this.key, this.priority);
    r.queue.add(this.key, { priority: this.priority });
    expect(r.queue.len()).toBe(m.ref.length);
  }
  toString = () => `add(${this.key}, ${this.priority})`;
}

class GetCommand implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    const expected = m.ref.next();
    const item = r.queue.tryGet();
    expect(item).toBe(expected);
    if (item !== undefined) expect(r.queue.processingPriority(item)).toBe(m.ref.held.get(item));
  }
  toString = () => 'tryGet()';
}

class DoneCommand implements fc.Command<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.ref.held.size > 0;
  run(m: Model, r: Real): void {
    const held = [...m.ref.held.keys()];
    const key = held[this.pick % held.length] as string;
    m.ref.done(key);
    r.queue.done(key);
    expect(r.queue.len()).toBe(m.ref.length);
  }
  toString = () => `done(#${this.pick})`;
}

describe('fair WorkQueue against a reference (model run)', () => {
  it('hands out exactly what the reference of the documented order hands out', () => {
    const commands = [
      fc
        .tuple(fc.constantFrom(...keys), fc.constantFrom(...priorities))
        .map(([key, priority]) => new AddCommand(key, priority)),
      fc.constant(new GetCommand()),
      fc.nat().map((pick) => new DoneCommand(pick)),
    ];
    fc.assert(
      fc.property(fc.commands(commands, { maxCommands: 300 }), (cmds) => {
        fc.modelRun(
          () => ({
            model: { ref: new ReferenceQueue() },
            real: { queue: newWorkQueue({ fairness: 'fair' }) },
          }),
          cmds,
        );
      }),
      { numRuns: 300 },
    );
  });
});

describe('fair DelayingQueue invariants (property)', () => {
  it('releases each item at its earliest time with the highest priority it was scheduled with', () => {
    type Step = { item: string; delay: number; priority: number } | { advance: number };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({
        item: fc.constantFrom(...keys),
        delay: fc.integer({ min: 1, max: 100 }),
        priority: fc.constantFrom(...priorities),
      }),
      fc.record({ advance: fc.integer({ min: 0, max: 60 }) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 100 }), (steps) => {
        const clock = new FakeClock();
        const queue = newDelayingQueue({ clock, fairness: 'fair' });
        const scheduled = new Map<string, { readyAt: number; priority: number }>();
        for (const s of [...steps, { advance: 1000 }]) {
          if ('item' in s) {
            const readyAt = clock.now() + s.delay;
            const e = scheduled.get(s.item);
            scheduled.set(s.item, {
              readyAt: Math.min(e?.readyAt ?? Infinity, readyAt),
              priority: Math.max(e?.priority ?? -Infinity, s.priority),
            });
            queue.addAfter(s.item, s.delay, { priority: s.priority });
          } else {
            clock.advance(s.advance);
            const due = [...scheduled].filter(([, e]) => e.readyAt <= clock.now());
            let last = Infinity;
            for (let item = queue.tryGet(); item !== undefined; item = queue.tryGet()) {
              const e = scheduled.get(item);
              expect(e).toBeDefined();
              expect(queue.processingPriority(item)).toBe(e!.priority);
              expect(e!.priority).toBeLessThanOrEqual(last); // released items leave by priority
              last = e!.priority;
              scheduled.delete(item);
              queue.done(item);
            }
            for (const [item] of due) expect(scheduled.has(item)).toBe(false);
          }
        }
        expect(scheduled.size).toBe(0);
      }),
    );
  });
});
