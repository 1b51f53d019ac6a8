import { type CacheCluster } from '@steward/cache-cluster-api';
import { TerminalError } from '@steward/controller';
import { isNotFound, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import { childSecretValue } from '@steward/workload';
import { childNames } from '../children/index.js';
import { CacheReasons } from '../status.js';

/** How long a user's password Secret is not read again. */
const PASSWORD_CACHE_MS = 60_000;

/** Where a cluster's password is: the generated Secret (a child) or the user's. */
export function passwordSecretOf(cluster: CacheCluster): { name: string; key: string } {
  const existing = cluster.spec.auth?.existingSecret;
  return existing
    ? { name: existing.name, key: existing.key ?? 'password' }
    : { name: childNames(cluster.metadata.name!).authSecret, key: 'password' };
}

/** Whether a password can stand in redis.conf (pure). */
export function passwordUsable(value: string): boolean {
  return /^[\x21-\x7e]{1,512}$/.test(value) && !/["'\\]/.test(value);
}

/**
 * The password of a CacheCluster: the generated Secret's (from the synced children), or the user's
 * `spec.auth.existingSecret` (read at most once a minute). A missing Secret or key is
 * `AuthSecretNotFound`, a password redis.conf cannot hold `InvalidPassword` — both terminal.
 */
export class Passwords {
  private readonly cache = new Map<string, { password: string; at: number }>();

  constructor(
    private readonly client: Pick<KubeClient, 'get'>,
    private readonly now: () => Date,
  ) {}

  async of(cluster: CacheCluster, synced: Map<string, KubeObject>): Promise<string> {
    const where = passwordSecretOf(cluster);
    const value = cluster.spec.auth?.existingSecret
      ? await this.users(cluster, where)
      : childSecretValue(synced, where.name, where.key);
    if (value === undefined) throw new Error(`Secret ${where.name} has no password yet`);
    if (!passwordUsable(value))
      throw new TerminalError(
        CacheReasons.InvalidPassword,
        `the password in ${cluster.spec.auth?.existingSecret ? `Secret ${where.name}` : where.name} must be 1–512 printable ASCII characters without spaces, quotes or backslashes (redis.conf syntax)`,
      );
    return value;
  }

  private async users(
    cluster: CacheCluster,
    where: { name: string; key: string },
  ): Promise<string> {
    const namespace = cluster.metadata.namespace;
    const cacheKey = `${namespace}/${where.name}`;
    const cached = this.cache.get(cacheKey);
    const now = this.now().getTime();
    if (cached && now - cached.at < PASSWORD_CACHE_MS) return cached.password;
    let secret: KubeObject & { data?: Record<string, string> };
    try {
      secret = await this.client.get(Secrets, where.name, namespace);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      throw new TerminalError(
        CacheReasons.AuthSecretNotFound,
        `spec.auth.existingSecret ${where.name} does not exist in namespace ${namespace}: create it with the password under key ${where.key}`,
        { recheckAfter: 30_000 },
      );
    }
    const raw = secret.data?.[where.key];
    if (raw === undefined)
      throw new TerminalError(
        CacheReasons.AuthSecretNotFound,
        `Secret ${where.name} has no key ${where.key}`,
        { recheckAfter: 30_000 },
      );
    const password = Buffer.from(raw, 'base64').toString('utf8');
    this.cache.set(cacheKey, { password, at: now });
    return password;
  }
}
