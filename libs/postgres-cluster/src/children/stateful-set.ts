import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import {
  compactResources,
  ContainerSecurityContext,
  podSecurityContext,
  renderWorkloadStatefulSet,
  ServerGid,
  ServerUid,
  TmpVolume,
} from '@steward/workload';
import { backupPrefix, destinationOf, rcloneEnv, SourceRemote } from '../backup/layout.js';
import { ConfigFiles, configHash, renderConfigFiles } from './config.js';
import { FenceTokenDirectory, FenceTokenSeconds, LeaseEnv } from './instance-account.js';
import {
  childNames,
  clusterName,
  clusterNamespace,
  clusterSelector,
  commonLabels,
  ConfigDirectory,
  ConfigHashAnnotation,
  DataDirectory,
  DataVolumeName,
  fenceLease,
  InstructionAnnotation,
  Labels,
  PgData,
  PodInfoDirectory,
  replicasOf,
  SecretKeys,
  SocketDirectory,
} from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

export { ServerGid, ServerUid };
/** The instance container's name in every pod. */
export const InstanceContainerName = 'postgres';
/** The instance container's variable holding the replication role's password (the agent's passfile). */
export const ReplicationPasswordEnv = 'STEWARD_REPLICATION_PASSWORD';
/** Every container of a PostgresCluster's pods (instances, backup and rehearsal Jobs). */
export { ContainerSecurityContext };

/** Every pod of a PostgresCluster: the images' unprivileged user, RuntimeDefault seccomp. */
export const PodSecurityContext = podSecurityContext(ServerUid, ServerGid);

/** The file in PodInfoDirectory that holds the instruction (the downward API). */
export const InstructionFile = 'instruction';

/**
 * The StatefulSet `<name>`: `spec.replicas` instances started in parallel, each running the
 * instance agent (instance-script.ts), which waits for the controller's instruction before
 * PostgreSQL starts. `updateStrategy: OnDelete`: the controller rolls the pods itself — standbys
 * before the primary — since the StatefulSet's own rolling update would restart the primary
 * whenever its ordinal comes. Claims stay when the StatefulSet is deleted (the controller keeps or
 * deletes them per spec.deletionPolicy) and go with a scaled-away standby (a stale copy, re-cloned
 * if the instance comes back). Pods run non-root with a read-only root filesystem, no
 * capabilities, no service-account token and no service links; writable are /tmp (memory),
 * /run/postgresql (the socket) and /data (the claim). No liveness probe: restarting PostgreSQL
 * (e.g. during a long crash recovery) is never the kubelet's call.
 */
