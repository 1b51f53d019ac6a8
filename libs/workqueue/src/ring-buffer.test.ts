import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RingBuffer } from './ring-buffer.js';

describe('RingBuffer', () => {
  it('is first-in first-out across growth and wrap-around (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer(), fc.constant('shift' as const))), (ops) => {
        const ring = new RingBuffer<number>(2);
        const model: number[] = [];
        for (const o of ops) {
          if (o === 'shift') expect(ring.shift()).toBe(model.shift());
          else {
            ring.push(o);
            model.push(o);
          }
          expect(ring.length).toBe(model.length);
        }
        const rest: number[] = [];
        ring.drain((v) => rest.push(v));
        expect(rest).toEqual(model);
        expect(ring.length).toBe(0);
      }),
    );
  });

  it('returns undefined when empty', () => {
    expect(new RingBuffer<string>().shift()).toBeUndefined();
  });
});
