import { renderAuthSecret } from './auth-secret.js';
import { renderConfigMap } from './config-map.js';
import { clusterName } from './labels.js';
import { childNames, PasswordKey } from './names.js';
import { renderPolicies } from './policies.js';
import { type RenderedChildren, type RenderInput } from './render-input.js';
import { renderServices } from './services.js';
import { renderStatefulSet } from './stateful-set.js';

/**
 * Every child of a CacheCluster, as apply configurations (pure: the same input renders the same
 * objects, byte for byte). Throws a `TypeError` for an input that contradicts itself — a
 * cluster without name or namespace, persistence enabled without `storage` or disabled with it,
 * a generated password (no `spec.auth.existingSecret`) read from another Secret than
 * `<name>-auth`/`password` — since the caller resolved it wrongly, not the user.
 */
export function renderChildren(input: RenderInput): RenderedChildren {
  checkInput(input);
  const generated = !input.cluster.spec.auth?.existingSecret;
  return {
    statefulSet: renderStatefulSet(input),
    ...renderServices(input),
    configMap: renderConfigMap(input),
    ...renderPolicies(input),
    ...(generated ? { authSecret: (password: string) => renderAuthSecret(input, password) } : {}),
  };
}

/**
 * Where the pods read the password: `spec.auth.existingSecret` (key default `password`), or the
 * generated Secret `<name>-auth`, key `password`.
 */
export function passwordSecretOf(cluster: RenderInput['cluster']): RenderInput['passwordSecret'] {
  const existing = cluster.spec.auth?.existingSecret;
  if (existing) return { name: existing.name, key: existing.key ?? PasswordKey };
  return { name: childNames(clusterName(cluster)).authSecret, key: PasswordKey };
}

function checkInput(input: RenderInput): void {
  const persistent = input.cluster.spec.persistence?.enabled === true;
  if (persistent !== (input.storage !== undefined)) {
    throw new TypeError(
      persistent
        ? 'steward/cache-cluster: persistence is enabled but no storage was resolved'
        : 'steward/cache-cluster: storage was resolved but persistence is disabled',
    );
  }
  if (!input.cluster.spec.auth?.existingSecret) {
    const expected = passwordSecretOf(input.cluster);
    if (input.passwordSecret.name !== expected.name || input.passwordSecret.key !== expected.key) {
      throw new TypeError(
        `steward/cache-cluster: a generated password is read from ${expected.name}/${expected.key}`,
      );
    }
  }
}