export function renderStatefulSet(input: RenderInput): ChildObject {
  const { cluster } = input;
  const name = clusterName(cluster);
  const names = childNames(name);
  const set = input.instanceSet ?? names.statefulSet;
  // The first StatefulSet selects on the cluster label alone (selectors are immutable); one made
  // by an upgrade selects its own pods only.
  const own: Record<string, string> =
    set === names.statefulSet ? {} : { [Labels.instanceSet]: set };
  const labels = { ...commonLabels(cluster), ...own };
  const container = {
    name: InstanceContainerName,
    image: input.image,
    command: ['/bin/sh', `${ConfigDirectory}/${ConfigFiles.agent}`],
    env: [
      { name: 'PGDATA', value: PgData },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
      // Self-fencing: the agent renews its set's Lease with the pod's projected token — a major
      // upgrade's set (`<name>-v<major>`) its own, from its first start (the controller takes it
      // for the new instance before telling it to initdb), so nothing rolls at the switch.
      { name: LeaseEnv, value: fenceLease(set) },
      { name: 'STEWARD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      {
        name: 'POSTGRES_PASSWORD',
        valueFrom: {
          secretKeyRef: { name: names.superuserSecret, key: SecretKeys.password },
        },
      },
      // The agent's passfile: standbys stream, clone and rewind as the replication role.
      {
        name: ReplicationPasswordEnv,
        valueFrom: {
          secretKeyRef: { name: names.replicationSecret, key: SecretKeys.password },
        },
      },
      // WAL archiving (archive.sh) reaches the bucket through rclone's environment.
      ...(cluster.spec.backup ? rcloneEnv(destinationOf(cluster), backupPrefix(cluster)) : []),
      // A restore (spec.bootstrap.recovery): the source bucket through the remote `source:`;
      // its Secret optional, so that pods still start once it is gone after the restore.
      ...(input.restore
        ? [
            ...rcloneEnv(input.restore.destination, input.restore.systemPrefix, {
              remote: SourceRemote,
              pathVariable: 'STEWARD_RESTORE_PATH',
              optionalSecret: true,
            }).filter((e) => !(cluster.spec.backup && e.name === 'RCLONE_CONFIG')),
            { name: 'STEWARD_RESTORE_BACKUP', value: input.restore.backupId },
            ...(input.restore.targetTime
              ? [
                  {
                    name: 'STEWARD_RESTORE_TARGET_TIME',
                    value: recoveryTargetTime(input.restore.targetTime),
                  },
                ]
              : []),
          ]
        : []),
    ],
    ports: [{ name: 'postgresql', containerPort: POSTGRES_PORT, protocol: 'TCP' }],
    readinessProbe: {
      exec: { command: ['pg_isready', '-q', '-h', SocketDirectory, '-p', String(POSTGRES_PORT)] },
      periodSeconds: 2,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    ...(input.resources ? { resources: compactResources(input.resources) } : {}),
    securityContext: ContainerSecurityContext,
    terminationMessagePolicy: 'File',
    volumeMounts: [
      { name: 'config', mountPath: ConfigDirectory, readOnly: true },
      { name: 'pod', mountPath: PodInfoDirectory, readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'socket', mountPath: SocketDirectory },
      { name: 'fence', mountPath: FenceTokenDirectory, readOnly: true },
      { name: DataVolumeName, mountPath: DataDirectory },
    ],
  };
  return renderWorkloadStatefulSet({
    meta: { namespace: clusterNamespace(cluster), labels },
    name: set,
    serviceName: names.headless,
    selector: { ...clusterSelector(name), ...own },
    replicas: input.replicas ?? replicasOf(cluster),
    updateStrategy: 'OnDelete',
    whenScaled: 'Delete',
    podAnnotations: { [ConfigHashAnnotation]: configHash(renderConfigFiles(input)) },
    securityContext: PodSecurityContext,
    containers: [container],
    scheduling: cluster.spec.scheduling,
    ...(input.pull ? { pull: input.pull } : {}),
    serviceAccountName: names.instanceAccount,
    volumes: [
      { name: 'config', configMap: { name: names.configMap, defaultMode: 0o444 } },
      {
        name: 'pod',
        downwardAPI: {
          items: [
            {
              path: InstructionFile,
              fieldRef: { fieldPath: `metadata.annotations['${InstructionAnnotation}']` },
            },
          ],
        },
      },
      TmpVolume,
      { name: 'socket', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
      {
        // The instance account's token (audience: the API server; rotated by the kubelet) and
        // the API server's CA: all the agent needs to renew the Lease.
        name: 'fence',
        projected: {
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: FenceTokenSeconds } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          ],
        },
      },
    ],
    claim: {
      name: DataVolumeName,
      size: input.existingTemplateStorage ?? input.storage.size,
      ...(input.storage.storageClassName
        ? { storageClassName: input.storage.storageClassName }
        : {}),
    },
  });
}

/**
 * An RFC 3339 time as recovery_target_time takes it: PostgreSQL checks that setting before it
 * knows time-zone abbreviations, so `Z` is refused; a numeric offset is not
 * (2026-12-03T14:30:07.495Z → 2026-12-03 14:30:07.495+00).
 */
export function recoveryTargetTime(rfc3339: string): string {
  const at = new Date(rfc3339);
  if (Number.isNaN(at.getTime())) throw new Error(`not a time: ${rfc3339}`);
  return at.toISOString().replace('T', ' ').replace('Z', '+00');
}
