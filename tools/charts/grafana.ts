// Grafana dashboard JSON (schemaVersion 39) as typed builders: the few panel kinds, variables and
// the layout Steward's dashboards use. A builder fixes everything the dashboards share (data
// source, legend, tooltip, line style), so a panel is written as what it shows: title, description,
// unit and queries. Ids and grid positions are assigned by `layoutRows`, never written by hand.
// Not @grafana/grafana-foundation-sdk: its only stable line is 0.0.x and its builds for a Grafana
// release are pre-release versions (`11.6.0-cogv0.0.x.<timestamp>`); three panel kinds do not need
// it (see the README, "Metrics, alerts, traces").

/** The Prometheus data source, picked by the dashboard's `datasource` variable. */
export interface Datasource {
  type: 'prometheus' | 'grafana';
  uid: string;
}

export const prometheus: Datasource = { type: 'prometheus', uid: '${datasource}' };

/** One query of a panel. */
export interface Query {
  expr: string;
  /** Grafana's legendFormat; empty for a single unnamed series. */
  legend?: string;
}

export interface Target {
  datasource: Datasource;
  refId: string;
  expr: string;
  legendFormat: string;
  /** Only the last value is evaluated (a stat without a sparkline). */
  instant?: true;
  range?: true;
}

export interface GridPos {
  h: number;
  w: number;
  x: number;
  y: number;
}

export type Color = 'green' | 'orange' | 'red' | 'blue';

export interface ThresholdStep {
  color: Color;
  value: number | null;
}

export interface ValueMapping {
  type: 'value';
  options: Record<string, { text: string; color: Color }>;
}

export interface RowPanel {
  type: 'row';
  title: string;
  id: number;
  collapsed: false;
  gridPos: GridPos;
  panels: [];
}

export interface StatPanel {
  type: 'stat';
  title: string;
  description: string;
  id: number;
  datasource: Datasource;
  gridPos: GridPos;
  fieldConfig: {
    defaults: {
      unit: string;
      mappings: ValueMapping[];
      thresholds: { mode: 'absolute'; steps: ThresholdStep[] };
    };
    overrides: [];
  };
  options: {
    reduceOptions: { calcs: string[]; fields: ''; values: false };
    colorMode: 'value';
    graphMode: 'area' | 'none';
    textMode: 'auto';
    justifyMode: 'auto';
    orientation: 'auto';
  };
  targets: Target[];
}

export interface TimeseriesPanel {
  type: 'timeseries';
  title: string;
  description: string;
  id: number;
  datasource: Datasource;
  gridPos: GridPos;
  fieldConfig: {
    defaults: {
      unit: string;
      min: number;
      custom: {
        drawStyle: 'line';
        lineWidth: number;
        fillOpacity: number;
        showPoints: 'never';
        stacking: { mode: 'normal' | 'none'; group: 'A' };
      };
    };
    overrides: [];
  };
  options: {
    legend: {
      displayMode: 'table';
      placement: 'bottom';
      showLegend: true;
      calcs: string[];
    };
    tooltip: { mode: 'multi'; sort: 'desc' };
  };
  targets: Target[];
}

export type QueryPanel = StatPanel | TimeseriesPanel;
export type Panel = RowPanel | QueryPanel;

/** A query panel before layout: its width and height in grid units, and the panel without them. */
export interface PanelSpec {
  w: number;
  h: number;
  panel: Omit<QueryPanel, 'id' | 'gridPos'>;
}

/** A row of panels, laid out left to right and wrapped at the grid's 24 columns. */
export interface RowSpec {
  title: string;
  panels: readonly PanelSpec[];
}

function targets(queries: readonly Query[], mode: 'instant' | 'range'): Target[] {
  return queries.map((query, i) => ({
    datasource: prometheus,
    refId: String.fromCharCode(65 + i),
    expr: query.expr,
    legendFormat: query.legend ?? '',
    ...(mode === 'instant' ? { instant: true as const } : { range: true as const }),
  }));
}

export interface StatOptions {
  title: string;
  description: string;
  unit: string;
  query: Query;
  /** The last value only: an instant query and no sparkline. Default: a range with a sparkline. */
  instant?: boolean;
  /** Steps above the base (green), e.g. `[{ color: 'orange', value: 50 }]`. */
  thresholds?: readonly ThresholdStep[];
  /** Text (and colour) shown for a value instead of the number. */
  valueText?: Record<string, { text: string; color: Color }>;
}

/** A single-value panel, a quarter of the grid wide. */
export function stat(options: StatOptions): PanelSpec {
  return {
    w: 6,
    h: 4,
    panel: {
      type: 'stat',
      title: options.title,
      description: options.description,
      datasource: prometheus,
      fieldConfig: {
        defaults: {
          unit: options.unit,
          mappings: options.valueText ? [{ type: 'value', options: options.valueText }] : [],
          thresholds: {
            mode: 'absolute',
            steps: [{ color: 'green', value: null }, ...(options.thresholds ?? [])],
          },
        },
        overrides: [],
      },
      options: {
        reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
        colorMode: 'value',
        graphMode: options.instant ? 'none' : 'area',
        textMode: 'auto',
        justifyMode: 'auto',
        orientation: 'auto',
      },
      targets: targets([options.query], options.instant ? 'instant' : 'range'),
    },
  };
}

export interface TimeseriesOptions {
  title: string;
  description: string;
  unit: string;
  /** Series stacked on each other (parts of one total). Default: overlaid. */
  stacked?: boolean;
  queries: readonly Query[];
}

