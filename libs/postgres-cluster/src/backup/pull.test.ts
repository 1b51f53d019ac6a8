import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { backupsPhase } from '../phases/backups.js';
import { beforeDelete, finalBackupPull } from '../phases/deletion.js';
import { type Cluster, type Context, type PhaseEnv } from '../phases/env.js';
import { resolvePostgres } from '../resolve.js';
import { Backups } from './reconcile.js';
import { type BackupStore } from './store.js';

/**
 * The Jobs of a cluster whose profile has pull secrets (backup, restore rehearsal, final backup)
 * pull the instances' image as the instances do: the profile's imagePullSecrets and the
 * imagePullPolicy of the version's catalogue entry.
 */

const profile = {
  apiVersion: 'steward.dev/v1alpha1',
  kind: 'ProviderProfile',
  metadata: { name: 'production' },
  spec: {
    provider: 'kubernetes',
    namespaces: ['shop'],
    kubernetes: {
      images: [
        { engine: 'postgres', version: '16', image: 'registry.example/postgres:16.9' },
        {
          engine: 'postgres',
          version: '17',
          image: 'registry.example/postgres:17.5',
          imagePullPolicy: 'Always',
        },
      ],
      imagePullSecrets: [{ name: 'regcred' }],
      backup: { allowWorkloadDestinations: true },
    },
    guardrails: {},
  },
} as unknown as ProviderProfile;

const backup = {
  id: '20261201T030000Z',
  startedAt: '2026-12-01T03:00:00Z',
  completedAt: '2026-12-01T03:01:00Z',
  sizeBytes: 1000,
  startLsn: '0/2000028',
  stopLsn: '0/2000100',
  timeline: 1,
  systemIdentifier: '7001',
  serverVersion: 170005,
};

const cluster = (over: Partial<PostgresCluster['metadata']> = {}): Cluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: {
      name: 'orders',
      namespace: 'shop',
      uid: 'u1',
      creationTimestamp: '2026-12-01T00:00:00Z',
      ...over,
    },
    spec: {
      version: '17',
      replicas: 3,
      providerProfileRef: { name: 'production' },
      deletionPolicy: 'Delete',
      backup: {
        destination: { bucket: 'backups', credentialsSecretRef: { name: 'creds' } },
        verify: {},
      },
    },
    status: {
      version: '17',
      image: 'registry.example/postgres:17.5',
      primary: 'orders-0',
      systemIdentifier: '7001',
    },
  }) as unknown as Cluster;

interface PodSpec {
  imagePullSecrets?: { name: string }[];
  containers: { image: string; imagePullPolicy: string }[];
}
interface CreatedJob {
  metadata: { name: string; annotations: Record<string, string> };
  spec: { template: { spec: PodSpec } };
}

/** Backups over a fake API (Jobs created are kept) and a bucket holding `backup`. */
function world() {
  const created: CreatedJob[] = [];
  const store: BackupStore = {
    systems: () => Promise.resolve(['7001']),
    catalogue: () => Promise.resolve({ backups: [backup], incomplete: [], wal: [] }),
    remove: () => Promise.resolve(0),
    close: () => undefined,
  };
  const backups = new Backups({
    client: {
      get: () =>
        Promise.resolve({
          data: {
            AWS_ACCESS_KEY_ID: Buffer.from('id').toString('base64'),
            AWS_SECRET_ACCESS_KEY: Buffer.from('secret').toString('base64'),
          },
        }),
      create: (_type: unknown, obj: CreatedJob) => {
        created.push(obj);
        return Promise.resolve(obj);
      },
      list: () => Promise.resolve({ items: [] }),
    } as never,
    jobs: () => [],
    store: () => store,
    now: () => new Date('2026-12-02T12:00:00Z'),
    emit: () => undefined,
  });
  return { created, backups };
}

const podOf = (job: CreatedJob) => job.spec.template.spec;

describe('the Jobs of a cluster whose profile has pull secrets', () => {
  it('backup and restore rehearsal: the profile’s pull secrets and the entry’s pull policy', async () => {
    const { created, backups } = world();
    const obj = cluster();
    const resolution = resolvePostgres(obj, profile, '17');
    if (!resolution.allowed) throw new Error(resolution.message);
    await backupsPhase(
      { backups } as unknown as PhaseEnv,
      {} as Context,
      obj,
      resolution.resolved,
      [{ name: 'orders-0', ip: '10.0.0.1' } as never],
      { primaryServing: true } as never,
      [],
    );
    expect(
      created.map((j) => j.metadata.annotations['postgres.steward.dev/backup-reason']),
    ).toEqual(['Scheduled', undefined]);
    expect(created.map((j) => j.metadata.name)).toEqual([
      expect.stringMatching(/^orders-bk-/),
      expect.stringMatching(/^orders-vf-/),
    ]);
    for (const job of created) {
      expect(podOf(job).imagePullSecrets).toEqual([{ name: 'regcred' }]);
      expect(podOf(job).containers[0]).toMatchObject({
        image: 'registry.example/postgres:17.5',
        imagePullPolicy: 'Always',
      });
    }
  });

  it('without a profile: IfNotPresent and no pull secrets', async () => {
    const { created, backups } = world();
    await backupsPhase(
      { backups } as unknown as PhaseEnv,
      {} as Context,
      cluster(),
      { image: 'localhost/postgres:17', storage: { size: '1Gi' } },
      [{ name: 'orders-0', ip: '10.0.0.1' } as never],
      { primaryServing: true } as never,
      [],
    );
    expect(created).toHaveLength(2);
    for (const job of created) {
      expect(podOf(job)).not.toHaveProperty('imagePullSecrets');
      expect(podOf(job).containers[0]!.imagePullPolicy).toBe('IfNotPresent');
    }
  });

  it('the final backup before a deletion pulls the running image as the instances did', async () => {
    const { created, backups } = world();
    const primary = {
      metadata: { name: 'orders-0', labels: { 'postgres.steward.dev/role': 'primary' } },
      status: { podIP: '10.0.0.1', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const writes: unknown[] = [];
    const outcome = await beforeDelete(
      {
        backups,
        pods: () => [primary],
        claims: () => [],
        emit: () => undefined,
      } as unknown as PhaseEnv,
      { status: { write: (w: unknown) => writes.push(w) } } as unknown as Context,
      cluster({ deletionTimestamp: '2026-12-02T11:00:00Z' }),
      profile,
    );
    expect(outcome).toEqual({ done: false, requeueAfter: 5000 });
    expect(created).toHaveLength(1);
    expect(created[0]!.metadata.annotations['postgres.steward.dev/backup-reason']).toBe('Final');
    expect(podOf(created[0]!).imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(podOf(created[0]!).containers[0]!.imagePullPolicy).toBe('Always');
  });
});

describe('finalBackupPull', () => {
  it('the entry of the running image, else of the running version; none without a profile', () => {
    const running = (image: string, version: string) =>
      ({ ...cluster(), status: { image, version } }) as Cluster;
    expect(finalBackupPull(running('registry.example/postgres:17.5', '16'), profile)).toEqual({
      policy: 'Always',
      secrets: ['regcred'],
    });
    expect(finalBackupPull(running('registry.example/postgres:16.8', '16'), profile)).toEqual({
      policy: 'IfNotPresent',
      secrets: ['regcred'],
    });
    expect(finalBackupPull(running('elsewhere/postgres:17', '17'), profile)).toEqual({
      policy: 'Always',
      secrets: ['regcred'],
    });
    expect(finalBackupPull(cluster(), undefined)).toBeUndefined();
  });
});
