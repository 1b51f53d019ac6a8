import { join } from 'node:path';
import { runPrintEnv } from './print-env.js';
import { repoRoot } from './repo-root.js';

/** Absolute paths of the Go-built control-plane binaries. */
export interface ControlPlaneBinaries {
  etcd: string;
  kubeApiserver: string;
  kubeControllerManager: string;
  kubectl: string;
  helm: string;
}

const envNames: Record<keyof ControlPlaneBinaries, string> = {
  etcd: 'STEWARD_ETCD_BIN',
  kubeApiserver: 'STEWARD_KUBE_APISERVER_BIN',
  kubeControllerManager: 'STEWARD_KUBE_CONTROLLER_MANAGER_BIN',
  kubectl: 'STEWARD_KUBECTL_BIN',
  helm: 'STEWARD_HELM_BIN',
};

let pending: Promise<ControlPlaneBinaries> | undefined;

/**
 * Returns the control-plane binaries, building them on first use with
 * `tools/control-plane/build.sh` (seconds when cached, 10-20 minutes cold, progress on stderr).
 * Paths given in the `STEWARD_*_BIN` environment variables win over the build, all or nothing.
 */
export function controlPlaneBinaries(): Promise<ControlPlaneBinaries> {
  pending ??= resolveBinaries().catch((error: unknown) => {
    pending = undefined;
    throw error;
  });
  return pending;
}

async function resolveBinaries(): Promise<ControlPlaneBinaries> {
  const fromEnv = readEnv(process.env);
  if (fromEnv) return fromEnv;
  const script = join(repoRoot(), 'tools', 'control-plane', 'build.sh');
  const env = await runPrintEnv(script);
  const binaries = readEnv(env);
  if (!binaries) throw new Error(`steward: ${script} --print-env did not print every binary path`);
  return binaries;
}

function readEnv(env: Record<string, string | undefined>): ControlPlaneBinaries | undefined {
  const entries = Object.entries(envNames).map(([key, name]) => [key, env[name]] as const);
  if (entries.some(([, value]) => !value)) return undefined;
  return Object.fromEntries(entries) as unknown as ControlPlaneBinaries;
}
