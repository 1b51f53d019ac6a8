/**
 * A controller process's configuration, read once from the environment (each chart sets these
 * variables). Every value is checked here so that a mistyped variable stops the process at start
 * with a message naming it, instead of surfacing later as odd behaviour.
 */
export interface ProcessConfig {
  /**
   * The namespaces whose objects the controllers watch and reconcile (one list-watch per
   * namespace and kind, merged into one cache), deduplicated and sorted; empty = all namespaces.
   * STEWARD_WATCH_NAMESPACES (comma-separated) with STEWARD_WATCH_NAMESPACE (one namespace;
   * deprecated, still read) added.
   */
  readonly watchNamespaces: readonly string[];
  /** Serves /healthz, /readyz and /metrics; 0 picks a free port (tests). */
  readonly probePort: number;
  readonly probeHost: string;
  /** Lease-based leader election in `leaderElectionNamespace`. */
  readonly leaderElection: boolean;
  readonly leaderElectionNamespace: string;
  /** This process's identity in the Lease and in Events. */
  readonly podName: string | undefined;
  readonly logLevel: LogLevel;
  readonly maxConcurrentReconciles: number;
  /** How often a converged instance is observed at its provider again. */
  readonly pollIntervalMs: number;
  /** How often an instance the provider is still working on is observed again. */
  readonly busyPollIntervalMs: number;
  /**
   * Run the ProviderProfile controller for this process's providers (credentials status, usedBy,
   * in-use finalizer). Default: on when watching all namespaces, off when watching some — profiles
   * are cluster-scoped, and two namespaced installations would count different users of one profile.
   */
  readonly manageProviderProfiles: boolean;
  /** How often each ProviderProfile's credentials are checked again. */
  readonly credentialsRecheckMs: number;
  /** An explicit kubeconfig file (local runs); unset = in-cluster service account. */
  readonly kubeconfig: string | undefined;
  readonly otlpEndpoint: string | undefined;
}

export const LogLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LogLevels)[number];

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

type Env = Readonly<Record<string, string | undefined>>;

function text(env: Env, key: string): string | undefined {
  const value = env[key]?.trim();
  return value ? value : undefined;
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${key} must be a whole number from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function boolean(env: Env, key: string, fallback: boolean): boolean {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new ConfigError(`${key} must be "true" or "false", got "${raw}"`);
}

function namespace(env: Env, key: string): string | undefined {
  const raw = text(env, key);
  if (raw !== undefined && !DNS_LABEL.test(raw)) {
    throw new ConfigError(`${key} must be a namespace name (a DNS label), got "${raw}"`);
  }
  return raw;
}

/**
 * STEWARD_WATCH_NAMESPACES, a comma-separated list of namespace names (blanks around the commas
 * and empty items ignored), plus the deprecated STEWARD_WATCH_NAMESPACE: deduplicated, sorted.
 */
function watchNamespaces(env: Env): string[] {
  const key = 'STEWARD_WATCH_NAMESPACES';
  const listed = (text(env, key) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
  for (const item of listed) {
    if (!DNS_LABEL.test(item)) {
      throw new ConfigError(
        `${key} must be namespace names (DNS labels) separated by commas, got "${item}"`,
      );
    }
  }
  const single = namespace(env, 'STEWARD_WATCH_NAMESPACE');
  return [...new Set([...listed, ...(single ? [single] : [])])].sort();
}

/**
 * What the controllers of a process with `config` watch, as a `Selection` of @steward/informer:
 * `{ namespaces }` when it watches some namespaces, `{}` (every namespace) otherwise. Spread it
 * into a controller's options: `{ ...watchSelection(config), … }`.
 */
export function watchSelection(config: Pick<ProcessConfig, 'watchNamespaces'>): {
  selection?: { namespaces: readonly string[] };
} {
  return config.watchNamespaces.length > 0
    ? { selection: { namespaces: config.watchNamespaces } }
    : {};
}

/** Reads and checks the configuration; throws {@link ConfigError} naming the variable at fault. */
export function loadProcessConfig(env: Env): ProcessConfig {
  const logLevel = text(env, 'STEWARD_LOG_LEVEL') ?? 'info';
  if (!(LogLevels as readonly string[]).includes(logLevel)) {
    throw new ConfigError(
      `STEWARD_LOG_LEVEL must be one of ${LogLevels.join(', ')}, got "${logLevel}"`,
    );
  }
  const leaderElection = boolean(env, 'STEWARD_LEADER_ELECT', true);
  const podNamespace = namespace(env, 'POD_NAMESPACE');
  const leaderElectionNamespace =
    namespace(env, 'STEWARD_LEADER_ELECTION_NAMESPACE') ?? podNamespace;
  if (leaderElection && !leaderElectionNamespace) {
    throw new ConfigError(
      'leader election needs a namespace for its Lease: set POD_NAMESPACE (the chart does, from the downward API) or STEWARD_LEADER_ELECTION_NAMESPACE, or set STEWARD_LEADER_ELECT=false',
    );
  }
  const watched = watchNamespaces(env);
  return {
    watchNamespaces: watched,
    manageProviderProfiles: boolean(env, 'STEWARD_MANAGE_PROVIDER_PROFILES', watched.length === 0),
    probePort: integer(env, 'STEWARD_PROBE_PORT', 8080, 0, 65535),
    probeHost: text(env, 'STEWARD_PROBE_HOST') ?? '0.0.0.0',
    leaderElection,
    leaderElectionNamespace: leaderElectionNamespace ?? '',
    podName: text(env, 'POD_NAME'),
    logLevel: logLevel as LogLevel,
    maxConcurrentReconciles: integer(env, 'STEWARD_MAX_CONCURRENT_RECONCILES', 4, 1, 64),
    pollIntervalMs: integer(env, 'STEWARD_POLL_INTERVAL_SECONDS', 60, 1, 86_400) * 1000,
    busyPollIntervalMs: integer(env, 'STEWARD_BUSY_POLL_INTERVAL_SECONDS', 10, 1, 3_600) * 1000,
    credentialsRecheckMs:
      integer(env, 'STEWARD_CREDENTIALS_RECHECK_SECONDS', 300, 1, 86_400) * 1000,
    kubeconfig: text(env, 'KUBECONFIG'),
    otlpEndpoint: text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
  };
}
