import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WaitingHeap } from './waiting-heap.js';

describe('WaitingHeap', () => {
  it('pops by ready time then scheduling order, one entry per item, earliest time kept (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
            fc.integer({ min: 0, max: 20 }),
          ),
        ),
        (schedules) => {
          const heap = new WaitingHeap();
          const model = new Map<string, { readyAt: number; seq: number }>();
          schedules.forEach(([item, readyAt], seq) => {
            heap.schedule(item, readyAt);
            const existing = model.get(item);
            if (existing === undefined) model.set(item, { readyAt, seq });
            else existing.readyAt = Math.min(existing.readyAt, readyAt);
          });
          const expected = [...model.entries()]
            .sort(([, x], [, y]) => x.readyAt - y.readyAt || x.seq - y.seq)
            .map(([item, e]) => `${item}@${e.readyAt}`);
          const popped: string[] = [];
          for (let e = heap.pop(); e !== undefined; e = heap.pop())
            popped.push(`${e.item}@${e.readyAt}`);
          expect(popped).toEqual(expected);
          expect(heap.size).toBe(0);
        },
      ),
    );
  });
});
