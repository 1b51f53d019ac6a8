/**
 * Failures named, on the node tier: a PostgresCluster whose pod cannot be scheduled, or whose
 * server refuses its configuration and stops again and again, says so in Ready=False (the
 * scheduler's and PostgreSQL's own words) within a minute — never "initialising" forever — and
 * kstatus reads it as not converged.
 */
import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient } from '@steward/kube';
import { eventually, gitOpsReading, installCRDs, repoRoot } from '@steward/testing';
import { acquireNodeTier, localImages, type NodeTier } from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresClusterController } from '../src/index.js';

const Kind = PostgresCluster.resourceType;

let tier: NodeTier;
let admin: KubeClient;
let ns = '';
let manager: Manager;

beforeAll(async () => {
  tier = await acquireNodeTier();
  const images = await localImages('postgres-17');
  for (const image of Object.values(images)) await tier.importImage(image);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts/postgres-cluster-controller/crds'));
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'test-admin' });
  ns = await tier.createNamespace('pgc-failures');
  manager = new Manager({ kubeConfig: tier.kubeConfig, name: 'postgres-cluster-controller' });
  postgresClusterController(manager, {
    selection: { namespace: ns },
    pollIntervalMs: 1000,
    busyPollIntervalMs: 500,
  });
  manager.start().catch(() => undefined);
}, 600_000);
afterAll(async () => {
  await manager?.stop();
  await admin?.close();
  await tier?.release();
});

const create = (name: string, spec: PostgresClusterSpec) =>
  admin.create<PostgresCluster>(Kind, {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name, namespace: ns },
    spec,
  } as PostgresCluster);

/** Waits (at most a minute) for Ready=False with one of `reasons`, and returns the object. */
const named = (name: string, reasons: string[]) =>
  eventually(
    async () => {
      const obj = await admin.get<PostgresCluster>(Kind, name, ns);
      const cond = findCondition(obj.status?.conditions, 'Ready');
      return cond?.status === 'False' && reasons.includes(cond.reason) ? obj : undefined;
    },
    { description: `${name} Ready=False ${reasons.join(' or ')}`, timeoutMs: 60_000 },
  );

describe('failures named on the node tier (PostgresCluster)', () => {
  it('a pod no node can hold: Unschedulable, with the scheduler’s message', async () => {
    await create('huge', {
      version: '17',
      resources: { requests: { cpu: '512', memory: '256Mi' } },
    } as PostgresClusterSpec);
    const obj = await named('huge', ['Unschedulable']);
    expect(findCondition(obj.status?.conditions, 'Ready')!.message).toMatch(
      /^pod huge-0 cannot be scheduled: 0\/\d+ nodes are available: .*Insufficient cpu/,
    );
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });

  it('a setting PostgreSQL refuses: the server’s own error, not "initialising"', async () => {
    await create('refused', {
      version: '17',
      parameters: { work_mem: 'lots' },
    } as PostgresClusterSpec);
    const obj = await named('refused', ['CrashLooping', 'InvalidParameters']);
    const ready = findCondition(obj.status?.conditions, 'Ready')!;
    expect(ready.message).toContain('work_mem');
    expect(findCondition(obj.status?.conditions, 'Degraded')).toMatchObject({ status: 'True' });
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });
});
