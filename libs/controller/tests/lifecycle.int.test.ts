import { KubeClient, Leases, Namespaces, type KubeObject } from '@steward/kube';
import {
  eventually,
  kubeConfigWithServer,
  startControlPlane,
  startTcpProxy,
  type ControlPlane,
} from '@steward/testing';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElectionLostError, Manager } from '../src/index.js';
import { Gizmos, sampleController, type Gizmo } from './support/sample-controller.js';

const namespace = 'lifecycle';
const election = {
  namespace,
  leaseDurationMs: 6_000,
  renewDeadlineMs: 4_000,
  retryPeriodMs: 1_000,
};

let plane: ControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane({ crds: [join(import.meta.dirname, 'fixtures/crds')] });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  await admin.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
});
afterAll(async () => {
  await plane?.stop();
});

const create = (name: string) =>
  admin.create<Gizmo>(Gizmos, {
    apiVersion: `${Gizmos.group}/${Gizmos.version}`,
    kind: 'Gizmo',
    metadata: { name, namespace },
    spec: { message: name },
  });

interface Candidate {
  manager: Manager;
  reconciles: { key: string; at: number }[];
  started: Promise<void>;
  becameLeaderAt?: number;
  stoppedAt?: number;
}

function candidate(name: string, kubeConfig = plane.kubeConfig): Candidate {
  const manager = new Manager({
    kubeConfig,
    name: 'gizmo-ha',
    identity: name,
    leaderElection: election,
  });
  const c: Candidate = { manager, reconciles: [], started: Promise.resolve() };
  sampleController(manager, {
    onReconcile: (request) => {
      c.becameLeaderAt ??= Date.now();
      c.reconciles.push({ key: request.key, at: Date.now() });
    },
  });
  c.started = manager.start().finally(() => (c.stoppedAt = Date.now()));
  c.started.catch(() => undefined);
  return c;
}

describe('leader election between two managers on one API server', () => {
  it('lets exactly one reconcile, and hands over within the lease duration when the leader stops', async () => {
    const a = candidate('a');
    await eventually(() => a.manager.isLeader(), { description: 'a to lead' });
    const b = candidate('b');
    await create('ha-1');
    await eventually(() => a.reconciles.some((r) => r.key === `${namespace}/ha-1`), {
      description: 'a to reconcile',
    });
    await new Promise((r) => setTimeout(r, 2_000));
    expect(b.manager.isLeader()).toBe(false);
    expect(b.reconciles).toEqual([]);

    const stoppedAt = Date.now();
    await a.manager.stop(); // releases the lease
    await eventually(() => b.manager.isLeader(), {
      description: 'b to lead',
      timeoutMs: election.leaseDurationMs,
    });
    expect(Date.now() - stoppedAt).toBeLessThan(
      election.leaseDurationMs + election.retryPeriodMs * 2,
    );
    await create('ha-2');
    await eventually(() => b.reconciles.some((r) => r.key === `${namespace}/ha-2`), {
      description: 'b to reconcile',
    });
    expect(a.reconciles.some((r) => r.key === `${namespace}/ha-2`)).toBe(false);
    await b.manager.stop();
  });

  it('a leader cut off from the API server stops reconciling before another can take its lease', async () => {
    const url = new URL(plane.server);
    const proxy = await startTcpProxy({ port: Number(url.port) });
    try {
      const a = candidate(
        'cut-a',
        kubeConfigWithServer(plane.kubeConfig, `https://127.0.0.1:${proxy.port}`),
      );
      await eventually(() => a.manager.isLeader(), {
        description: 'cut-a to lead',
        timeoutMs: 20_000,
      });
      const b = candidate('cut-b');
      await new Promise((r) => setTimeout(r, 1_500));
      expect(b.manager.isLeader()).toBe(false);

      proxy.cut();
      await expect(a.started).rejects.toBeInstanceOf(LeaderElectionLostError);
      await eventually(() => b.manager.isLeader(), {
        description: 'cut-b to lead',
        timeoutMs: 30_000,
      });
      // When b took the lease is what b wrote into it (its own clock, this process's), not when
      // this test noticed: a has already stopped by the time the test looks at b.
      const lease = await admin.get<
        KubeObject & { spec?: { holderIdentity?: string; acquireTime?: string } }
      >(Leases, 'gizmo-ha-leader', namespace);
      expect(lease.spec?.holderIdentity).toBe('cut-b');
      const bLeadsAt = Date.parse(lease.spec!.acquireTime!);
      expect(a.stoppedAt!).toBeLessThan(bLeadsAt);

      await create('after-cut');
      await eventually(() => b.reconciles.some((r) => r.key === `${namespace}/after-cut`), {
        description: 'b reconciles',
      });
      expect(a.reconciles.filter((r) => r.at >= bLeadsAt)).toEqual([]);
      await b.manager.stop();
    } finally {
      await proxy.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('on SIGTERM finishes in-flight reconciles, starts no new ones, and exits 0', async () => {
    for (let i = 0; i < 6; i++) await create(`drain-${i}`);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        join(import.meta.dirname, 'fixtures/shutdown-manager.ts'),
        plane.kubeconfigPath,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines: string[] = [];
    let sigtermAt = -1;
    createInterface({ input: child.stdout! }).on('line', (line) => lines.push(line));
    const exit = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );

    await eventually(() => lines.some((l) => l.startsWith('start ')), {
      description: 'a reconcile in flight',
      timeoutMs: 60_000,
    });
    sigtermAt = lines.length;
    child.kill('SIGTERM');
    expect(await exit).toBe(0);

    const started = lines.filter((l) => l.startsWith('start ')).map((l) => l.slice(6));
    const ended = lines.filter((l) => l.startsWith('end ')).map((l) => l.slice(4));
    expect(ended.sort()).toEqual(started.sort());
    const startsAfterSignal = lines.slice(sigtermAt).filter((l) => l.startsWith('start '));
    // a start line already on its way when the signal was sent may land after it; none later than the drain
    expect(startsAfterSignal.length).toBeLessThanOrEqual(2);
    expect(lines.at(-1)).toBe('stopped');
    expect(started.length).toBeLessThan(6);
  });
});
