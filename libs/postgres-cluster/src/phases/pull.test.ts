import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { StatefulSets } from '@steward/kube';
import { type ImagePull } from '@steward/workload';
import { describe, expect, it } from 'vitest';
import { type UpgradeStepInput } from '../upgrade/upgrade.js';
import { desiredChildren } from './children.js';
import { type Context, type PhaseEnv } from './env.js';
import { planTopology } from './topology.js';
import { upgradePhase } from './upgrade.js';

/** How each major's image is pulled reaches the upgrade's Job and the upgrade's second set. */

const old: ImagePull = { policy: 'IfNotPresent', secrets: ['regcred'] };
const next: ImagePull = { policy: 'Always', secrets: ['regcred'] };

const PRE = new Set(['StoppingWrites', 'Provisioning', 'Restoring']);
const upgrading = (phase: string): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'db', namespace: 'shop', uid: 'u1', generation: 2 },
    spec: { version: '17', replicas: 2 },
    status: {
      version: PRE.has(phase) ? '16' : '17',
      instanceSet: PRE.has(phase) ? 'db' : 'db-v17',
      upgrade: {
        phase,
        from: '16',
        to: '17',
        fromSet: 'db',
        toSet: 'db-v17',
        fromImage: 'pg:16',
        toImage: 'pg:17',
        fromReplicas: 2,
      },
    },
  }) as unknown as PostgresCluster;

type Rendered = {
  metadata: { name: string };
  spec: {
    template: {
      spec: { imagePullSecrets?: { name: string }[]; containers: { imagePullPolicy: string }[] };
    };
  };
};

/** The StatefulSets desired for `obj`, by name: [pull policy, pull secrets]. */
function sets(obj: PostgresCluster, resolved: ImagePull, pullOf?: (v: string) => ImagePull) {
  return desiredChildren({
    cluster: obj,
    resolved: { image: 'ignored', pull: resolved, storage: { size: '1Gi' } },
    topology: planTopology(obj, []),
    templateStorage: () => undefined,
    ...(pullOf ? { pullOf } : {}),
  })
    .filter((c) => c.resourceType === StatefulSets)
    .map((c) => {
      const set = c.object as unknown as Rendered;
      const pod = set.spec.template.spec;
      return [
        set.metadata.name,
        pod.containers[0]!.imagePullPolicy,
        (pod.imagePullSecrets ?? []).map((s) => s.name),
      ];
    });
}

describe('the second instance set of a major upgrade', () => {
  const pullOf = (v: string) => (v === '17' ? next : old);
  it('takes its own version’s pull settings: neither set’s template changes at the switch', () => {
    // Before the switch the cluster resolves at 16; after it at 17.
    expect(sets(upgrading('Restoring'), old, pullOf)).toEqual([
      ['db', 'IfNotPresent', ['regcred']],
      ['db-v17', 'Always', ['regcred']],
    ]);
    expect(sets(upgrading('Completing'), next, pullOf)).toEqual([
      ['db-v17', 'Always', ['regcred']],
      ['db', 'IfNotPresent', ['regcred']],
    ]);
  });
  it('without pullOf, as the serving set', () => {
    expect(sets(upgrading('Restoring'), old)).toEqual([
      ['db', 'IfNotPresent', ['regcred']],
      ['db-v17', 'IfNotPresent', ['regcred']],
    ]);
  });
});

describe('upgradePhase', () => {
  const run = async (to: { image: string; pull?: ImagePull } | undefined) => {
    let input: UpgradeStepInput | undefined;
    const env = {
      upgrades: {
        step: (i: UpgradeStepInput) => {
          input = i;
          return Promise.resolve({ active: true });
        },
      },
    } as unknown as PhaseEnv;
    const obj = upgrading('Restoring');
    await upgradePhase(
      env,
      { status: {} } as unknown as Context,
      obj,
      planTopology(obj, []),
      { from: 'pg:16', to },
      [],
      {} as never,
      () => ({ host: 'h', port: 5432, user: 'u', password: 'p' }),
      '1Gi',
    );
    return input!;
  };
  it('hands the target version’s image and pull settings to the upgrade', async () => {
    expect(await run({ image: 'pg:17', pull: next })).toMatchObject({
      fromImage: 'pg:16',
      toImage: 'pg:17',
      toPull: next,
    });
    const refused = await run(undefined);
    expect(refused.toImage).toBeUndefined();
    expect(refused).not.toHaveProperty('toPull');
  });
});
