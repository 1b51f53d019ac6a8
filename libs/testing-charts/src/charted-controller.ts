/**
 * A controller app as shipped, for e2e suites of workload controllers: its chart rendered for one
 * watched namespace (a release name of the suite's own, so RBAC object names never collide), that
 * RBAC bound on the cluster, and the app's bundle started as a process under exactly that identity,
 * with leader election and fast polls. `cleanUp()` removes what a failed test left — the kind's
 * objects deleted while the controller can still run their finalizers, the finalizers dropped
 * when it cannot — then stops the process and deletes the cluster-scoped RBAC objects.
 */
import { eventually, repoRoot } from '@steward/testing';
import { startControllerProcess, type ControllerProcess } from './controller-process.js';
import {
  bindChartRbac,
  renderChart,
  type ChartValues,
  type ClusterAdmin,
  type Manifest,
  type ServedResource,
} from './helm.js';
import { join } from 'node:path';

/**
 * What `cleanUp()` needs of the suite's admin client (a `KubeClient` of @steward/kube is one; this
 * library cannot import it: that library's own tests use this one).
 */
export interface CleanUpClient {
  list(
    kind: ServedResource,
    options: { namespace: string },
  ): Promise<{ items: { metadata: { name?: string } }[] }>;
  delete(kind: ServedResource, name: string, namespace?: string): Promise<unknown>;
  mergePatch(
    kind: ServedResource,
    name: string,
    namespace: string,
    patch: object,
  ): Promise<unknown>;
}

export interface ChartedControllerOptions {
  /** The app (and chart) name, e.g. `postgres-cluster-controller`. */
  app: string;
  /** The kind it serves: what `cleanUp()` deletes in `watchNamespace`. */
  kind: ServedResource;
  releaseName: string;
  /** Where the chart's namespaced objects (and POD_NAMESPACE) go. */
  releaseNamespace: string;
  watchNamespace: string;
  /** More chart values (watchNamespaces: [watchNamespace] and manageProviderProfiles: false are set). */
  values?: ChartValues;
  /** More process environment (after the defaults). */
  env?: Record<string, string>;
}

export interface ChartedController {
  /** The running process; undefined once a test stopped it (`stopped()`). */
  readonly process: ControllerProcess | undefined;
  readonly manifests: Manifest[];
  /** Tells the harness a test stopped or killed the process itself. */
  stopped(): void;
  /** Removes what the suite left, with the suite's admin client (the caller closes it). */
  cleanUp(admin: CleanUpClient): Promise<void>;
}

const rbac = (kind: string, plural: string): ServedResource => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced: false,
});
const ClusterRoles = rbac('ClusterRole', 'clusterroles');
const ClusterRoleBindings = rbac('ClusterRoleBinding', 'clusterrolebindings');

/** Renders, binds and starts the controller; resolves once it is ready. */
export async function startChartedController(
  cluster: ClusterAdmin,
  options: ChartedControllerOptions,
): Promise<ChartedController> {
  const { app, kind, releaseNamespace, watchNamespace } = options;
  const manifests = await renderChart(
    join(repoRoot(), 'charts', app),
    { watchNamespaces: [watchNamespace], manageProviderProfiles: false, ...options.values },
    { releaseName: options.releaseName, namespace: releaseNamespace },
  );
  const identity = await bindChartRbac(cluster, manifests, releaseNamespace);
  let process: ControllerProcess | undefined = await startControllerProcess({
    app,
    kubeConfig: identity,
    env: {
      STEWARD_LEADER_ELECT: 'true',
      POD_NAMESPACE: releaseNamespace,
      STEWARD_WATCH_NAMESPACES: watchNamespace,
      STEWARD_POLL_INTERVAL_SECONDS: '1',
      STEWARD_BUSY_POLL_INTERVAL_SECONDS: '1',
      STEWARD_MANAGE_PROVIDER_PROFILES: 'false',
      ...options.env,
    },
  });
  await process.ready();
  return {
    get process() {
      return process;
    },
    manifests,
    stopped() {
      process = undefined;
    },
    async cleanUp(admin) {
      const left = await admin.list(kind, { namespace: watchNamespace }).catch(() => undefined);
      for (const obj of left?.items ?? [])
        await admin.delete(kind, obj.metadata.name!, watchNamespace).catch(() => undefined);
      const gone = await eventually(
        async () => (await admin.list(kind, { namespace: watchNamespace })).items.length === 0,
        { description: `every ${kind.kind} gone`, timeoutMs: process ? 90_000 : 1 },
      ).catch(() => false);
      if (!gone) {
        for (const obj of (await admin.list(kind, { namespace: watchNamespace })).items) {
          await admin
            .mergePatch(kind, obj.metadata.name!, watchNamespace, {
              metadata: { finalizers: null },
            })
            .catch(() => undefined);
        }
      }
      await process?.kill();
      process = undefined;
      for (const m of manifests) {
        if (m.kind === 'ClusterRole')
          await admin.delete(ClusterRoles, m.metadata.name!).catch(() => undefined);
        if (m.kind === 'ClusterRoleBinding')
          await admin.delete(ClusterRoleBindings, m.metadata.name!).catch(() => undefined);
      }
    },
  };
}
