import { findCondition } from '@steward/conditions';
import { Manager } from '@steward/controller';
import { CacheCluster } from '@steward/cache-cluster-api';
import { KubeClient, Namespaces } from '@steward/kube';
import {
  eventually,
  gitOpsReading,
  repoRoot,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheClusterController } from '../src/index.js';

const Kind = CacheCluster.resourceType;

let plane: ControlPlane;
let admin: KubeClient;
let ns = '';
let testNumber = 0;
const running: Manager[] = [];

beforeAll(async () => {
  // The CRD exactly as the chart ships it (tools/scripts/generate-crds.ts).
  plane = await startControlPlane({
    crds: [join(repoRoot(), 'charts/cache-cluster-controller/crds')],
  });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
beforeEach(async () => {
  ns = `cc-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const manager = new Manager({ kubeConfig: plane.kubeConfig, name: 'cache-cluster-controller' });
  cacheClusterController(manager, { selection: { namespace: ns } });
  manager.start().catch(() => undefined);
  running.push(manager);
});
afterEach(async () => {
  for (const manager of running.splice(0)) await manager.stop();
});
afterAll(async () => {
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
const read = (name: string) => admin.get<CacheCluster>(Kind, name, ns);
/** The object once its `Ready` condition has `reason` at the object's current generation. */
const withReadyReason = (name: string, reason: string) =>
  eventually(
    async () => {
      const obj = await read(name);
      const ready = findCondition(obj.status?.conditions, 'Ready');
      return ready?.reason === reason && ready.observedGeneration === obj.metadata.generation
        ? obj
        : undefined;
    },
    { description: `${name} Ready reason ${reason}`, timeoutMs: 60_000 },
  );

describe('the CacheCluster controller, on a real API server', () => {
  it('makes a valid CacheCluster Ready (Accepted), observed at its generation: kstatus reads Current', async () => {
    await create('valid', { parameters: { owner: 'team-a' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(findCondition(obj.status?.conditions, 'Ready')).toMatchObject({
      status: 'True',
      message: 'the spec is valid',
    });
    expect(obj.spec.deletionPolicy).toBe('Retain');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter as a terminal UnknownParameter (kstatus: Failed), and accepts the fixed spec', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const refused = await withReadyReason('typo', 'UnknownParameter');
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      message:
        'spec.parameters has keys the CacheCluster controller does not know: ownr (known: description, owner)',
    });
    expect(findCondition(refused.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(refused)).toMatchObject({ kstatus: 'Failed', unobserved: [] });

    await admin.mergePatch(Kind, 'typo', ns, {
      spec: { parameters: { ownr: null, owner: 'team-a' } },
    });
    const fixed = await withReadyReason('typo', 'Accepted');
    expect(fixed.metadata.generation).toBe(2);
    expect(findCondition(fixed.status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(fixed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });
});
