import { createHash } from 'node:crypto';
import { ConfigMaps, Secrets, type KubeObject } from '@steward/kube';
import { childNames, ConfigFiles, Labels, Roles, SecretKeys } from '../children/index.js';
import { type PgEndpoint, type PgSetting } from '../pg/index.js';
import { PostgresReasons } from '../status.js';
import { type Cluster, type PhaseEnv, type Problem } from './env.js';
import { endpointWith } from './instances.js';
import { type Topology } from './topology.js';

const memoryUnits: Record<string, number> = {
  B: 1,
  kB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};
const timeUnits: Record<string, number> = {
  us: 0.001,
  ms: 1,
  s: 1000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A setting's unit (`8kB`, `kB`, `MB`, `ms`, `s`, `min`) as a factor of bytes or milliseconds. */
function unitOf(
  unit: string | undefined,
): { table: Record<string, number>; factor: number } | undefined {
  if (!unit) return undefined;
  const m = /^(\d*)(B|kB|MB|GB|TB|us|ms|s|min|h|d)$/.exec(unit);
  if (!m) return undefined;
  const table = m[2]! in memoryUnits ? memoryUnits : timeUnits;
  return { table, factor: (m[1] ? Number(m[1]) : 1) * table[m[2]!]! };
}

function checkBool(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (!v) return false;
  if (v === '1' || v === '0') return true;
  if (['true', 'false', 'yes', 'no'].some((w) => w.startsWith(v))) return true;
  return v.length >= 2 && ['on', 'off'].some((w) => w.startsWith(v));
}

/**
 * Why `value` is not one `setting` takes (pure), in the words of PostgreSQL's own parser (guc.c:
 * booleans by prefix, numbers with an optional unit of the setting's kind, within its min and max
 * in its own unit, enums by name), or undefined when it takes it.
 */
export function parameterRefusal(
  name: string,
  value: string,
  setting: PgSetting | undefined,
): string | undefined {
  if (!setting) {
    // A name with a dot is a custom (extension) placeholder: PostgreSQL accepts any value.
    return name.includes('.') ? undefined : `PostgreSQL has no parameter ${name}`;
  }
  switch (setting.vartype) {
    case 'bool':
      return checkBool(value) ? undefined : `${name} takes on or off, not "${value}"`;
    case 'enum': {
      const values = setting.enumvals ?? [];
      return values.some((v) => v.toLowerCase() === value.trim().toLowerCase())
        ? undefined
        : `${name} takes one of ${values.join(', ')}, not "${value}"`;
    }
    case 'integer':
    case 'real':
      return numberRefusal(name, value, setting);
    default:
      return undefined;
  }
}

function numberRefusal(name: string, value: string, setting: PgSetting): string | undefined {
  const unit = unitOf(setting.unit);
  const m =
    /^\s*([+-]?(?:0x[0-9a-fA-F]+|\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-z]+)?\s*$/.exec(
      value,
    );
  const range = `${setting.minVal ?? '-∞'}..${setting.maxVal ?? '∞'}${setting.unit ? ` ${setting.unit}` : ''}`;
  const kind = setting.vartype === 'integer' ? 'a whole number' : 'a number';
  const expected = `${name} takes ${kind}${unit ? ` with an optional unit (${Object.keys(unit.table).join(', ')})` : ''} in ${range}, not "${value}"`;
  if (!m) return expected;
  let n = m[1]!.toLowerCase().startsWith('0x') ? Number.parseInt(m[1]!, 16) : Number(m[1]);
  if (!Number.isFinite(n)) return expected;
  if (m[2]) {
    if (!unit || !(m[2] in unit.table)) return expected;
    n = (n * unit.table[m[2]]!) / unit.factor;
  }
  if (setting.vartype === 'integer') n = Math.round(n);
  const min = setting.minVal !== undefined ? Number(setting.minVal) : undefined;
  const max = setting.maxVal !== undefined ? Number(setting.maxVal) : undefined;
  if ((min !== undefined && n < min) || (max !== undefined && n > max))
    return `${name} "${value}" is outside ${range}`;
  return undefined;
}

/** Every refusal of `parameters` against the server's own parameter list (pure). */
export function parameterRefusals(
  parameters: Record<string, string>,
  settings: readonly PgSetting[],
): string[] {
  const byName = new Map(settings.map((s) => [s.name, s]));
  return Object.keys(parameters)
    .sort()
    .map((name) => parameterRefusal(name, parameters[name]!, byName.get(name)))
    .filter((why): why is string => why !== undefined);
}

/** Reads a postgresql.conf value as `confValue` wrote it. */
const unquote = (text: string) => text.slice(1, -1).replace(/''/g, "'").replace(/\\\\/g, '\\');

/**
 * The tunable settings a live ConfigMap's postgresql.conf carries (pure): those after the
 * "Defaults and spec.parameters" line, which rendered again as `spec.parameters` give the same file.
 */
export function appliedParameters(conf: string): Record<string, string> {
  const lines = conf.split('\n');
  const start = lines.indexOf('# Defaults and spec.parameters:');
  const applied: Record<string, string> = {};
  if (start < 0) return applied;
  for (const line of lines.slice(start + 1)) {
    const m = /^([A-Za-z0-9_.]+) = ('.*')$/.exec(line);
    if (m) applied[m[1]!] = unquote(m[2]!);
  }
  return applied;
}

const hashOf = (params: Record<string, string>) =>
  createHash('sha256')
    .update(JSON.stringify(Object.entries(params).sort(([a], [b]) => a.localeCompare(b))))
    .digest('hex');

/**
 * The superuser's endpoint of the cluster's serving primary, from the caches (its pod Ready, labelled
 * primary, with an IP; the superuser Secret among the children), or undefined.
 */
export function servingPrimary(
  env: PhaseEnv,
  cluster: Cluster,
  topology: Topology,
): PgEndpoint | undefined {
  const pod = topology.pods.find(
    (p) =>
      p.metadata.name === cluster.status?.primary &&
      !p.metadata.deletionTimestamp &&
      p.metadata.labels?.[Labels.role] === Roles.primary &&
      p.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'),
  );
  const ip = pod?.status?.podIP;
  const names = childNames(cluster.metadata.name!);
  const secret = env.children.get<KubeObject & { data?: Record<string, string> }>(
    cluster,
    Secrets,
    names.superuserSecret,
  );
  const raw = secret?.data?.[SecretKeys.password];
  if (!ip || raw === undefined) return undefined;
  return endpointWith(Buffer.from(raw, 'base64').toString('utf8'))(ip);
}

/** What the parameters phase remembers per cluster: the last set checked and the answer. */
export type ParameterChecks = Map<string, { hash: string; refusals: string[] }>;

export interface ParametersOutcome {
  /** The cluster to render: its spec's parameters, or the ones applied when those are refused. */
  cluster: Cluster;
  /** A change that cannot take effect (Ready=False, Degraded). */
  refusals: Problem[];
}

/**
 * The parameters phase: a change of `spec.parameters` is checked against the serving primary's
 * own parameter list (`pg_settings`: names, types, ranges, units, enum values) before anything
 * is rendered with it, so no instance restarts with a setting the server refuses. A refused change
 * is not rendered — the instances keep the settings they have — and says why (InvalidParameters).
 * One check per set of parameters; nothing is asked while they are unchanged, or before the
 * cluster has a serving primary (a new cluster's refused setting is named by its crash loop).
 */
export async function parametersPhase(
  env: PhaseEnv,
  cluster: Cluster,
  /** The serving primary's endpoint (looked up only when the parameters changed). */
  primaryOf: () => PgEndpoint | undefined,
  checks: ParameterChecks,
): Promise<ParametersOutcome> {
  const uid = cluster.metadata.uid ?? cluster.metadata.name!;
  const live = env.children.get<KubeObject & { data?: Record<string, string> }>(
    cluster,
    ConfigMaps,
    childNames(cluster.metadata.name!).configMap,
  );
  const conf = live?.data?.[ConfigFiles.postgresql];
  const wanted = cluster.spec.parameters ?? {};
  if (!conf) return { cluster, refusals: [] };
  const applied = appliedParameters(conf);
  const changed = Object.entries(wanted).filter(([k, v]) => applied[k] !== v);
  if (!changed.length) return { cluster, refusals: [] };
  const hash = hashOf(wanted);
  let check = checks.get(uid);
  if (check?.hash !== hash) {
    const primary = primaryOf();
    if (!primary) return { cluster, refusals: [] };
    const settings = await env.pg.settings(primary, Object.keys(wanted));
    check = { hash, refusals: parameterRefusals(Object.fromEntries(changed), settings) };
    checks.set(uid, check);
  }
  if (!check.refusals.length) return { cluster, refusals: [] };
  // Render what is applied (defaults included: rendered over them, the same file).
  return {
    cluster: { ...cluster, spec: { ...cluster.spec, parameters: applied } },
    refusals: [
      {
        reason: PostgresReasons.InvalidParameters,
        message: `spec.parameters not applied (the instances keep their settings): ${check.refusals.join('; ')}`,
      },
    ],
  };
}
