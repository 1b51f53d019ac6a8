/** Anything a test opens that must not outlive it: a client, a fake server. */
export interface Closable {
  close(): unknown;
}

/** What each test opened, closed when it ends. */
export interface OpenedPerTest {
  /** Registers `resource` to be closed after the running test; answers it. */
  own<T extends Closable>(resource: T): T;
}

/**
 * Closes what each test `own`s once it ends, in the order it was opened (every one, even when one
 * fails to close: the first failure is then thrown). Pass the test runner's hook, so that this
 * module depends on no runner: `const opened = closeAfterEach(afterEach)`.
 */
export function closeAfterEach(afterEach: (hook: () => Promise<void>) => void): OpenedPerTest {
  const open: Closable[] = [];
  afterEach(async () => {
    const failures: unknown[] = [];
    for (const resource of open.splice(0)) {
      try {
        await resource.close();
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length) throw failures[0];
  });
  return {
    own: (resource) => {
      open.push(resource);
      return resource;
    },
  };
}
