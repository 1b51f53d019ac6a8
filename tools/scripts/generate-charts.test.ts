import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  controllerCharts,
  kindFromChartName,
  OrphanedAdditionsError,
  type ControllerChart,
} from '../charts/controller-chart.js';
import { commonTags } from '../charts/dashboard.js';
import { type Dashboard, type QueryPanel } from '../charts/grafana.js';
import { commonValueKeys, ValueRedefinedError, valuesSchema } from '../charts/values-schema.js';
import {
  alertsPath,
  dashboardPath,
  expectedFiles,
  findDrift,
  GENERATOR,
  REPO_ROOT,
  valuesSchemaPath,
  writeFiles,
} from './generate-charts.js';

interface Schema {
  $comment: string;
  title: string;
  required: string[];
  properties: Record<string, unknown>;
}

const chartYaml = (name: string, dependsOnCommon: boolean) =>
  [
    'apiVersion: v2',
    `name: ${name}`,
    `type: ${name === 'steward-common' ? 'library' : 'application'}`,
    'version: 0.1.0',
    ...(dependsOnCommon ? ['dependencies:', '  - name: steward-common', '    version: 0.1.0'] : []),
    '',
  ].join('\n');

/** A repository under `root` with these charts (name → depends on steward-common). */
async function charts(root: string, list: Record<string, boolean>): Promise<void> {
  for (const [name, dependsOnCommon] of Object.entries(list)) {
    await mkdir(join(root, 'charts', name), { recursive: true });
    await writeFile(join(root, 'charts', name, 'Chart.yaml'), chartYaml(name, dependsOnCommon));
  }
}

const widget: ControllerChart = { chart: 'widget-controller', kind: 'Widget', additions: {} };

const parse = <T>(files: Map<string, string>, file: string) => JSON.parse(files.get(file)!) as T;
const queryPanels = (d: Dashboard) => d.panels.filter((p): p is QueryPanel => p.type !== 'row');
const exprs = (d: Dashboard) => queryPanels(d).flatMap((p) => p.targets.map((t) => t.expr));

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'steward-generate-charts-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('generate-charts: the committed charts', () => {
  it('finds every chart on steward-common, with its file under tools/charts/controllers', async () => {
    const found = await controllerCharts(REPO_ROOT);
    expect(found.map((c) => c.chart)).not.toContain('steward-common');
    expect(found.map(({ chart, kind, additionsFile }) => ({ chart, kind, additionsFile }))).toEqual(
      expect.arrayContaining([
        {
          chart: 'database-instance-controller',
          kind: 'DatabaseInstance',
          additionsFile: join('tools', 'charts', 'controllers', 'database-instance-controller.ts'),
        },
        {
          chart: 'kafka-topic-controller',
          kind: 'KafkaTopic',
          additionsFile: join('tools', 'charts', 'controllers', 'kafka-topic-controller.ts'),
        },
      ]),
    );
  });

  it('are up to date (run `npx tsx tools/scripts/generate-charts.ts` when this fails)', async () => {
    expect(
      await findDrift(REPO_ROOT, await expectedFiles(await controllerCharts(REPO_ROOT))),
    ).toEqual([]);
  });

  it('show each controller’s additions on its own dashboard only', async () => {
    const all = await controllerCharts(REPO_ROOT);
    const files = await expectedFiles(all);
    const boards = new Map(
      all.map((c) => [c.chart, parse<Dashboard>(files, dashboardPath(c.chart))]),
    );
    for (const { chart, additions } of all) {
      const own = additions.dashboard ?? {};
      const titles = (own.external?.panels ?? []).map((p) => p.panel.title);
      const queries = (own.external?.panels ?? []).flatMap((p) =>
        p.panel.targets.map((t) => t.expr),
      );
      for (const [other, board] of boards) {
        const mine = other === chart;
        const titlesShown = queryPanels(board).map((p) => p.title);
        for (const title of titles) {
          expect(titlesShown.includes(title), `${title} on ${other}`).toBe(mine);
        }
        for (const expr of queries) {
          expect(exprs(board).includes(expr), `${expr} on ${other}`).toBe(mine);
        }
        for (const tag of own.tags ?? []) {
          expect(board.tags.includes(tag), `${tag} on ${other}`).toBe(mine);
        }
      }
    }
    const kafka = boards.get('kafka-topic-controller')!;
    const database = boards.get('database-instance-controller')!;
    expect(queryPanels(kafka).map((p) => p.title)).toContain('Kafka admin API calls');
    expect(queryPanels(database).map((p) => p.title)).toContain('Provider API calls');
    expect(exprs(kafka).join('\n')).toContain('provider="kafka"');
    expect(exprs(database).join('\n')).not.toContain('provider="kafka"');
  });

  it('keep the common panels and queries identical on every dashboard', async () => {
    const all = await controllerCharts(REPO_ROOT);
    const files = await expectedFiles(all);
    const common = parse<Dashboard>(await expectedFiles([widget]), dashboardPath(widget.chart));
    for (const { chart } of all) {
      const board = parse<Dashboard>(files, dashboardPath(chart));
      for (const panel of queryPanels(common)) {
        expect(queryPanels(board)).toContainEqual({ ...panel, id: expect.any(Number) });
      }
    }
  });

  it('give every chart the same values schema but for its title and additions', async () => {
    const all = await controllerCharts(REPO_ROOT);
    const files = await expectedFiles(all);
    for (const { chart, additions } of all) {
      const schema = parse<Schema>(files, valuesSchemaPath(chart));
      expect(schema.title).toBe(`${chart} values`);
      expect(Object.keys(schema.properties)).toEqual([
        ...commonValueKeys,
        ...Object.keys(additions.values?.properties ?? {}),
      ]);
    }
  });

  it('lay the panels out on the 24-column grid without overlaps, ids counting from 1', async () => {
    const all = await controllerCharts(REPO_ROOT);
    const files = await expectedFiles([...all, widget]);
    for (const { chart } of [...all, widget]) {
      const { panels } = parse<Dashboard>(files, dashboardPath(chart));
      expect(panels.map((p) => p.id)).toEqual(panels.map((_, i) => i + 1));
      const cells = new Set<string>();
      for (const { gridPos: g } of panels) {
        expect(g.x + g.w).toBeLessThanOrEqual(24);
        for (let x = g.x; x < g.x + g.w; x++) {
          for (let y = g.y; y < g.y + g.h; y++) {
            expect(cells.has(`${x},${y}`)).toBe(false);
            cells.add(`${x},${y}`);
          }
        }
      }
    }
  });
});

