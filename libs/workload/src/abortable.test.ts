import { describe, expect, it } from 'vitest';
import { abortable } from './abortable.js';

class Aborted extends Error {}

describe('abortable', () => {
  it('settles as the promise does while the signal is not aborted', async () => {
    const signal = new AbortController().signal;
    await expect(abortable(Promise.resolve(1), signal, () => new Aborted())).resolves.toBe(1);
    const failure = new Error('failed');
    await expect(abortable(Promise.reject(failure), signal, () => new Aborted())).rejects.toBe(
      failure,
    );
  });

  it('rejects with the error made by aborted() as soon as the signal aborts', async () => {
    const controller = new AbortController();
    let fail!: (error: Error) => void;
    const never = new Promise<number>((_resolve, reject) => (fail = reject));
    const waiting = abortable(never, controller.signal, () => new Aborted('observation aborted'));
    controller.abort();
    await expect(waiting).rejects.toThrow(Aborted);
    // the promise's own outcome, later, is handled (no unhandled rejection)
    fail(new Error('late'));
    await Promise.resolve();
  });
});
