import { LeaderElectionLostError, type Manager } from '@steward/controller';

/** How a controller process ends: 0 after a graceful stop, 1 after losing its lease or failing. */
export type ExitCode = 0 | 1;

/**
 * Runs `manager` until SIGTERM/SIGINT (graceful: in-flight reconciles finish) or until it fails;
 * what must be flushed (Events, telemetry) is the manager's own (`manager.add`), stopped last.
 * Resolves with the process's exit code: 1 when the leader lease was lost (the pod restarts and
 * rejoins the election) or the manager failed, else 0.
 */
export async function runUntilStopped(manager: Manager): Promise<ExitCode> {
  const removeSignalHandlers = manager.stopOnSignals();
  let code: ExitCode = 0;
  try {
    await manager.start();
  } catch (error) {
    code = 1;
    if (error instanceof LeaderElectionLostError) {
      manager.logger.error('leader lease lost; exiting so that the pod restarts');
    } else {
      manager.logger.error({ err: error }, 'manager failed');
    }
  } finally {
    removeSignalHandlers();
  }
  return code;
}