describe('generate-charts: a chart with no file of its own', () => {
  it('is found by its dependency on steward-common, and its kind read from its name', async () => {
    await charts(root, {
      'steward-common': false,
      'widget-controller': true,
      'gizmo-controller': false,
    });
    expect(await controllerCharts(root)).toEqual([widget]);
  });

  it('gets the common dashboard, alerting rules and values schema, each marked generated', async () => {
    const files = await expectedFiles([widget]);
    expect([...files.keys()]).toEqual([
      join('charts', 'widget-controller', 'dashboards', 'widget-controller.json'),
      join('charts', 'widget-controller', 'alerts', 'widget-controller.rules.yaml'),
      join('charts', 'widget-controller', 'values.schema.json'),
    ]);
    const rules = files.get(alertsPath(widget.chart))!;
    expect(rules.split('\n')[0]).toBe(
      `# Code generated by ${GENERATOR} from tools/charts/alerts.ts. DO NOT EDIT.`,
    );
    expect(rules).toContain('job="steward/widget-controller"');
    const board = parse<Dashboard>(files, dashboardPath(widget.chart));
    expect(board.uid).toBe('steward-widget-controller');
    expect(board.title).toBe('Steward / Widget controller');
    expect(board.description).toMatch(
      new RegExp(
        `Code generated by ${GENERATOR} from tools/charts/dashboard\\.ts\\. DO NOT EDIT\\.$`,
      ),
    );
    expect(board.tags).toEqual([...commonTags]);
    expect(board.panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual([
      'Overview',
      'Objects',
      'Reconciliation',
      'Work queue',
      'Kubernetes API',
    ]);
    expect(exprs(board).join('\n')).not.toContain('steward_external_requests_total');
    const controller = board.templating.list.find((v) => v.name === 'controller');
    expect(controller).toMatchObject({
      allValue: 'widget|providerprofile',
      current: { value: ['widget'] },
    });
    const schema = parse<Schema>(files, valuesSchemaPath(widget.chart));
    expect(schema.$comment).toBe(
      `Code generated by ${GENERATOR} from tools/charts/values-schema.ts. DO NOT EDIT.`,
    );
    expect(schema.title).toBe('widget-controller values');
  });

  it('writes files prettier leaves as they are', async () => {
    const { format, resolveConfig } = await import('prettier');
    for (const [file, text] of await expectedFiles([widget])) {
      const filepath = join(REPO_ROOT, file);
      expect(await format(text, { ...(await resolveConfig(filepath)), filepath })).toBe(text);
    }
  });
});

describe('generate-charts: per-controller files', () => {
  it('adds a controller’s file to its chart only, and names it in the marker', async () => {
    await charts(root, { 'widget-controller': true, 'gizmo-controller': true });
    await mkdir(join(root, 'tools', 'charts', 'controllers'), { recursive: true });
    await writeFile(
      join(root, 'tools', 'charts', 'controllers', 'gizmo-controller.ts'),
      "export const additions = { kind: 'GizmoSet', dashboard: { tags: ['gizmo'] } };\n",
    );
    const found = await controllerCharts(root);
    expect(found.map((c) => [c.chart, c.kind])).toEqual([
      ['gizmo-controller', 'GizmoSet'],
      ['widget-controller', 'Widget'],
    ]);
    const files = await expectedFiles(found);
    const gizmo = parse<Dashboard>(files, dashboardPath('gizmo-controller'));
    const widgetBoard = parse<Dashboard>(files, dashboardPath('widget-controller'));
    expect(gizmo.tags).toContain('gizmo');
    expect(widgetBoard.tags).not.toContain('gizmo');
    expect(gizmo.description).toContain(
      `and ${join('tools', 'charts', 'controllers', 'gizmo-controller.ts')}. DO NOT EDIT.`,
    );
    expect(parse<Schema>(files, valuesSchemaPath('gizmo-controller')).$comment).not.toContain(
      'gizmo-controller.ts',
    );
  });

  it('refuses a file for a chart that does not exist or is not on steward-common', async () => {
    await charts(root, { 'widget-controller': true, 'gadget-controller': false });
    await mkdir(join(root, 'tools', 'charts', 'controllers'), { recursive: true });
    await writeFile(
      join(root, 'tools', 'charts', 'controllers', 'gadget-controller.ts'),
      'export const additions = {};\n',
    );
    await expect(controllerCharts(root)).rejects.toThrow(OrphanedAdditionsError);
  });

  it('adds a controller’s own values after the common ones, and refuses to redefine one', () => {
    const cache = { type: 'object', properties: { shards: { type: 'integer', minimum: 1 } } };
    const schema = valuesSchema(
      'cache-cluster-controller',
      { properties: { cache }, required: ['cache'] },
      'generated',
    ) as unknown as Schema;
    expect(Object.keys(schema.properties)).toEqual([...commonValueKeys, 'cache']);
    expect(schema.properties.cache).toEqual(cache);
    expect(schema.required.at(-1)).toBe('cache');
    expect(() =>
      valuesSchema('cache-cluster-controller', { properties: { replicas: {} } }, 'generated'),
    ).toThrow(ValueRedefinedError);
  });

  it.each([
    ['kafka-topic-controller', 'KafkaTopic'],
    ['database-instance-controller', 'DatabaseInstance'],
    ['cache-cluster-controller', 'CacheCluster'],
    ['postgres-cluster-controller', 'PostgresCluster'],
    ['steward-common', undefined],
  ])('reads the kind of %s as %s', (chart, kind) => {
    expect(kindFromChartName(chart)).toBe(kind);
  });
});

describe('generate-charts: drift', () => {
  it('reports missing files, then nothing once written', async () => {
    const files = await expectedFiles([widget]);
    expect(await findDrift(root, files)).toEqual(
      [...files.keys()].map((file) => ({ file, problem: 'missing' })),
    );
    await writeFiles(root, files);
    expect(await findDrift(root, files)).toEqual([]);
  });

  it('reports a hand-edited file as stale, and regenerating fixes it', async () => {
    const files = await expectedFiles([widget]);
    await writeFiles(root, files);
    const file = valuesSchemaPath(widget.chart);
    await writeFile(join(root, file), files.get(file)!.replace('"maximum": 3', '"maximum": 5'));
    expect(await findDrift(root, files)).toEqual([{ file, problem: 'stale' }]);
    expect(await writeFiles(root, files)).toEqual([{ file, problem: 'stale' }]);
    expect(await readFile(join(root, file), 'utf8')).toBe(files.get(file));
  });

  it('reports and removes orphaned generated dashboards, and leaves hand-written ones alone', async () => {
    const files = await expectedFiles([widget]);
    await writeFiles(root, files);
    const dir = join('charts', widget.chart, 'dashboards');
    const orphan = join(dir, 'old-name.json');
    await writeFile(join(root, orphan), files.get(dashboardPath(widget.chart))!);
    await writeFile(join(root, dir, 'extra.json'), '{ "title": "by hand" }\n');
    expect(await findDrift(root, files)).toEqual([{ file: orphan, problem: 'orphaned' }]);
    await writeFiles(root, files);
    expect(await findDrift(root, files)).toEqual([]);
    expect(await readFile(join(root, dir, 'extra.json'), 'utf8')).toContain('by hand');
  });
});
