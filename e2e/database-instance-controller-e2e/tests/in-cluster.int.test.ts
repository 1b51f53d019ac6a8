import { DescribeDBInstancesCommand, type RDSClient } from '@aws-sdk/client-rds';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { CustomResourceDefinitions, KubeClient, Namespaces, Secrets } from '@steward/kube';
import { ProviderProfile } from '@steward/provider-profile-api';
import { startMoto, type Moto } from '@steward/testing-backends';
import {
  installControllerChart,
  awaitLeaderTakeover,
  itRunsAsInstalledController,
  type InstalledControllerChart,
} from '@steward/testing-charts';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import {
  acquireNodeTier,
  appImage,
  type LocalImage,
  type NodeTier,
} from '@steward/testing-node-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseInstance,
  GCP_PROJECT,
  Instances,
  Profiles,
  type DB,
  type Profile,
  type Provider,
  type Secret,
} from './support/platform.js';

const app = 'database-instance-controller';

/**
 * The database-instance-controller as it ships: its image built from apps/Dockerfile, its chart
 * `helm install`ed with default values into the node tier (two replicas), its pods running under
 * the chart's ServiceAccount and RBAC against moto (the RDS API) and the local Cloud SQL API on
 * this machine. One installation; the tests run in order and build on each other.
 */
