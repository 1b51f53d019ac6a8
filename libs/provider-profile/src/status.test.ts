import { findCondition } from '@steward/conditions';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import {
  planStatus,
  stateFromCatalogue,
  stateFromCheck,
  stateInUse,
  type ProfileState,
} from './status.js';
import { profileUsage } from './users.js';

const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:05:00Z');

function profile(status?: ProviderProfile['status'], generation = 1): ProviderProfile {
  return {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'prod-aws', generation, resourceVersion: '7', uid: 'u1' },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: 'ops', name: 'aws' } },
    },
    ...(status ? { status } : {}),
  } as ProviderProfile;
}

const verified = stateFromCheck({ ok: true, message: 'RDS answered' }, 2);
const notFound = stateFromCheck(
  { ok: false, reason: 'CredentialsNotFound', message: 'Secret ops/aws does not exist' },
  2,
);
const unreachable = stateFromCheck(
  { ok: false, reason: 'ProviderUnreachable', message: 'ECONNREFUSED', transient: true },
  2,
);

/** The status after `states` were planned and written one after the other. */
function converge(states: [ProfileState, Date][], generation = 1): ProviderProfile {
  let p = profile(undefined, generation);
  for (const [state, now] of states) p = profile(planStatus(p, state, now).status, generation);
  return p;
}

describe('stateFromCheck', () => {
  it.each([
    ['verified credentials', verified, 'True', 'CredentialsVerified', false],
    ['a failure the platform team must fix', notFound, 'False', 'CredentialsNotFound', true],
    ['a transient failure', unreachable, 'False', 'ProviderUnreachable', false],
  ])('maps %s to Ready and Stalled', (_case, state, status, reason, stalled) => {
    expect(state.ready.status).toBe(status);
    expect(state.ready.reason).toBe(reason);
    expect(state.stalled).toBe(stalled);
    expect(state.usedBy).toBe(2);
  });
});

describe('stateFromCatalogue', () => {
  const inCluster = (kubernetes?: NonNullable<ProviderProfile['spec']['kubernetes']>) =>
    ({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'ProviderProfile',
      metadata: { name: 'in-cluster', generation: 1 },
      spec: {
        provider: 'kubernetes',
        namespaceSelector: {},
        ...(kubernetes ? { kubernetes } : {}),
      },
    }) as ProviderProfile;

  it('is Ready CatalogueAccepted, not Stalled, saying what the profile offers', () => {
    const state = stateFromCatalogue(
      inCluster({
        sizeClasses: {
          small: { cpu: '250m', memory: '512Mi' },
          large: { cpu: '2', memory: '8Gi', storage: '50Gi' },
        },
        images: [
          { engine: 'valkey', version: '8.1', image: 'valkey/valkey:8.1' },
          { engine: 'redis', version: '8.0', image: 'redis:8.0' },
          { engine: 'redis', version: '7.0', image: 'redis:7.0' },
        ],
        storageClassNames: ['fast'],
        maxReplicas: 5,
        maxStorage: '100Gi',
        requirePersistence: true,
      }),
      4,
    );
    expect(state).toEqual({
      ready: {
        status: 'True',
        reason: 'CatalogueAccepted',
        message:
          'in-cluster workloads, no credentials to check: images redis 7.0, 8.0; valkey 8.1; size classes large, small; StorageClasses fast, at most 5 replicas, volumes up to 100Gi, persistence required',
      },
      stalled: false,
      usedBy: 4,
    });
  });

  it('names the spread it requires and the pull secrets', () => {
    const state = stateFromCatalogue(
      inCluster({
        images: [{ engine: 'postgres', version: '17', image: 'postgres:17' }],
        requireSpread: { nodes: 'Preferred', zones: 'Required' },
        imagePullSecrets: [{ name: 'regcred' }],
      }),
      0,
    );
    expect(state.ready.message).toBe(
      'in-cluster workloads, no credentials to check: images postgres 17; size classes none; any StorageClass, spread over nodes preferred, spread over zones required, images pulled with Secrets regcred',
    );
  });

  it('says so when there are no size classes or limits', () => {
    const state = stateFromCatalogue(
      inCluster({
        images: [{ engine: 'postgres', version: '17', image: 'postgres:17' }],
        requirePersistence: false,
      }),
      0,
    );
    expect(state.ready.message).toBe(
      'in-cluster workloads, no credentials to check: images postgres 17; size classes none; any StorageClass',
    );
  });

  it('is InvalidProviderProfile and Stalled without spec.kubernetes (which admission refuses)', () => {
    expect(stateFromCatalogue(inCluster(), 1)).toMatchObject({
      ready: { status: 'False', reason: 'InvalidProviderProfile' },
      stalled: true,
      usedBy: 1,
    });
  });
});

