import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { controlPlaneBinaries, eventually } from '../src/index.js';

const holder = join(import.meta.dirname, 'fixtures/hold-control-plane.ts');

/** Processes whose command line mentions `dataDir`: etcd, kube-apiserver, kube-controller-manager. */
function processesUsing(dataDir: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', dataDir], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when nothing matches
  }
}

async function startHolder(): Promise<{ child: ChildProcess; dataDir: string }> {
  const binaries = await controlPlaneBinaries();
  const child = spawn(process.execPath, ['--import', 'tsx', holder], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      STEWARD_ETCD_BIN: binaries.etcd,
      STEWARD_KUBE_APISERVER_BIN: binaries.kubeApiserver,
      STEWARD_KUBE_CONTROLLER_MANAGER_BIN: binaries.kubeControllerManager,
      STEWARD_KUBECTL_BIN: binaries.kubectl,
      STEWARD_HELM_BIN: binaries.helm,
    },
  });
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`holder exited early with ${code}`)));
  });
  return { child, dataDir: (JSON.parse(firstLine) as { dataDir: string }).dataDir };
}

describe('control-plane processes never outlive their owner', () => {
  const dataDirs: string[] = [];
  afterEach(async () => {
    for (const dir of dataDirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['SIGINT', 'interrupted (Ctrl-C)'],
    ['SIGKILL', 'killed outright'],
  ] as const)(
    'stops etcd, kube-apiserver and kube-controller-manager when the owner is %s — %s',
    async (signal, _how) => {
      const { child, dataDir } = await startHolder();
      dataDirs.push(dataDir);
      expect(processesUsing(dataDir).length).toBe(3);

      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;

      await eventually(() => processesUsing(dataDir).length === 0, {
        description: `no process left using ${dataDir}`,
        timeoutMs: 30_000,
      });
    },
  );
});
