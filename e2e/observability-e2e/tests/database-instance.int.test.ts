/**
 * The database-instance-controller's dashboard against live data: its bundle as a process (under
 * its chart's RBAC, leader election on, managing its ProviderProfiles) exports over OTLP to the
 * OpenTelemetry Collector, which Prometheus scrapes. It provisions a DatabaseInstance on the RDS
 * API (moto) and one on the Cloud SQL Admin API (the local one), and fails on a third whose
 * profile's credentials Secret does not exist; then every panel query of its dashboard — the
 * providers' API calls and error ratio among them — must answer series.
 */
import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import {
  startMoto,
  startOtelCollector,
  startPrometheus,
  type Moto,
  type OtelCollector,
  type Prometheus,
} from '@steward/testing-backends';
import {
  bindChartRbac,
  renderChart,
  startControllerProcess,
  type ControllerProcess,
} from '@steward/testing-charts';
import { startCloudSqlApi, type CloudSqlApi } from '@steward/testing-cloudsql';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorJob, otlpEnv, panelsWithoutData, Profiles, stewardKind } from './support.js';

const chart = 'database-instance-controller';
const job = `steward/${chart}`;
const ns = 'apps';
const CREDENTIALS = 'steward-credentials';
const GCP_PROJECT = 'steward-e2e';
const Instances = stewardKind('database.steward.dev', 'DatabaseInstance', 'databaseinstances');

let plane: ControlPlane;
let moto: Moto;
let cloudSql: CloudSqlApi;
let collector: OtelCollector;
let prometheus: Prometheus;
let admin: KubeClient;
let controller: ControllerProcess | undefined;

beforeAll(async () => {
  [plane, moto, cloudSql, collector] = await Promise.all([
    startControlPlane({ crds: [join(repoRoot(), 'charts', chart, 'crds')] }),
    startMoto(),
    startCloudSqlApi({ operationStepMs: 100, verifyCredentials: true }),
    startOtelCollector(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
  for (const name of [ns, CREDENTIALS])
    await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  const secret = (name: string, stringData: Record<string, string>) =>
    admin.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name, namespace: CREDENTIALS },
      stringData,
    } as KubeObject);
  await secret('aws-creds', {
    aws_access_key_id: moto.credentials.accessKeyId,
    aws_secret_access_key: moto.credentials.secretAccessKey,
  });
  await secret('gcp-creds', {
    'service-account.json': JSON.stringify(
      cloudSql.createServiceAccountKey(`steward@${GCP_PROJECT}.iam.gserviceaccount.com`),
    ),
  });
  const aws = (name: string, secretName: string) => ({
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'aws',
      namespaceSelector: {},
      aws: {
        region: moto.region,
        endpoint: moto.endpoint,
        credentialsSecretRef: { namespace: CREDENTIALS, name: secretName },
      },
      sizeClasses: { small: 'db.t3.micro' },
    },
  });
  await admin.create(Profiles, aws('aws', 'aws-creds') as KubeObject);
  await admin.create(Profiles, aws('aws-no-secret', 'missing') as KubeObject);
  await admin.create(Profiles, {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'gcp' },
    spec: {
      provider: 'gcp',
      namespaceSelector: {},
      gcp: {
        project: GCP_PROJECT,
        region: 'europe-west1',
        endpoint: cloudSql.baseUrl,
        credentialsSecretRef: { namespace: CREDENTIALS, name: 'gcp-creds' },
      },
      sizeClasses: { small: 'db-custom-1-3840' },
    },
  } as KubeObject);
  const identity = await bindChartRbac(
    plane,
    await renderChart(join(repoRoot(), 'charts', chart)),
    'steward-system',
  );
  controller = await startControllerProcess({
    app: chart,
    kubeConfig: identity,
    name: `${chart}-0`,
    env: {
      STEWARD_LEADER_ELECT: 'true',
      POD_NAMESPACE: 'steward-system',
      ...otlpEnv(collector),
    },
  });
  await controller.ready();
  prometheus = await startPrometheus({
    jobs: [collectorJob(collector)],
  });
}, 900_000);

afterAll(async () => {
  await controller?.kill();
  await prometheus?.stop();
  await collector?.stop();
  await admin?.close();
  await Promise.all([plane?.stop(), moto?.stop(), cloudSql?.stop()]);
});

const instance = (name: string, profile: string): KubeObject =>
  ({
    apiVersion: 'database.steward.dev/v1alpha1',
    kind: 'DatabaseInstance',
    metadata: { name, namespace: ns },
    spec: {
      providerProfileRef: { name: profile },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      writeConnectionSecretToRef: { name: `${name}-conn` },
    },
  }) as KubeObject;

describe(`the ${chart} telemetry through the OpenTelemetry Collector into Prometheus`, () => {
  it(
    'answers every panel query of its dashboard, the providers’ calls and errors among them',
    { timeout: 600_000 },
    async () => {
      await admin.create(Instances, instance('orders', 'aws'));
      await admin.create(Instances, instance('analytics', 'gcp'));
      await admin.create(Instances, instance('stranded', 'aws-no-secret'));
      for (const provider of ['aws', 'gcp'])
        await eventually(
          async () =>
            (
              await prometheus.query(
                `steward_external_requests_total{job="${job}", provider="${provider}"}`,
              )
            ).length > 0,
          { description: `${provider} calls counted`, timeoutMs: 120_000 },
        );
      expect(await panelsWithoutData(prometheus, chart)).toEqual([]);
    },
  );
});
