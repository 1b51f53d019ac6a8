/**
 * PostgresCluster under an enforced NetworkPolicy: the multi-node tier with kube-network-policies
 * on every node, the postgres-cluster-controller as it ships (its image, its chart `helm
 * install`ed, its own NetworkPolicy on), a 3-instance cluster whose `spec.clients` admits the pods
 * labelled `app: orders` of its namespace:
 *
 * - the controller still reaches its instances, the standbys still replicate, and the first base
 *   backup's Job still reaches the primary (and the bucket): Ready, 3 of 3, a backup recorded;
 * - a pod inside `spec.clients` connects through the read-write Service; one outside it — in the
 *   same namespace without the label, or with the label in another namespace — cannot.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import { KubeClient, Services, type KubeObject } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, installCRDs, repoRoot } from '@steward/testing';
import { installControllerChart, type InstalledControllerChart } from '@steward/testing-charts';
import {
  acquireNodeTier,
  appImage,
  localImages,
  type LocalImage,
  type MultiNodeTier,
} from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  backupBucket,
  Kind,
  long,
  postgresHelpers,
  workloadBackupsProfile,
  type SuiteContext,
} from './postgres.js';

const app = 'postgres-cluster-controller';
const name = 'guarded';
const bucket = 'policy-backups';

let tier: MultiNodeTier;
let admin: KubeClient;
let core: CoreV1Api;
let chart: InstalledControllerChart | undefined;
let postgres: LocalImage;
let otherNs = '';
let backups: Awaited<ReturnType<typeof backupBucket>> | undefined;
let profile = '';
const ctx = {} as SuiteContext;
const { read } = postgresHelpers(ctx);

beforeAll(async () => {
  tier = await acquireNodeTier({ nodes: 3, networkPolicy: true });
  const image = await appImage(app);
  await tier.importImage(image);
  const images = await localImages('postgres-17');
  for (const i of Object.values(images)) await tier.importImage(i);
  postgres = Object.values(images)[0]!;
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  core = tier.kubeConfig.makeApiClient(CoreV1Api);
  Object.assign(ctx, { admin, ns: await tier.createNamespace('pgc-policy') });
  otherNs = await tier.createNamespace('pgc-policy-other');
  backups = await backupBucket(tier, admin, ctx.ns, bucket);
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts', app, 'crds'));
  // The controller connects only to backup endpoints a profile names (moto's, here).
  profile = await workloadBackupsProfile(
    admin,
    `${ctx.ns}-backups`,
    ctx.ns,
    backups.moto.endpoint,
    [{ version: '17', image: postgres.ref }],
  );
  chart = await installControllerChart(tier, {
    chart: app,
    image,
    namespace: await tier.createNamespace('pgc-policy-sys'),
    values: {
      watchNamespaces: [ctx.ns],
      defaultProviderProfile: profile,
      networkPolicy: { enabled: true },
    },
  });
}, 900_000);

afterAll(async () => {
  if (admin) await admin.delete(Kind, name, ctx.ns).catch(() => undefined);
  await chart?.uninstall().catch(() => undefined);
  await backups?.moto.stop().catch(() => undefined);
  if (admin && profile)
    await admin.delete(ProviderProfile.resourceType, profile).catch(() => undefined);
  await admin?.close();
  await tier?.release();
}, 180_000);

const spec = (): PostgresClusterSpec => ({
  version: '17',
  replicas: 3,
  resources: { requests: { cpu: '50m', memory: '128Mi' }, limits: { memory: '256Mi' } },
  storage: { size: '1Gi' },
  clients: { podSelector: { app: 'orders' } },
  backup: {
    destination: {
      bucket,
      endpoint: backups!.moto.endpoint,
      credentialsSecretRef: { name: 'backup-credentials' },
    },
    schedule: '0 0 1 1 *',
    retentionDays: 2,
  },
  deletionPolicy: 'Delete',
});

/**
 * A pod that asks the read-write Service whether PostgreSQL accepts connections (`pg_isready`,
 * 5 s) and exits with its answer: 0 accepting, 2 no response. Resolves to the exit code.
 */
async function probeFrom(
  namespace: string,
  pod: string,
  labels: Record<string, string>,
): Promise<number> {
  const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ctx.ns,
  );
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: pod, labels },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 999,
          seccompProfile: { type: 'RuntimeDefault' },
        },
        containers: [
          {
            name: 'probe',
            image: postgres.ref,
            imagePullPolicy: 'IfNotPresent',
            command: ['pg_isready', '-h', rw.spec.clusterIP, '-p', '5432', '-t', '5'],
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
      },
    },
  });
  return eventually(
    async () => {
      const p = await core.readNamespacedPod({ namespace, name: pod });
      const done = p.status?.containerStatuses?.[0]?.state?.terminated;
      return done ? done.exitCode : undefined;
    },
    { description: `${namespace}/${pod} answered`, timeoutMs: 120_000 },
  );
}

describe('PostgresCluster under an enforced NetworkPolicy (three nodes, kube-network-policies)', () => {
  it('works as before: the controller reaches its instances, standbys replicate, the backup Job reaches the primary', async () => {
    await admin.create(Kind, {
      apiVersion: 'postgres.steward.dev/v1alpha1',
      kind: 'PostgresCluster',
      metadata: { name, namespace: ctx.ns },
      spec: spec(),
    } as KubeObject);
    const ready = await chart!.until(
      async () => {
        const c = await read(name);
        return findCondition(c.status?.conditions, 'Ready')?.status === 'True' &&
          c.status?.readyReplicas === 3 &&
          (c.status.instances ?? []).filter((i) => i.role === 'standby' && i.ready).length === 2
          ? c
          : undefined;
      },
      { description: `${name} Ready with two streaming standbys`, ...long },
    );
    expect(ready.status?.primary).toBeDefined();
    const backedUp = await chart!.until(
      async () => {
        const c = await read(name);
        return c.status?.backup?.lastSuccessful ? c : undefined;
      },
      { description: `${name}: the first base backup`, ...long },
    );
    expect(backedUp.status?.backup?.lastSuccessful?.id).toBeTruthy();
  }, 900_000);

  it('admits a pod of spec.clients, and refuses one outside it (same namespace without the label, or the label in another namespace)', async () => {
    expect(await probeFrom(ctx.ns, 'orders-app', { app: 'orders' })).toBe(0);
    expect(await probeFrom(ctx.ns, 'stranger', { app: 'stranger' })).toBe(2);
    expect(await probeFrom(otherNs, 'orders-elsewhere', { app: 'orders' })).toBe(2);
  }, 600_000);
});
