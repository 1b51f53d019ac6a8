import { POSTGRES_PORT, type PostgresCluster } from '@steward/postgres-cluster-api';
import { ConfigFiles } from '../children/config.js';
import {
  childNames,
  clusterName,
  clusterNamespace,
  commonLabels,
  ConfigDirectory,
  Labels,
  SecretKeys,
  Superuser,
} from '../children/names.js';
import { ServerGid, ServerUid } from '../children/stateful-set.js';
import { backupId, backupJobName, backupPrefix, BackupLabels, rcloneEnv } from './layout.js';

/** How long a base backup may run before its Job is failed (6 h). */
export const BACKUP_DEADLINE_SECONDS = 6 * 3600;
/** How long a finished backup Job stays for `kubectl logs` (its outcome is in status by then). */
export const BACKUP_JOB_TTL_SECONDS = 24 * 3600;

export interface BackupJobInput {
  cluster: PostgresCluster;
  /** The image of the major the cluster runs (pg_basebackup must match the server). */
  image: string;
  /** The primary's address (its pod IP). */
  primaryHost: string;
  /** When the backup is due: its id and its Job's name. */
  due: Date;
  /** Why: Scheduled, Initial, or a PostgresBackup's name. */
  reason: string;
}

/**
 * The Job of one base backup: BackupScript (from the ConfigMap) in the cluster's own image, as
 * the image's unprivileged user, read-only root, no capabilities, no service-account token; the
 * superuser's password and the bucket's keys from their Secrets (environment, never argv);
 * scratch space an emptyDir. Never retried by the Job controller (backoffLimit 0): the controller
 * reports the failure and the schedule takes the next one. Labelled `backup-of`, not with the
 * cluster label — its pod is not an instance — and admitted by the cluster's NetworkPolicy.
 */
export function renderBackupJob(input: BackupJobInput) {
  const { cluster } = input;
  const name = clusterName(cluster);
  const names = childNames(name);
  const destination = cluster.spec.backup!.destination;
  const id = backupId(input.due);
  const labels: Record<string, string> = {
    ...commonLabels(cluster),
    'app.kubernetes.io/component': 'backup',
    [BackupLabels.backupOf]: name,
    [BackupLabels.backupId]: id,
  };
  const podLabels = { ...labels };
  delete podLabels[Labels.cluster];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: backupJobName(name, input.due),
      namespace: clusterNamespace(cluster),
      labels,
      annotations: { 'postgres.steward.dev/backup-reason': input.reason },
    },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: BACKUP_DEADLINE_SECONDS,
      ttlSecondsAfterFinished: BACKUP_JOB_TTL_SECONDS,
      template: {
        metadata: { labels: podLabels },
        spec: {
          restartPolicy: 'Never',
          enableServiceLinks: false,
          automountServiceAccountToken: false,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: ServerUid,
            runAsGroup: ServerGid,
            fsGroup: ServerGid,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'backup',
              image: input.image,
              imagePullPolicy: 'Never',
              command: ['/bin/sh', `${ConfigDirectory}/${ConfigFiles.backup}`],
              env: [
                { name: 'STEWARD_BACKUP_ID', value: id },
                { name: 'PGHOST', value: input.primaryHost },
                { name: 'PGPORT', value: String(POSTGRES_PORT) },
                { name: 'PGUSER', value: Superuser },
                {
                  name: 'PGPASSWORD',
                  valueFrom: {
                    secretKeyRef: { name: names.superuserSecret, key: SecretKeys.password },
                  },
                },
                ...rcloneEnv(destination, backupPrefix(cluster)),
              ],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
              },
              terminationMessagePolicy: 'File',
              volumeMounts: [
                { name: 'config', mountPath: ConfigDirectory, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'scratch', mountPath: '/scratch' },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: names.configMap, defaultMode: 0o444 } },
            { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
            { name: 'scratch', emptyDir: {} },
          ],
        },
      },
    },
  };
}
