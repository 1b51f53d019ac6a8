// The controller charts the chart generator writes into: every charts/<chart>/Chart.yaml that
// depends on the steward-common library chart, each with what its file under
// tools/charts/controllers/<chart>.ts adds (a chart without one gets the common files only).
import { load } from 'js-yaml';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AlertSpec } from './alerts.js';
import { type DashboardAdditions } from './dashboard.js';
import { type ValuesSchemaAdditions } from './values-schema.js';

/**
 * What one controller's chart has besides the common dashboard and values schema. A file
 * `tools/charts/controllers/<chart>.ts` exports it as `additions`.
 */
export interface ControllerAdditions {
  /**
   * The kind the controller reconciles. Default: from the chart's name, `<kind in kebab case>
   * -controller` (`kafka-topic-controller` → `KafkaTopic`).
   */
  kind?: string;
  /**
   * The providers whose ProviderProfiles the process's ProviderProfile controller manages (the
   * app's `providerProfileController(manager, { providers })`), e.g. `['kafka']`.
   */
  providers?: readonly string[];
  dashboard?: DashboardAdditions;
  /** Alerts of its own, after the common ones in its rule file (each with its runbook). */
  alerts?: readonly AlertSpec[];
  values?: ValuesSchemaAdditions;
}

/** A chart the generator writes into. */
export interface ControllerChart {
  /** Its directory under charts/ (also its name, its app's and its dashboard file's). */
  chart: string;
  kind: string;
  additions: ControllerAdditions;
  /** Its file under tools/charts/controllers/, relative to the repository root, if it has one. */
  additionsFile?: string;
}

/** The library chart every controller chart builds on. */
export const COMMON_CHART = 'steward-common';

/** Where the per-controller files are, relative to the repository root. */
export const ADDITIONS_DIR = join('tools', 'charts', 'controllers');

/** Thrown when a chart's kind cannot be told from its name and its file does not name it. */
export class UnknownKindError extends Error {
  constructor(readonly chart: string) {
    super(
      `cannot tell the kind of charts/${chart} from its name (not <kind>-controller); ` +
        `set kind in ${join(ADDITIONS_DIR, `${chart}.ts`)}`,
    );
    this.name = 'UnknownKindError';
  }
}

/** Thrown for a file under tools/charts/controllers/ that has no controller chart, or no `additions`. */
export class OrphanedAdditionsError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'OrphanedAdditionsError';
  }
}

/** `kafka-topic-controller` → `KafkaTopic`; undefined for a name not ending in `-controller`. */
export function kindFromChartName(chart: string): string | undefined {
  const match = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-controller$/.exec(chart);
  if (!match) return undefined;
  return match[1]!
    .split('-')
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

interface ChartYaml {
  dependencies?: { name?: string }[];
}

/** The directories under `<root>/charts` whose Chart.yaml depends on steward-common, sorted. */
export async function controllerChartNames(root: string): Promise<string[]> {
  const chartsDir = join(root, 'charts');
  const names: string[] = [];
  for (const entry of await readdir(chartsDir, { withFileTypes: true })) {
    const chartYaml = join(chartsDir, entry.name, 'Chart.yaml');
    if (!entry.isDirectory() || !existsSync(chartYaml)) continue;
    const chart = load(await readFile(chartYaml, 'utf8')) as ChartYaml | null;
    if (chart?.dependencies?.some((d) => d.name === COMMON_CHART)) names.push(entry.name);
  }
  return names.sort();
}

/**
 * Every controller chart under `<root>/charts` with its additions from
 * `<root>/tools/charts/controllers/<chart>.ts`. Throws {@link OrphanedAdditionsError} for a file
 * there that names no controller chart (a chart renamed or removed) or exports no `additions`, and
 * {@link UnknownKindError} for a chart whose kind is unknown.
 */
export async function controllerCharts(root: string): Promise<ControllerChart[]> {
  const names = await controllerChartNames(root);
  const additionsDir = join(root, ADDITIONS_DIR);
  const files = existsSync(additionsDir)
    ? (await readdir(additionsDir)).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    : [];
  for (const file of files) {
    if (!names.includes(file.slice(0, -'.ts'.length))) {
      throw new OrphanedAdditionsError(
        join(ADDITIONS_DIR, file),
        `no charts/${file.slice(0, -'.ts'.length)}/Chart.yaml depends on ${COMMON_CHART}`,
      );
    }
  }
  const charts: ControllerChart[] = [];
  for (const chart of names) {
    let additions: ControllerAdditions = {};
    let additionsFile: string | undefined;
    if (files.includes(`${chart}.ts`)) {
      additionsFile = join(ADDITIONS_DIR, `${chart}.ts`);
      const module = (await import(pathToFileURL(join(root, additionsFile)).href)) as {
        additions?: ControllerAdditions;
      };
      if (typeof module.additions !== 'object' || module.additions === null) {
        throw new OrphanedAdditionsError(additionsFile, 'exports no `additions`');
      }
      additions = module.additions;
    }
    const kind = additions.kind ?? kindFromChartName(chart);
    if (!kind) throw new UnknownKindError(chart);
    charts.push({ chart, kind, additions, ...(additionsFile ? { additionsFile } : {}) });
  }
  return charts;
}
