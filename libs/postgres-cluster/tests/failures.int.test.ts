/**
 * Failures named, on the node tier: a PostgresCluster whose pod cannot be scheduled, or whose
 * server refuses its configuration and stops again and again, says so in Ready=False (the
 * scheduler's and PostgreSQL's own words) within a minute — never "initialising" forever — and
 * kstatus reads it as not converged.
 */
import { findCondition } from '@steward/conditions';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { Pods, StatefulSets, type KubeObject } from '@steward/kube';
import { eventually, gitOpsReading } from '@steward/testing';
import { controllerOnNodeTier, noNodeCanHold } from '@steward/testing-node-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresClusters } from './workload-under-test.js';

const Kind = PostgresCluster.resourceType;

const suite = controllerOnNodeTier({ beforeAll, afterAll }, postgresClusters, {
  images: ['postgres-17'],
  namespace: 'pgc-failures',
  busyPollIntervalMs: 500,
});
const { create, notReady } = suite;

describe('failures named on the node tier (PostgresCluster)', () => {
  it('a pod no node can hold: Unschedulable, with the scheduler’s message', async () => {
    await create('huge', {
      version: '17',
      resources: noNodeCanHold('256Mi'),
    } as PostgresClusterSpec);
    const obj = await notReady('huge', ['Unschedulable']);
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
    const obj = await notReady('refused', ['CrashLooping', 'InvalidParameters']);
    const ready = findCondition(obj.status?.conditions, 'Ready')!;
    expect(ready.message).toContain('work_mem');
    expect(findCondition(obj.status?.conditions, 'Degraded')).toMatchObject({ status: 'True' });
    expect((await gitOpsReading(obj)).kstatus).not.toBe('Current');
  });

  it('a parameter change the server would refuse is checked first: not rolled out, said in Ready=False; a valid one is', async () => {
    const { admin, namespace: ns } = suite;
    await create('tuned', { version: '17' } as PostgresClusterSpec);
    const ready = await suite.until(
      'tuned',
      (obj) => findCondition(obj.status?.conditions, 'Ready')?.status === 'True',
      'tuned Ready',
      180_000,
    );
    const podBefore = await admin.get<KubeObject>(Pods, `tuned-0`, ns);
    const stsBefore = await admin.get<StatefulSetLike>(StatefulSets, 'tuned', ns);
    await admin.mergePatch(Kind, 'tuned', ns, { spec: { parameters: { work_mem: 'lots' } } });
    const refused = await notReady('tuned', ['InvalidParameters']);
    expect(findCondition(refused.status?.conditions, 'Ready')!.message).toBe(
      'spec.parameters not applied (the instances keep their settings): work_mem takes a whole number with an optional unit (B, kB, MB, GB, TB) in 64..2147483647 kB, not "lots"',
    );
    expect(refused.metadata.generation).toBeGreaterThan(ready.metadata.generation!);
    expect((await gitOpsReading(refused)).kstatus).not.toBe('Current');
    // Nothing rolled: the pod template is the same, the pod the same.
    const sts = await admin.get<StatefulSetLike>(StatefulSets, 'tuned', ns);
    expect(sts.spec.template.metadata.annotations).toEqual(
      stsBefore.spec.template.metadata.annotations,
    );
    expect((await admin.get<KubeObject>(Pods, 'tuned-0', ns)).metadata.uid).toBe(
      podBefore.metadata.uid,
    );
    // A valid value is applied (the instances restart with it) and the cluster converges.
    await admin.mergePatch(Kind, 'tuned', ns, { spec: { parameters: { work_mem: '8MB' } } });
    await eventually(
      async () => {
        const obj = await admin.get<PostgresCluster>(Kind, 'tuned', ns);
        const cond = findCondition(obj.status?.conditions, 'Ready');
        const template = (await admin.get<StatefulSetLike>(StatefulSets, 'tuned', ns)).spec.template
          .metadata.annotations;
        return cond?.status === 'True' &&
          cond.observedGeneration === obj.metadata.generation &&
          JSON.stringify(template) !== JSON.stringify(stsBefore.spec.template.metadata.annotations)
          ? obj
          : undefined;
      },
      { description: 'tuned Ready with work_mem 8MB', timeoutMs: 180_000 },
    );
  });
});

type StatefulSetLike = KubeObject & {
  spec: { template: { metadata: { annotations?: Record<string, string> } } };
};
