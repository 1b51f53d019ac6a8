/**
 * @steward/testing-charts — the controllers as the e2e suites see them: Helm charts rendered and
 * checked against a real API server (`describeControllerChart`, `describeWorkloadControllerChart`),
 * chart RBAC, a controller's bundle run as a process under exactly its chart's RBAC, and a chart
 * installed for real in the node tier with the controller running as pods.
 *
 * Tests and tools only (Nx tag `type:testing`); built on @steward/testing and, for the charts
 * installed in the node tier, @steward/testing-node-tier.
 */
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
export {
  startChartedController,
  type ChartedController,
  type ChartedControllerOptions,
} from './charted-controller.js';
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
