import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A server process owned by a test: its own process group, output in a log file, stopped by
 * `stop()`, by this process exiting (normally or on SIGINT/SIGTERM/SIGHUP), and — when this process is
 * killed outright — by a detached watchdog that notices the parent is gone. No orphans either way.
 */
export class ManagedProcess {
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private exitCode: number | null | undefined;

  private constructor(
    readonly name: string,
    readonly logFile: string,
    child: ChildProcess,
  ) {
    this.child = child;
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? null : code);
        live.delete(this);
        resolve(code);
      });
    });
  }

  /**
   * Starts `command` with output appended to `logFile`; `options.env` replaces the environment
   * (default: this process's), `options.cwd` the working directory.
   */
  static start(
    name: string,
    command: string,
    args: string[],
    logFile: string,
    options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
  ): ManagedProcess {
    installExitHooks();
    const fd = openSync(logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        detached: true,
        stdio: ['ignore', fd, fd],
        ...(options.env ? { env: options.env } : {}),
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
    } finally {
      closeSync(fd);
    }
    child.unref();
    const managed = new ManagedProcess(name, logFile, child);
    child.once('error', () => undefined);
    if (child.pid === undefined) throw new Error(`steward: could not start ${name} (${command})`);
    live.add(managed);
    startWatchdog(child.pid);
    return managed;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.exitCode === undefined;
  }

  /** The last `lines` lines of the log, for error messages. */
  logTail(lines = 30): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no log)';
    }
  }

  /** SIGTERM to the process group, SIGKILL after `graceMs`; resolves when the process has exited. */
  async stop(graceMs = 10_000): Promise<void> {
    if (!this.running) return;
    this.signalGroup('SIGTERM');
    // the grace timer is cancelled once the process is gone: it must not hold the caller open
    const grace = new AbortController();
    const done = await Promise.race([
      this.exited.then(() => true),
      sleep(graceMs, undefined, { signal: grace.signal }).then(
        () => false,
        () => true,
      ),
    ]);
    grace.abort();
    if (!done) {
      this.signalGroup('SIGKILL');
      await this.exited;
    }
  }

  /** Kills at once, synchronously; for exit hooks, where nothing asynchronous runs. */
  killNow(): void {
    if (this.running) this.signalGroup('SIGKILL');
  }

  /** Sends `signal` to the process group (e.g. SIGTERM to test a graceful stop). */
  signal(signal: NodeJS.Signals): void {
    if (this.running) this.signalGroup(signal);
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  }
}

const live = new Set<ManagedProcess>();
let hooksInstalled = false;

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', () => {
    for (const p of live) p.killNow();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      // Another listener owns shutdown (e.g. `npm start` stopping gracefully): leave it to them.
      if (process.listenerCount(signal) > 1) return;
      for (const p of live) p.killNow();
      process.removeListener(signal, onSignal);
      // Re-raise so the default behaviour (exit by that signal) still happens.
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A detached shell that outlives this process by design: it polls both pids every second and, once
 * this process is gone while the child still runs, terminates the child's process group.
 */
function startWatchdog(childPid: number): void {
  const script =
    'while kill -0 "$1" 2>/dev/null && kill -0 "$2" 2>/dev/null; do sleep 1; done; ' +
    'if kill -0 "$2" 2>/dev/null; then kill -TERM -"$2" 2>/dev/null; sleep 5; kill -KILL -"$2" 2>/dev/null; fi';
  const watchdog = spawn(
    'sh',
    ['-c', script, 'steward-watchdog', String(process.pid), String(childPid)],
    {
      detached: true,
      stdio: 'ignore',
    },
  );
  watchdog.unref();
}
