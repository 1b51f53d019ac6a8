import { POSTGRES_PORT, type PostgresCluster } from '@steward/postgres-cluster-api';
import { ConfigFiles } from '../children/config.js';
import { UpgradeScript } from './scripts.js';
import {
  childNames,
  clusterName,
  clusterNamespace,
  commonLabels,
  ConfigDirectory,
  Labels,
  SecretKeys,
  ReplicationUser,
  Superuser,
} from '../children/names.js';
import { DefaultImagePull, type ImagePull } from '@steward/workload';
import { bootstrapOf } from '../children/secrets.js';
import { ContainerSecurityContext, PodSecurityContext } from '../children/stateful-set.js';
import {
  backupId,
  backupJobName,
  backupPrefix,
  BackupLabels,
  destinationOf,
  rcloneEnv,
  SourceRemote,
  systemPrefix,
  verifyJobName,
  type EnvVar,
} from './layout.js';

/** How long a base backup or a rehearsal may run before its Job is failed (6 h). */
export const BACKUP_DEADLINE_SECONDS = 6 * 3600;
/** How long a finished Job stays for `kubectl logs` (its outcome is in status by then). */
export const BACKUP_JOB_TTL_SECONDS = 24 * 3600;

/**
 * What every backup, verify and upgrade Job's container asks for and may use: little CPU, memory
 * for pg_basebackup/rclone, or for the PostgreSQL server a rehearsal or a restore runs, bounded so
 * that a Job cannot take the node's memory from the instances.
 */
export const JobResources = {
  requests: { cpu: '100m', memory: '256Mi' },
  limits: { memory: '1Gi' },
} as const;

/** Why a backup Job was started (BackupJobInput.reason). */
export const BackupReasonAnnotation = 'postgres.steward.dev/backup-reason';

export interface BackupJobInput {
  cluster: PostgresCluster;
  /** The image of the major the cluster runs (pg_basebackup must match the server). */
  image: string;
  /** How the image is pulled, as for the instances (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  /** The primary's address (its pod IP). */
  primaryHost: string;
  /** When the backup is due: its id and its Job's name. */
  due: Date;
  /** Why: Initial, Scheduled, Final, or `PostgresBackup <name>`. */
  reason: string;
  /** More labels (an on-demand backup's requested-by). */
  labels?: Record<string, string>;
  /** The bound of the scratch volume (the cluster's volume size: a copy never exceeds the data). */
  scratchSize?: string;
}

interface JobShape {
  cluster: PostgresCluster;
  name: string;
  component: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  image: string;
  /** How the image is pulled (absent: `DefaultImagePull`, IfNotPresent without pull secrets). */
  pull?: ImagePull;
  /** A program of the ConfigMap, by file name; or `inline`, the program itself. */
  script: string | { inline: string };
  env: EnvVar[];
  /** Where the scratch emptyDir is mounted. */
  scratch: string;
  /** Its bound (emptyDir sizeLimit: the kubelet evicts a Job's pod that writes more). */
  scratchSize?: string;
}

/**
 * A Job of the cluster's own image running one script of the ConfigMap as the image's
 * unprivileged user: read-only root, no capabilities, no service-account token, Secrets through
 * the environment (never argv), scratch space an emptyDir bounded by the cluster's volume size,
 * requests and limits (`JobResources`). Never retried by the Job controller
 * (backoffLimit 0): the controller reports the failure and its schedule takes the next one. Its
 * pod carries the Job's labels but not the cluster label: it is not an instance.
 */
function renderJob(shape: JobShape) {
  const { cluster } = shape;
  const names = childNames(clusterName(cluster));
  const labels: Record<string, string> = {
    ...commonLabels(cluster),
    'app.kubernetes.io/component': shape.component,
    ...shape.labels,
  };
  const podLabels = { ...labels };
  delete podLabels[Labels.cluster];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: shape.name,
      namespace: clusterNamespace(cluster),
      labels,
      annotations: shape.annotations,
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
          securityContext: PodSecurityContext,
          ...(shape.pull?.secrets.length
            ? { imagePullSecrets: shape.pull.secrets.map((name) => ({ name })) }
            : {}),
          containers: [
            {
              name: shape.component,
              image: shape.image,
              imagePullPolicy: (shape.pull ?? DefaultImagePull).policy,
              command:
                typeof shape.script === 'string'
                  ? ['/bin/sh', `${ConfigDirectory}/${shape.script}`]
                  : ['/bin/sh', '-c', shape.script.inline],
              env: shape.env,
              securityContext: ContainerSecurityContext,
              terminationMessagePolicy: 'File',
              resources: JobResources,
              volumeMounts: [
                { name: 'config', mountPath: ConfigDirectory, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
                { name: 'scratch', mountPath: shape.scratch },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: names.configMap, defaultMode: 0o444 } },
            { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
            {
              name: 'scratch',
              emptyDir: shape.scratchSize ? { sizeLimit: shape.scratchSize } : {},
            },
          ],
        },
      },
    },
  };
}

/**
 * The Job of one base backup: BackupScript, pg_basebackup from the primary as the replication
 * role (not the superuser), its password from its Secret. Labelled `backup-of` (and admitted by
 * the cluster's NetworkPolicy).
 */
