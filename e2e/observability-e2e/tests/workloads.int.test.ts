/**
 * The workload controllers' dashboards against live data: the cache-cluster-controller and the
 * postgres-cluster-controller bundles as processes (under their charts' RBAC, leader election on)
 * export over OTLP to the OpenTelemetry Collector, which Prometheus scrapes. They reconcile a
 * CacheCluster and a PostgresCluster (no node here: their StatefulSets are created and never
 * become ready, which is what the not-Ready panels show) and one object each that they refuse
 * (a size the profile does not have). Then every panel query of both generated dashboards must
 * answer series.
 */
import { KubeClient, Namespaces, type KubeObject } from '@steward/kube';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import {
  startOtelCollector,
  startPrometheus,
  type OtelCollector,
  type Prometheus,
} from '@steward/testing-backends';
import { startChartedController, type ChartedController } from '@steward/testing-charts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectorJob, otlpEnv, panelsWithoutData, Profiles, stewardKind } from './support.js';

const ns = 'shop';
const charts = [
  {
    app: 'cache-cluster-controller',
    kind: stewardKind('cache.steward.dev', 'CacheCluster', 'cacheclusters'),
    spec: { engine: 'redis', version: '7.0', mode: 'Standalone', size: 'small' },
  },
  {
    app: 'postgres-cluster-controller',
    kind: stewardKind('postgres.steward.dev', 'PostgresCluster', 'postgresclusters'),
    spec: {
      version: '15',
      replicas: 1,
      size: 'small',
      failover: { enabled: false },
      bootstrap: { database: 'notes', owner: 'notes' },
    },
  },
] as const;

let plane: ControlPlane;
let collector: OtelCollector;
let prometheus: Prometheus;
let admin: KubeClient;
const controllers: ChartedController[] = [];

beforeAll(async () => {
  [plane, collector] = await Promise.all([
    startControlPlane({
      crds: charts.map((c) => join(repoRoot(), 'charts', c.app, 'crds')),
      controllerManager: true,
    }),
    startOtelCollector(),
  ]);
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'e2e-admin' });
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await admin.create(Profiles, {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'in-cluster' },
    spec: {
      provider: 'kubernetes',
      namespaceSelector: {},
      kubernetes: {
        sizeClasses: { small: { cpu: '100m', memory: '128Mi', maxMemory: '96Mi', storage: '1Gi' } },
        images: [
          { engine: 'redis', version: '7.0', image: 'ghcr.io/steward-dev/redis:7.0.15' },
          { engine: 'postgres', version: '15', image: 'ghcr.io/steward-dev/postgres:15.20' },
        ],
      },
    },
  } as KubeObject);
  for (const c of charts)
    controllers.push(
      await startChartedController(plane, {
        app: c.app,
        kind: c.kind,
        releaseName: `obs-${c.app}`,
        releaseNamespace: 'steward-system',
        watchNamespace: ns,
        env: {
          ...otlpEnv(collector),
        },
      }),
    );
  prometheus = await startPrometheus({
    jobs: [collectorJob(collector)],
  });
}, 900_000);

afterAll(async () => {
  for (const c of controllers) await c.cleanUp(admin).catch(() => undefined);
  await prometheus?.stop();
  await collector?.stop();
  await admin?.close();
  await plane?.stop();
});

describe('the workload controllers’ dashboards through the OpenTelemetry Collector into Prometheus', () => {
  it.each(charts.map((c) => [c.app, c] as const))(
    '%s: every panel query answers series',
    { timeout: 600_000 },
    async (app, c) => {
      for (const [name, spec] of [
        ['served', c.spec],
        ['refused', { ...c.spec, size: 'huge' }],
      ] as const)
        await admin.create(c.kind, {
          apiVersion: `${c.kind.group}/v1alpha1`,
          kind: c.kind.kind,
          metadata: { name, namespace: ns },
          spec: { providerProfileRef: { name: 'in-cluster' }, ...spec },
        } as KubeObject);
      await eventually(
        async () =>
          (
            await prometheus.query(
              `controller_runtime_reconcile_errors_total{job="steward/${app}"} > 0`,
            )
          ).length > 0,
        {
          description: `${app}: a refused object counted as a reconcile error`,
          timeoutMs: 120_000,
        },
      );
      expect(await panelsWithoutData(prometheus, app)).toEqual([]);
    },
  );
});
