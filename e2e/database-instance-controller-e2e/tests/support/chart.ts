/**
 * The database-instance-controller Helm chart, as tests see it: the chart-test support of
 * @steward/testing (`renderChart`, `chartRbac`, `bindChartRbac`, `dryRunCreate`, …) bound to this
 * chart's directory.
 */
import { repoRoot } from '@steward/testing';
import {
  renderChart as renderChartAt,
  runHelmWithValues as runHelmWithValuesAt,
  type ChartValues,
  type HelmResult,
  type Manifest,
  type RenderOptions,
} from '@steward/testing-charts';
import { join } from 'node:path';

export {
  bindChartRbac,
  chartRbac,
  defaultReleaseNamespace,
  dryRunCreate,
  HelmError,
  manifestOf,
  manifestsOf,
  type ChartValues,
  type Manifest,
} from '@steward/testing-charts';

/** The chart's directory in the repository. */
export const chartDir = join(repoRoot(), 'charts', 'database-instance-controller');
/** Its generated CRDs (DatabaseInstance, ProviderProfile), for `startControlPlane({ crds })`. */
export const chartCrdsDir = join(chartDir, 'crds');

/** `helm template` of this chart; see `renderChart` of @steward/testing. */
export function renderChart(values?: ChartValues, options?: RenderOptions): Promise<Manifest[]> {
  return renderChartAt(chartDir, values, options);
}

/** `helm <command> <this chart> -f <values> …`; see `runHelmWithValues` of @steward/testing. */
export function runHelmWithValues(
  command: readonly string[],
  values?: ChartValues,
  extraArgs?: readonly string[],
): Promise<HelmResult> {
  return runHelmWithValuesAt(chartDir, command, values, extraArgs);
}