/** A graph over time from zero, a third of the grid wide, with a table legend (last and max). */
export function timeseries(options: TimeseriesOptions): PanelSpec {
  return {
    w: 8,
    h: 8,
    panel: {
      type: 'timeseries',
      title: options.title,
      description: options.description,
      datasource: prometheus,
      fieldConfig: {
        defaults: {
          unit: options.unit,
          min: 0,
          custom: {
            drawStyle: 'line',
            lineWidth: 1,
            fillOpacity: 10,
            showPoints: 'never',
            stacking: { mode: options.stacked ? 'normal' : 'none', group: 'A' },
          },
        },
        overrides: [],
      },
      options: {
        legend: {
          displayMode: 'table',
          placement: 'bottom',
          showLegend: true,
          calcs: ['lastNotNull', 'max'],
        },
        tooltip: { mode: 'multi', sort: 'desc' },
      },
      targets: targets(options.queries, 'range'),
    },
  };
}

const GRID_COLUMNS = 24;

/**
 * The dashboard's panels: each row's header, then its panels left to right, wrapping onto a new
 * line when the next one does not fit. Ids count from 1 in that order.
 */
export function layoutRows(rows: readonly RowSpec[]): Panel[] {
  const panels: Panel[] = [];
  let y = 0;
  for (const row of rows) {
    panels.push({
      type: 'row',
      title: row.title,
      id: panels.length + 1,
      collapsed: false,
      gridPos: { h: 1, w: GRID_COLUMNS, x: 0, y },
      panels: [],
    });
    y += 1;
    let x = 0;
    let lineHeight = 0;
    for (const { w, h, panel } of row.panels) {
      if (x + w > GRID_COLUMNS) {
        y += lineHeight;
        x = 0;
        lineHeight = 0;
      }
      const { type, title, description, datasource, ...rest } = panel;
      const gridPos = { h, w, x, y };
      // Spelled out so that the JSON keeps Grafana's member order: id and gridPos after the text.
      panels.push({
        type,
        title,
        description,
        id: panels.length + 1,
        datasource,
        gridPos,
        ...rest,
      } as QueryPanel);
      x += w;
      lineHeight = Math.max(lineHeight, h);
    }
    y += lineHeight;
  }
  return panels;
}

export interface DatasourceVariable {
  name: 'datasource';
  label: string;
  type: 'datasource';
  query: 'prometheus';
  regex: '';
  current: Record<string, never>;
  hide: 0;
  includeAll: false;
  multi: false;
  options: [];
  refresh: 1;
}

/** The `datasource` variable every panel's data source refers to (`${datasource}`). */
export function datasourceVariable(): DatasourceVariable {
  return {
    name: 'datasource',
    label: 'Data source',
    type: 'datasource',
    query: 'prometheus',
    regex: '',
    current: {},
    hide: 0,
    includeAll: false,
    multi: false,
    options: [],
    refresh: 1,
  };
}

export interface QueryVariable {
  name: string;
  label: string;
  type: 'query';
  datasource: Datasource;
  query: { query: string; refId: 'StandardVariableQuery' };
  definition: string;
  refresh: 2;
  sort: 1;
  multi: true;
  includeAll: true;
  allValue: string;
  current: { selected: true; text: string[]; value: string[] };
  options: [];
  hide: 0;
  description?: string;
}

export interface QueryVariableOptions {
  name: string;
  label: string;
  /** A `label_values(…)` query; re-run whenever the time range changes. */
  query: string;
  /** What "All" stands for in a query. Default `.*`. */
  allValue?: string;
  /** The values selected when the dashboard opens. Default: All. */
  selected?: readonly string[];
  description?: string;
}

/** A multi-value variable filled from Prometheus label values, with an "All" option. */
export function queryVariable(options: QueryVariableOptions): QueryVariable {
  const selected = options.selected ?? [];
  return {
    name: options.name,
    label: options.label,
    type: 'query',
    datasource: prometheus,
    query: { query: options.query, refId: 'StandardVariableQuery' },
    definition: options.query,
    refresh: 2,
    sort: 1,
    multi: true,
    includeAll: true,
    allValue: options.allValue ?? '.*',
    current: selected.length
      ? { selected: true, text: [...selected], value: [...selected] }
      : { selected: true, text: ['All'], value: ['$__all'] },
    options: [],
    hide: 0,
    ...(options.description === undefined ? {} : { description: options.description }),
  };
}

export type Variable = DatasourceVariable | QueryVariable;

export interface Dashboard {
  uid: string;
  title: string;
  description: string;
  tags: string[];
  editable: true;
  graphTooltip: 1;
  schemaVersion: 39;
  version: 1;
  refresh: string;
  time: { from: string; to: string };
  timepicker: Record<string, never>;
  timezone: 'browser';
  links: [];
  annotations: { list: unknown[] };
  templating: { list: Variable[] };
  panels: Panel[];
}

export interface DashboardOptions {
  uid: string;
  title: string;
  description: string;
  tags: readonly string[];
  variables: readonly Variable[];
  rows: readonly RowSpec[];
}

/**
 * A dashboard with a shared crosshair, the last 6 hours refreshed every 30 s, and Grafana's
 * built-in annotations.
 */
export function dashboard(options: DashboardOptions): Dashboard {
  return {
    uid: options.uid,
    title: options.title,
    description: options.description,
    tags: [...options.tags],
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    links: [],
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    templating: { list: [...options.variables] },
    panels: layoutRows(options.rows),
  };
}