export function renderBackupJob(input: BackupJobInput) {
  const { cluster } = input;
  const name = clusterName(cluster);
  const id = backupId(input.due);
  return renderJob({
    cluster,
    name: backupJobName(name, input.due),
    component: 'backup',
    labels: { ...input.labels, [BackupLabels.backupOf]: name, [BackupLabels.backupId]: id },
    annotations: { [BackupReasonAnnotation]: input.reason },
    image: input.image,
    ...(input.pull ? { pull: input.pull } : {}),
    script: ConfigFiles.backup,
    scratch: '/scratch',
    ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
    env: [
      { name: 'STEWARD_BACKUP_ID', value: id },
      { name: 'PGHOST', value: input.primaryHost },
      { name: 'PGPORT', value: String(POSTGRES_PORT) },
      { name: 'PGUSER', value: ReplicationUser },
      {
        name: 'PGPASSWORD',
        valueFrom: {
          secretKeyRef: { name: childNames(name).replicationSecret, key: SecretKeys.password },
        },
      },
      ...rcloneEnv(destinationOf(cluster), backupPrefix(cluster)),
    ],
  });
}

export interface VerifyJobInput {
  cluster: PostgresCluster;
  image: string;
  /** How the image is pulled, as for the instances (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  /** The cluster's database system (its backups' folder). */
  systemIdentifier: string;
  /** The backup rehearsed, and when it was consistent. */
  backup: { id: string; completedAt: string };
  due: Date;
  /** The bound of the scratch volume the backup is restored into (the cluster's volume size). */
  scratchSize?: string;
}

/**
 * The Job of one restore rehearsal: VerifyScript, the backup fetched through the remote `source:`
 * (the cluster's own bucket), recovered with restore-wal.sh in the scratch volume mounted at
 * /data. It connects to no instance. Labelled `verify-of`.
 */
export function renderVerifyJob(input: VerifyJobInput) {
  const { cluster } = input;
  const name = clusterName(cluster);
  const destination = destinationOf(cluster);
  const counts = (cluster.spec.backup?.verify?.rowCounts ?? []).map(
    (c) => `${c.database ?? bootstrapOf({ cluster }).database}|${c.table}|${c.atLeast}`,
  );
  return renderJob({
    cluster,
    name: verifyJobName(name, input.due),
    component: 'verify',
    labels: { [BackupLabels.verifyOf]: name, [BackupLabels.backupId]: input.backup.id },
    annotations: {},
    image: input.image,
    ...(input.pull ? { pull: input.pull } : {}),
    script: ConfigFiles.verify,
    scratch: '/data',
    ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
    env: [
      { name: 'STEWARD_VERIFY_BACKUP', value: input.backup.id },
      { name: 'STEWARD_VERIFY_RECOVERY_POINT', value: input.backup.completedAt },
      { name: 'STEWARD_VERIFY_ROW_COUNTS', value: counts.join('\n') },
      ...rcloneEnv(
        destination,
        systemPrefix(backupPrefix(cluster), input.systemIdentifier).replace(/\/$/, ''),
        { remote: SourceRemote, pathVariable: 'STEWARD_RESTORE_PATH' },
      ),
    ],
  });
}

export interface UpgradeJobInput {
  cluster: PostgresCluster;
  /** The new major's image (its pg_dump reads the old server). */
  image: string;
  /** How the image is pulled, as for the instances (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  /** The old primary's and the new instance's pod IPs. */
  fromHost: string;
  toHost: string;
  /** The upgrade's generation: one Job per attempt, the same name for the same attempt. */
  generation: number;
  /** The bound of the scratch volume (the cluster's volume size). */
  scratchSize?: string;
}

/** The Job of a major upgrade's attempt: `<name>-upgrade-<generation>`. */
export function upgradeJobName(cluster: string, generation: number): string {
  return `${cluster}-upgrade-${generation}`;
}

/**
 * The dump-and-restore Job of a major upgrade (UpgradeScript, inline: it is not in the ConfigMap,
 * whose every change rolls the instances): the superuser on both servers, by pod IP. Labelled
 * `upgrade-of` (the NetworkPolicy admits it).
 */
export function renderUpgradeJob(input: UpgradeJobInput) {
  const { cluster } = input;
  const name = clusterName(cluster);
  return renderJob({
    cluster,
    name: upgradeJobName(name, input.generation),
    component: 'upgrade',
    labels: { [BackupLabels.upgradeOf]: name },
    annotations: {},
    image: input.image,
    ...(input.pull ? { pull: input.pull } : {}),
    script: { inline: UpgradeScript },
    scratch: '/scratch',
    ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
    env: [
      { name: 'STEWARD_FROM_HOST', value: input.fromHost },
      { name: 'STEWARD_TO_HOST', value: input.toHost },
      { name: 'PGPORT', value: String(POSTGRES_PORT) },
      { name: 'PGUSER', value: Superuser },
      {
        name: 'PGPASSWORD',
        valueFrom: {
          secretKeyRef: { name: childNames(name).superuserSecret, key: SecretKeys.password },
        },
      },
    ],
  });
}
