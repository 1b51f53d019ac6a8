import { isNotFound, Secrets, type KubeClient, type KubeObject } from '@steward/kube';
import { type BackupCredentialsCopy } from '../resolve.js';

/**
 * The annotation on a credentials Secret the controller copied from a ProviderProfile's
 * `credentialsSourceSecretRef` (`<namespace>/<name>`): only such a Secret is ever updated.
 */
export const CredentialsCopiedFromAnnotation = 'postgres.steward.dev/credentials-copied-from';

/** The profile's Secret (or a key of it) is missing: for the platform team to fix. */
export class CredentialsSourceMissing extends Error {
  override readonly name = 'CredentialsSourceMissing';
}

type SecretObject = KubeObject & { data?: Record<string, string>; type?: string };

/**
 * Copies a ProviderProfile's backup credentials into a workload namespace — only ever called for a
 * profile that says `copyCredentialsToWorkloadNamespaces: true` (resolveBackup's
 * `credentialsCopy`). Called on every reconcile of a cluster that backs up to the profile's
 * destination, before anything that reads the Secret; idempotent, and no write once the copy
 * holds the source's keys (a rotated source key is copied again).
 *
 * Creates Secret `copy.to` in `namespace` with the keys `copy.keys` of `copy.from`, annotated
 * CredentialsCopiedFromAnnotation, without owner (every cluster of the namespace shares it, and
 * the namespace's backups stay reachable after a cluster goes). A Secret of that name the
 * controller did not copy is never overwritten: it is used as it is. Throws
 * CredentialsSourceMissing when the source Secret or one of its keys is missing.
 */
export async function copyBackupCredentials(
  client: KubeClient,
  copy: BackupCredentialsCopy,
  namespace: string,
  signal?: AbortSignal,
): Promise<'created' | 'updated' | 'unchanged' | 'not-ours'> {
  const from = `${copy.from.namespace}/${copy.from.name}`;
  const source = await client
    .get<SecretObject>(Secrets, copy.from.name, copy.from.namespace, { signal })
    .catch((error: unknown) => {
      if (isNotFound(error))
        throw new CredentialsSourceMissing(
          `the ProviderProfile's credentialsSourceSecretRef, Secret ${from}, does not exist`,
        );
      throw error;
    });
  const data: Record<string, string> = {};
  for (const key of copy.keys) {
    const value = source.data?.[key];
    if (value === undefined)
      throw new CredentialsSourceMissing(
        `the ProviderProfile's credentialsSourceSecretRef, Secret ${from}, has no key ${key}`,
      );
    data[key] = value;
  }
  const existing = await client
    .get<SecretObject>(Secrets, copy.to, namespace, { signal })
    .catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
  if (!existing) {
    await client.create<SecretObject>(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: copy.to,
        namespace,
        annotations: { [CredentialsCopiedFromAnnotation]: from },
        labels: { 'app.kubernetes.io/managed-by': 'steward' },
      },
      type: 'Opaque',
      data,
    });
    return 'created';
  }
  if (existing.metadata.annotations?.[CredentialsCopiedFromAnnotation] === undefined)
    return 'not-ours';
  const same =
    existing.metadata.annotations[CredentialsCopiedFromAnnotation] === from &&
    copy.keys.every((k) => existing.data?.[k] === data[k]);
  if (same) return 'unchanged';
  await client.update<SecretObject>(Secrets, {
    ...existing,
    metadata: {
      ...existing.metadata,
      annotations: { ...existing.metadata.annotations, [CredentialsCopiedFromAnnotation]: from },
    },
    data: { ...existing.data, ...data },
  });
  return 'updated';
}
