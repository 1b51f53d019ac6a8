// `npm start`: the local platform. Brings up a real control plane (etcd, kube-apiserver,
// kube-controller-manager) on loopback, installs every CRD under charts/*/crds, writes the
// kubeconfig to .steward/kubeconfig and prints how to reach it, then stays up until Ctrl-C (SIGINT)
// or SIGTERM, when it stops every process it started and exits 0.
//
// Controllers, their backends and the examples join here as they land (issues 4 and 5).
import { startControlPlane } from '@steward/testing';
import { copyFile, mkdir, readdir } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

async function crdDirectories(): Promise<string[]> {
  const charts = join(root, 'charts');
  if (!existsSync(charts)) return [];
  const dirs: string[] = [];
  for (const chart of await readdir(charts, { withFileTypes: true })) {
    const crds = join(charts, chart.name, 'crds');
    if (chart.isDirectory() && existsSync(crds) && (await readdir(crds)).length > 0)
      dirs.push(crds);
  }
  return dirs;
}

const log = (line: string): boolean => process.stdout.write(`${line}\n`);

const crds = await crdDirectories();
log('steward: starting the control plane (etcd, kube-apiserver, kube-controller-manager)...');
const plane = await startControlPlane({ crds, controllerManager: true });

const stateDir = join(root, '.steward');
await mkdir(stateDir, { recursive: true });
const kubeconfig = join(stateDir, 'kubeconfig');
await copyFile(plane.kubeconfigPath, kubeconfig);

log(`steward: control plane ready at ${plane.server}`);
log(
  crds.length > 0
    ? `steward: CRDs installed from ${crds.map((d) => relative(root, d)).join(', ')}`
    : 'steward: no CRDs under charts/*/crds yet',
);
log(`steward: kubeconfig ${relative(process.cwd(), kubeconfig) || kubeconfig}`);
log('');
log('  Try, in another terminal:');
log(`    export KUBECONFIG=${kubeconfig}`);
log(`    ${plane.binaries.kubectl} get --raw /version`);
log(`    ${plane.binaries.kubectl} get crds,namespaces`);
log('');
log('steward: running; press Ctrl-C to stop everything.');

let stopping = false;
const shutdown = async (signal: string): Promise<void> => {
  if (stopping) return;
  stopping = true;
  log(`\nsteward: ${signal} received, stopping the control plane...`);
  await plane.stop();
  log('steward: stopped cleanly.');
  process.exit(0);
};
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
setInterval(() => undefined, 1 << 30);
