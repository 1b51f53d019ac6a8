/**
 * @steward/testing — real components for Steward's tests.
 *
 * `startControlPlane()` runs a real etcd + kube-apiserver (+ kube-controller-manager for garbage
 * collection) as plain processes on free loopback ports, with freshly minted certificates and RBAC
 * on, and hands back a kubeconfig, a ready client and `stop()`. The binaries are built from Go
 * modules by tools/control-plane/build.sh and cached outside the repository. Nothing outlives
 * `stop()`, the test process, or a SIGINT: each process has a watchdog that ends it when its parent
 * is gone. `installCRDs()` returns once the CRDs are Established and served. `eventually()` polls
 * for an outcome; tests assert outcomes, never elapsed time.
 *
 * Tests and tools only (Nx tag `type:testing`).
 */
export { controlPlaneBinaries, type ControlPlaneBinaries } from './binaries.js';
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
export { installCRDs, type InstalledCRD } from './crds.js';
export { freePort } from './free-port.js';
export { ManagedProcess } from './managed-process.js';
export { repoRoot } from './repo-root.js';
export { eventually, type EventuallyOptions } from './wait.js';
export { boundedAll } from './bounded-all.js';
// Helm charts and controller processes, as the e2e suites see them.
export {
  applyAsAdmin,
  applyNamespace,
  bindChartRbac,
  chartRbac,
  defaultReleaseNamespace,
  dryRunCreate,
  HelmError,
  manifestOf,
  manifestsOf,
  readChartMetadata,
  renderChart,
  resourcePath,
  resourceTypeFor,
  runHelm,
  runHelmWithValues,
  type AccessRequest,
  type ApiRequest,
  type ApiRequester,
  type BindingManifest,
  type ChartMetadata,
  type ChartRbac,
  type ChartValues,
  type HelmResult,
  type Manifest,
  type ManifestMetadata,
  type ObjectManifest,
  type PolicyRule,
  type RenderOptions,
  type RoleManifest,
  type ScopedRule,
  type ServedResource,
} from './helm.js';
export {
  controllerEnv,
  describeControllerChart,
  type ChartAccess,
  type ChartEnvironment,
  type ChartGrants,
  type ChartRejection,
  type ChartTestClient,
  type ChartVariation,
  type ControllerChartSpec,
} from './controller-chart-suite.js';
export { describeWorkloadControllerChart, type WorkloadChartSpec } from './workload-chart-suite.js';
export {
  controllerBundle,
  startControllerProcess,
  type ControllerProcess,
  type StartControllerProcessOptions,
} from './controller-process.js';
// kstatus (sigs.k8s.io/cli-utils), run for real over objects: is a custom resource reconciled?
export {
  gitOpsReading,
  kstatus,
  kstatusBinary,
  type GitOpsReading,
  KstatusBinaryMissingError,
  KstatusError,
  type KstatusObject,
  type KstatusResult,
  type KstatusStatus,
} from './kstatus.js';
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { kubeConfigWithServer } from './kubeconfig-with-server.js';
export { startMoto, type Moto } from './moto.js';
export { startCloudSqlApi, type CloudSqlApi } from './cloudsql/index.js';
export {
  startOtelCollector,
  otelCollectorBinary,
  type CollectedSpan,
  type OtelCollector,
} from './otel-collector.js';
export {
  startPrometheus,
  prometheusBinaries,
  type Prometheus,
  type PromSeries,
  type ScrapeJob,
  type ScrapeTarget,
} from './prometheus.js';
export {
  startKafka,
  kafkaLibDir,
  type Kafka,
  type KafkaListener,
  type KafkaOptions,
  type KafkaSaslUser,
} from './kafka.js';
// The node tier: a real single-node cluster shared by every test process on the machine.
export {
  acquireNodeTier,
  stopNodeTier,
  type NodeTier,
  type NodeTierOptions,
} from './node-tier/node-tier.js';
export {
  appImage,
  localImages,
  nodeTierBinaries,
  type LocalImage,
  type NodeTierBinaries,
} from './node-tier/binaries.js';
export { nodeTierLayout, type NodeTierLayout } from './node-tier/layout.js';
export { leftovers, missingPrivileges, NodeTierUnavailableError } from './node-tier/host.js';
// A controller chart installed for real in the node tier, its pods and what to look at them with.
export {
  ControllerChartError,
  imageValues,
  installControllerChart,
  type InstallControllerChartOptions,
  type InstalledControllerChart,
} from './in-cluster-chart.js';
export {
  awaitLeaderTakeover,
  controllerNodeVersion,
  itRunsAsInstalledController,
  type InstalledControllerContext,
} from './in-cluster-chart-suite.js';
export { kubectlTable, requestsByMethod } from './kubectl-table.js';
export {
  startChartedController,
  type ChartedController,
  type ChartedControllerOptions,
} from './charted-controller.js';
