// spec.replication.sync at admission (the real API server, the CRD this library generates): the
// quorum's number and durability, their defaults, and the rules that tie them to mode and replicas.
import { PostgresCluster } from '../src/index.js';
import { isInvalid, KubeClient } from '@steward/kube';
import { controlPlaneSuite, customObject, refusalOf } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const namespace = 'quorums';
const Kind = PostgresCluster.resourceType;

const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { generatedCrds: [PostgresCluster.crd()], namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'postgres-cluster-api-test' }),
);

let probes = 0;
const cluster = (spec: Record<string, unknown>) =>
  customObject<PostgresCluster>(PostgresCluster, { name: `q-${++probes}`, namespace }, spec);
const admitted = (spec: Record<string, unknown>) =>
  api.client.create<PostgresCluster>(Kind, cluster({ version: '17', ...spec }), { dryRun: true });
const refusal = (spec: Record<string, unknown>) =>
  refusalOf(
    api.client.create(Kind, cluster({ version: '17', ...spec }), { dryRun: true }),
    isInvalid,
  );

describe('spec.replication.sync at admission', () => {
  it('defaults the quorum to ANY 1, durability required; mode sync alone is unchanged', async () => {
    const synced = await admitted({ replicas: 3, replication: { mode: 'sync', sync: {} } });
    expect(synced.spec.replication).toEqual({
      mode: 'sync',
      sync: { number: 1, durability: 'required' },
    });
    const plain = await admitted({ replicas: 2, replication: { mode: 'sync' } });
    expect(plain.spec.replication).toEqual({ mode: 'sync' });
  });

  it.each([
    [3, 2, 'required'],
    [3, 1, 'preferred'],
    [5, 4, 'preferred'],
  ])('takes %i replicas with ANY %i, %s', async (replicas, number, durability) => {
    const created = await admitted({
      replicas,
      replication: { mode: 'sync', sync: { number, durability } },
    });
    expect(created.spec.replication?.sync).toEqual({ number, durability });
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'more synchronous standbys than there are standbys',
      { replicas: 3, replication: { mode: 'sync', sync: { number: 3 } } },
      'spec.replication.sync.number may be at most spec.replicas − 1',
    ],
    [
      'a quorum with async replication',
      { replicas: 3, replication: { mode: 'async', sync: { number: 1 } } },
      'spec.replication.sync applies to spec.replication.mode sync only',
    ],
    [
      'a quorum without a mode (async by default)',
      { replicas: 3, replication: { sync: {} } },
      'spec.replication.sync applies to spec.replication.mode sync only',
    ],
    [
      'a quorum of 0',
      { replicas: 3, replication: { mode: 'sync', sync: { number: 0 } } },
      'spec.replication.sync.number',
    ],
    [
      'an unknown durability',
      { replicas: 3, replication: { mode: 'sync', sync: { durability: 'best-effort' } } },
      'Unsupported value: "best-effort"',
    ],
  ])('refuses %s', async (_, spec, message) => {
    expect(await refusal(spec)).toContain(message);
  });

  it('refuses a scale-down below the quorum, naming the rule', async () => {
    const created = await api.client.create<PostgresCluster>(
      Kind,
      cluster({
        version: '17',
        replicas: 3,
        replication: { mode: 'sync', sync: { number: 2 } },
      }),
    );
    const refused = await refusalOf(
      api.client.mergePatch(Kind, created.metadata.name!, namespace, { spec: { replicas: 2 } }),
      isInvalid,
    );
    expect(refused).toContain('spec.replication.sync.number may be at most spec.replicas − 1');
  });
});
