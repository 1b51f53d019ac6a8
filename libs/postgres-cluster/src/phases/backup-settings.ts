import { TerminalError } from '@steward/controller';
import { type WorkloadProfiles } from '@steward/provider-profile';
import { copyBackupCredentials, CredentialsSourceMissing } from '../backup/credentials.js';
import { resolveBackup } from '../resolve.js';
import { PostgresReasons } from '../status.js';
import { type Cluster, type PhaseEnv } from './env.js';

/**
 * The cluster with its backup settings resolved against its profile, or a refusal — before
 * anything connects to a bucket. A profile that copies its credentials Secret into workload
 * namespaces gets the copy made here, before a pod or Job needs it.
 */
export async function withBackupSettings(
  env: PhaseEnv,
  profiles: WorkloadProfiles<Cluster>,
  obj: Cluster,
  signal?: AbortSignal,
): Promise<Cluster> {
  const resolved = resolveBackup(obj, profiles.of(obj));
  if (!resolved.allowed) throw new TerminalError(resolved.reason, resolved.message);
  const copy = resolved.credentialsCopy;
  if (copy) {
    const namespace = obj.metadata.namespace!;
    const outcome = await copyBackupCredentials(env.client, copy, namespace, signal).catch(
      (error: unknown) => {
        if (!(error instanceof CredentialsSourceMissing)) throw error;
        throw new TerminalError(
          PostgresReasons.BackupCredentialsNotCopied,
          `${error.message}: the platform team must create it (ProviderProfile ${profiles.nameOf(obj)}, spec.kubernetes.backup.copyCredentialsToWorkloadNamespaces)`,
          { recheckAfter: 60_000 },
        );
      },
    );
    if (outcome === 'created' || outcome === 'updated')
      env.emit(
        obj,
        'Normal',
        'BackupCredentialsCopied',
        `Secret ${copy.to} ${outcome} in namespace ${namespace} from ${copy.from.namespace}/${copy.from.name} (the ProviderProfile copies its backup credentials into workload namespaces)`,
      );
  }
  return resolved.cluster;
}
