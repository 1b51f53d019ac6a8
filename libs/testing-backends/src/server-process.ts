import { type ManagedProcess } from '@steward/testing';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** How one attempt launches the server: on fresh ports, with what it then answers at. */
export interface ServerLaunch<T> {
  proc: ManagedProcess;
  /** What the caller needs of this attempt (its URLs, ports). */
  info: T;
  /** Resolves once the server serves; rejects when it exited or did not in time. */
  ready: () => Promise<void>;
}

/** A server that started, with a `stop()` that stops it and removes its directory. */
export interface StartedServer<T> {
  proc: ManagedProcess;
  info: T;
  stop(): Promise<void>;
}

/**
 * Starts a server owned by a test in `dataDir`: `launch(attempt)` starts one on ports it picked;
 * an attempt whose log says its port was taken (another process bound it first) is stopped and
 * retried on new ones, up to 3 times. On failure, or on `stop()`, the directory is removed unless
 * `keepDataDir`. `stop()` is idempotent.
 */
export async function startServerProcess<T>(
  dataDir: string,
  keepDataDir: boolean | undefined,
  launch: (attempt: number) => Promise<ServerLaunch<T>>,
): Promise<StartedServer<T>> {
  const removeDir = async () => {
    if (!keepDataDir) await rm(dataDir, { recursive: true, force: true });
  };
  let started: ServerLaunch<T> | undefined;
  try {
    for (let attempt = 1; !started; attempt++) {
      const next = await launch(attempt);
      try {
        await next.ready();
        started = next;
      } catch (error) {
        await next.proc.stop();
        if (!/address already in use/i.test(next.proc.logTail()) || attempt >= 3) throw error;
      }
    }
  } catch (error) {
    await removeDir();
    throw error;
  }
  const { proc, info } = started;
  let stopped = false;
  return {
    proc,
    info,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await proc.stop();
      await removeDir();
    },
  };
}

/**
 * Polls until every URL answers and `ok` accepts each answer (default: any HTTP answer — the port
 * listens), failing fast when `proc` exited and after `timeoutMs`, with its log's tail.
 */
export async function waitAnswering(
  proc: ManagedProcess,
  what: string,
  urls: string[],
  timeoutMs: number,
  ok: (response: Response) => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!proc.running)
      throw new Error(
        `steward: ${what} exited during start-up; log ${proc.logFile}:\n${proc.logTail()}`,
      );
    const answers = await Promise.all(
      urls.map((url) =>
        fetch(url, { signal: AbortSignal.timeout(2_000) })
          .then(async (r) => (await r.text(), ok(r)))
          .catch(() => false),
      ),
    );
    if (answers.every(Boolean) && proc.running) return;
    if (Date.now() > deadline)
      throw new Error(
        `steward: ${what} did not answer ${urls.join(' and ')} after ${timeoutMs} ms; log ${proc.logFile}:\n${proc.logTail()}`,
      );
    await sleep(100);
  }
}
