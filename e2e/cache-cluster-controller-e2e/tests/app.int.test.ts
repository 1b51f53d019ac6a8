import { findCondition } from '@steward/conditions';
import { CacheCluster } from '@steward/cache-cluster-api';
import { Events, KubeClient, Namespaces, type KubeObject } from '@steward/kube';
import {
  bindChartRbac,
  defaultReleaseNamespace as releaseNamespace,
  eventually,
  gitOpsReading,
  renderChart,
  repoRoot,
  startControllerProcess,
  startControlPlane,
  type ControlPlane,
  type ControllerProcess,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const Kind = CacheCluster.resourceType;
const ns = 'team-a';

interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { name?: string };
}

/**
 * The cache-cluster-controller's bundle as a process, under exactly the RBAC its chart renders, with leader
 * election, against a real API server.
 */
describe('the cache-cluster-controller process', () => {
  let plane: ControlPlane;
  let admin: KubeClient;
  let controller: ControllerProcess | undefined;

  beforeAll(async () => {
    const chart = join(repoRoot(), 'charts', 'cache-cluster-controller');
    plane = await startControlPlane({ crds: [join(chart, 'crds')] });
    admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const identity = await bindChartRbac(plane, await renderChart(chart), releaseNamespace);
    controller = await startControllerProcess({
      app: 'cache-cluster-controller',
      kubeConfig: identity,
      env: { STEWARD_LEADER_ELECT: 'true', POD_NAMESPACE: releaseNamespace },
    });
    await controller.ready();
  });
  afterAll(async () => {
    await controller?.kill();
    await admin?.close();
    await plane?.stop();
  });

  const create = (name: string, spec: CacheCluster['spec']) =>
    admin.create<CacheCluster>(Kind, {
      apiVersion: CacheCluster.apiVersion,
      kind: 'CacheCluster',
      metadata: { name, namespace: ns },
      spec,
    } as CacheCluster);
  const withReadyReason = (name: string, reason: string) =>
    eventually(
      async () => {
        const obj = await admin.get<CacheCluster>(Kind, name, ns);
        return findCondition(obj.status?.conditions, 'Ready')?.reason === reason ? obj : undefined;
      },
      { description: `${name} Ready reason ${reason}`, timeoutMs: 60_000 },
    );

  it('makes a valid CacheCluster Ready (kstatus: Current)', async () => {
    await create('valid', { parameters: { description: 'made by the e2e suite' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter with a condition (kstatus: Failed) and a Warning Event', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const obj = await withReadyReason('typo', 'UnknownParameter');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    const event = await eventually(
      async () =>
        (await admin.list<Event>(Events, { namespace: ns })).items.find(
          (e) => e.regarding?.name === 'typo' && e.reason === 'UnknownParameter',
        ),
      { description: 'a Warning Event about typo' },
    );
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.note).toContain('ownr');
  });

  it('stops cleanly on SIGTERM', async () => {
    expect(await controller!.stop()).toBe(0);
    controller = undefined;
  });
});