describe('planStatus', () => {
  it('writes Ready, usedBy and observedGeneration on a new profile, stamped with its generation', () => {
    const plan = planStatus(profile(undefined, 3), verified, t0);
    expect(plan.changed).toBe(true);
    expect(plan.readyChanged).toBe(true);
    expect(plan.status).toEqual({
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'CredentialsVerified',
          message: 'RDS answered',
          lastTransitionTime: '2026-01-01T00:00:00Z',
          observedGeneration: 3,
        },
      ],
      usedBy: 2,
      observedGeneration: 3,
    });
  });

  it('changes nothing when the state is the one already recorded (zero writes when converged)', () => {
    for (const state of [verified, notFound, unreachable]) {
      const p = converge([[state, t0]]);
      const plan = planStatus(p, state, t1);
      expect(plan.changed).toBe(false);
      expect(plan.readyChanged).toBe(false);
    }
  });

  it('writes a new usedBy without touching the conditions or their times', () => {
    const p = converge([[verified, t0]]);
    const plan = planStatus(p, { ...verified, usedBy: 5 }, t1);
    expect(plan.changed).toBe(true);
    expect(plan.readyChanged).toBe(false);
    expect(plan.status.usedBy).toBe(5);
    expect(plan.status.conditions).toEqual(p.status?.conditions);
  });

  it('sets Stalled with Ready for a failure the user must fix and removes it once fixed', () => {
    const stalled = converge([[notFound, t0]]);
    expect(findCondition(stalled.status?.conditions, 'Stalled')).toMatchObject({
      status: 'True',
      reason: 'CredentialsNotFound',
      observedGeneration: 1,
    });
    const fixed = planStatus(stalled, verified, t1).status;
    expect(findCondition(fixed.conditions, 'Stalled')).toBeUndefined();
    expect(findCondition(fixed.conditions, 'Ready')).toMatchObject({
      status: 'True',
      lastTransitionTime: '2026-01-01T00:05:00Z',
    });
  });

  it('keeps lastTransitionTime when only the reason or message changes', () => {
    const p = converge([[notFound, t0]]);
    const plan = planStatus(p, unreachable, t1);
    expect(plan.readyChanged).toBe(true);
    expect(findCondition(plan.status.conditions, 'Ready')).toMatchObject({
      reason: 'ProviderUnreachable',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    // a transient failure is not Stalled: the controller retries it
    expect(findCondition(plan.status.conditions, 'Stalled')).toBeUndefined();
  });

  it('stamps the new generation after a spec change, even with the same outcome', () => {
    const p = profile(converge([[verified, t0]]).status, 2);
    const plan = planStatus(p, verified, t1);
    expect(plan.changed).toBe(true);
    expect(plan.readyChanged).toBe(false);
    expect(plan.status.observedGeneration).toBe(2);
    expect(findCondition(plan.status.conditions, 'Ready')?.observedGeneration).toBe(2);
    expect(findCondition(plan.status.conditions, 'Ready')?.lastTransitionTime).toBe(
      '2026-01-01T00:00:00Z',
    );
  });

  it('keeps conditions of other types', () => {
    const p = profile({
      conditions: [
        {
          type: 'Audited',
          status: 'True',
          reason: 'Ok',
          message: '',
          lastTransitionTime: '2025-01-01T00:00:00Z',
        },
      ],
    });
    const plan = planStatus(p, verified, t0);
    expect(plan.status.conditions?.map((c) => c.type)).toEqual(['Audited', 'Ready']);
  });
});

describe('stateInUse', () => {
  it('says how many use the profile and names a few, and is not Stalled', () => {
    const usage = profileUsage(
      ['e', 'd', 'c', 'b', 'a'].map((name) => ({
        kind: 'DatabaseInstance',
        namespace: 'shop',
        name,
      })),
    );
    const state = stateInUse('prod-aws', usage);
    expect(state).toEqual({
      ready: {
        status: 'False',
        reason: 'InUse',
        message:
          'ProviderProfile prod-aws is being deleted but 5 resources reference it: DatabaseInstance shop/a, DatabaseInstance shop/b, DatabaseInstance shop/c and 2 more; it is deleted once nothing references it',
      },
      stalled: false,
      usedBy: 5,
    });
  });
});