describe('the database-instance-controller chart, installed and running in a cluster', () => {
  let tier: NodeTier;
  let moto: Moto;
  let rds: RDSClient;
  let cloudSql: CloudSqlApi;
  let admin: KubeClient;
  let core: CoreV1Api;
  let image: LocalImage;
  let chart: InstalledControllerChart;
  let releaseNs: string;
  let appNs: string;
  let credentialsNs: string;
  /** ProviderProfiles are cluster-scoped and the tier is shared: names of this run's own. */
  const profiles = {} as Record<Provider, string>;

  beforeAll(async () => {
    tier = await acquireNodeTier();
    // The backends listen on the tier's host address, which pods reach; the image builds meanwhile.
    [image, moto, cloudSql] = await Promise.all([
      appImage(app),
      startMoto({ host: tier.hostAddress }),
      // verifies the JWTs the controller signs with the service-account key, as Google does
      startCloudSqlApi({ host: tier.hostAddress, operationStepMs: 100, verifyCredentials: true }),
    ]);
    await tier.importImage(image);
    rds = moto.rdsClient();
    admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
    core = tier.kubeConfig.makeApiClient(CoreV1Api);
    releaseNs = await tier.createNamespace('dic-controller');
    appNs = await tier.createNamespace('dic-apps');
    credentialsNs = await tier.createNamespace('dic-credentials');
    // The release namespace enforces the restricted Pod Security Standard: a pod the chart renders
    // that did not meet it would be refused by the API server.
    await admin.mergePatch(Namespaces, releaseNs, undefined, {
      metadata: {
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'latest',
        },
      },
    });
    const suffix = appNs.split('-').slice(-2).join('-');
    profiles.aws = `aws-${suffix}`;
    profiles.gcp = `gcp-${suffix}`;
    // Default values; only the image (built here, no registry) and a warm standby.
    const installing = Date.now();
    chart = await installControllerChart(tier, {
      chart: app,
      image,
      namespace: releaseNs,
      values: { replicas: 2 },
    });
    console.log(
      `${app}: image ${image.ref}; helm install to two Ready pods and a leader in ${Date.now() - installing} ms`,
    );
  });
  afterAll(async () => {
    await chart?.uninstall().catch(() => undefined);
    // Nothing is left to remove the controller's finalizers once it is uninstalled.
    if (admin) {
      const left = await admin.list<DB>(Instances, { namespace: appNs }).catch(() => undefined);
      for (const db of left?.items ?? []) {
        await admin
          .mergePatch(Instances, db.metadata.name!, appNs, { metadata: { finalizers: null } })
          .catch(() => undefined);
      }
      for (const profile of Object.values(profiles)) {
        await admin
          .mergePatch(Profiles, profile, undefined, { metadata: { finalizers: null } })
          .catch(() => undefined);
        await admin.delete(Profiles, profile).catch(() => undefined);
      }
      await admin.close();
    }
    await Promise.all([moto?.stop(), cloudSql?.stop()]);
    await tier?.release();
  });

  /** A credentials Secret and the ProviderProfile pointing at moto / the local Cloud SQL API. */
  const createProfile = async (provider: Provider) => {
    const name = profiles[provider];
    await admin.create<Secret>(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${provider}-creds`, namespace: credentialsNs },
      stringData:
        provider === 'aws'
          ? {
              aws_access_key_id: moto.credentials.accessKeyId,
              aws_secret_access_key: moto.credentials.secretAccessKey,
            }
          : {
              'service-account.json': JSON.stringify(
                cloudSql.createServiceAccountKey(`steward@${GCP_PROJECT}.iam.gserviceaccount.com`),
              ),
            },
    });
    const credentialsSecretRef = { namespace: credentialsNs, name: `${provider}-creds` };
    await admin.create<Profile>(Profiles, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name },
      spec:
        provider === 'aws'
          ? {
              provider: 'aws',
              namespaceSelector: {},
              aws: { region: moto.region, endpoint: moto.endpoint, credentialsSecretRef },
              sizeClasses: { small: 'db.t3.micro' },
            }
          : {
              provider: 'gcp',
              namespaceSelector: {},
              gcp: {
                project: GCP_PROJECT,
                region: 'europe-west1',
                endpoint: cloudSql.baseUrl,
                credentialsSecretRef,
              },
              sizeClasses: { small: 'db-custom-1-3840' },
            },
    } as Profile);
  };
  const ready = (name: string) =>
    chart.until(
      async () => {
        const obj = await admin.get<DB>(Instances, name, appNs);
        return findCondition(obj.status?.conditions, 'Ready')?.status === 'True' ? obj : undefined;
      },
      { description: `DatabaseInstance ${appNs}/${name} Ready`, timeoutMs: 120_000 },
    );
  const inRds = async (identifier: string) =>
    (await rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: identifier })))
      .DBInstances?.[0]?.DBInstanceIdentifier;
  const name = (pod: V1Pod) => pod.metadata!.name!;

  itRunsAsInstalledController(() => ({ app, tier, image, chart, replicas: 2 }));

  it('brings an RDS and a Cloud SQL DatabaseInstance to Ready with their connection Secrets, the instances existing at the providers', async () => {
    await createProfile('aws');
    await createProfile('gcp');
    await admin.create<DB>(Instances, databaseInstance(appNs, 'orders', profiles.aws));
    await admin.create<DB>(Instances, databaseInstance(appNs, 'billing', profiles.gcp));
    const orders = await ready('orders');
    const billing = await ready('billing');
    for (const name of ['orders', 'billing']) {
      const secret = await admin.get<Secret>(Secrets, `${name}-conn`, appNs);
      expect(Object.keys(secret.data ?? {})).toEqual(
        expect.arrayContaining(['host', 'password', 'port', 'username']),
      );
    }
    expect(await inRds(orders.status!.externalName!)).toBe(orders.status!.externalName);
    expect(cloudSql.instances().map((i) => i.name)).toEqual([billing.status!.externalName]);
    for (const provider of ['aws', 'gcp'] as const) {
      await chart.until(
        async () => {
          const p = await admin.get<Profile>(Profiles, profiles[provider]);
          return findCondition(p.status?.conditions, 'Ready')?.reason === 'CredentialsVerified';
        },
        { description: `ProviderProfile ${profiles[provider]} Ready (CredentialsVerified)` },
      );
    }
  });

  it('serves controller-runtime’s metrics at the pod IP: the leader counts its DatabaseInstance reconciles and provider calls, the standby reconciles nothing', async () => {
    const leader = await chart.leader();
    const metrics = await chart.metrics(leader);
    expect(metrics).toMatch(
      /^controller_runtime_reconcile_total\{controller="databaseinstance",result="[a-z_]+"\} [1-9]/m,
    );
    expect(metrics).toMatch(/^workqueue_adds_total\{[^}]*name="databaseinstance"[^}]*\} [1-9]/m);
    expect(metrics).toMatch(
      /^steward_external_requests_total\{(?=[^}]*provider="aws")(?=[^}]*operation="CreateDBInstance")[^}]*\} 1$/m,
    );
    expect(metrics).toMatch(
      /^steward_external_requests_total\{(?=[^}]*provider="gcp")(?=[^}]*operation="instances\.insert")[^}]*\} 1$/m,
    );
    expect(metrics).toMatch(
      /^leader_election_master_status\{name="database-instance-controller-leader"\} 1$/m,
    );
    // Under exactly the chart's RBAC, nothing the controller asked for was refused.
    for (const pod of await chart.pods()) expect(await chart.logs(pod)).not.toMatch(/forbidden/i);
    // The standby serves /metrics too, but runs no controller until it leads.
    const standby = (await chart.pods()).find((p) => name(p) !== name(leader))!;
    const standbyMetrics = await chart.metrics(standby);
    expect(standbyMetrics).not.toMatch(/^leader_election_master_status\{[^}]*\} 1$/m);
    expect(standbyMetrics).not.toMatch(
      /^controller_runtime_reconcile_total\{controller="databaseinstance"/m,
    );
  });

  const takeover = (leader: V1Pod, standby: V1Pod, how: string, since: number) =>
    awaitLeaderTakeover(chart, { app, leader, standby, how, since });

  it('hands the Lease over when the leader pod is deleted with grace period 0, and the new leader reconciles', async () => {
    const leader = await chart.leader();
    const standby = (await chart.readyPods(2)).find((p) => name(p) !== name(leader))!;
    const since = Date.now();
    await core.deleteNamespacedPod({
      name: name(leader),
      namespace: releaseNs,
      gracePeriodSeconds: 0,
    });
    const { successor } = await takeover(leader, standby, 'deleted (grace period 0)', since);

    await admin.create<DB>(Instances, databaseInstance(appNs, 'after-failover', profiles.aws));
    const created = await ready('after-failover');
    expect(await inRds(created.status!.externalName!)).toBe(created.status!.externalName);
    // The Deployment replaces the deleted pod with a new standby.
    await chart.readyPods(2);
    expect(await chart.leaseHolder()).toBe(successor);
  });

  it('hands the Lease over once it expires when the leader is killed outright (SIGKILL, no release), and the new leader reconciles', async () => {
    const leader = await chart.leader();
    const standby = (await chart.readyPods(2)).find((p) => name(p) !== name(leader))!;
    const since = Date.now();
    await chart.crash(leader);
    const { ms, released, successor } = await takeover(leader, standby, 'killed (SIGKILL)', since);
    // Nothing ran after the kill: the new leader took the Lease because it expired.
    expect(released, `takeover after ${ms} ms`).toBe(false);

    await admin.create<DB>(Instances, databaseInstance(appNs, 'after-crash', profiles.gcp));
    const created = await ready('after-crash');
    expect(cloudSql.instances().map((i) => i.name)).toContain(created.status!.externalName);
    await chart.readyPods(2);
    expect(await chart.leaseHolder()).toBe(successor);
  });

  it('leaves the CRDs, the DatabaseInstances and the instances at the providers after helm uninstall', async () => {
    const before = (await admin.list<DB>(Instances, { namespace: appNs })).items;
    await chart.uninstall();
    expect(await chart.pods()).toEqual([]);
    for (const crd of ['databaseinstances.database.steward.dev', 'providerprofiles.steward.dev']) {
      await expect(admin.get(CustomResourceDefinitions, crd)).resolves.toMatchObject({
        metadata: { name: crd },
      });
    }
    const after = (await admin.list<DB>(Instances, { namespace: appNs })).items;
    expect(after.map((db) => db.metadata.name).sort()).toEqual([
      'after-crash',
      'after-failover',
      'billing',
      'orders',
    ]);
    for (const provider of ['aws', 'gcp'] as const) {
      await expect(admin.get(Profiles, profiles[provider])).resolves.toMatchObject({
        metadata: { name: profiles[provider] },
      });
    }
    for (const db of before.filter((d) => d.spec.providerProfileRef.name === profiles.aws)) {
      expect(await inRds(db.status!.externalName!)).toBe(db.status!.externalName);
    }
    expect(
      cloudSql
        .instances()
        .map((i) => i.name)
        .sort(),
    ).toEqual(
      before
        .filter((d) => d.spec.providerProfileRef.name === profiles.gcp)
        .map((d) => d.status!.externalName)
        .sort(),
    );
  });
});
