import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';

/**
 * The process-wide OTel context manager is what makes a span active across `await`s; without one,
 * `startActiveSpan` nests nothing. It is global by nature, so it is shared: the first telemetry
 * instance registers an AsyncLocalStorage manager, later ones hold a reference, and the last release
 * unregisters it. A manager registered by someone else is left alone.
 */
let shared: { manager: AsyncLocalStorageContextManager; holders: number } | undefined;

/** Ensures an AsyncLocalStorage context manager is active; returns the (idempotent) release. */
export function acquireContextManager(): () => void {
  if (shared) {
    shared.holders++;
  } else {
    const manager = new AsyncLocalStorageContextManager().enable();
    if (!context.setGlobalContextManager(manager)) {
      manager.disable();
      return () => undefined;
    }
    shared = { manager, holders: 1 };
  }
  const held = shared;
  let released = false;
  return () => {
    if (released || shared !== held) return;
    released = true;
    if (--held.holders === 0) {
      shared = undefined;
      context.disable();
    }
  };
}
