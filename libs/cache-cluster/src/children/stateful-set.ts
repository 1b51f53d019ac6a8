import { CACHE_PORT, type CacheEngine } from '@steward/cache-cluster-api';
import {
  compactResources,
  ContainerSecurityContext,
  podSecurityContext,
  renderWorkloadStatefulSet,
  ServerGid,
  ServerUid,
  TmpVolume,
} from '@steward/workload';
import {
  AuthConfigPath,
  ConfigDirectory,
  ConfigFileName,
  configHash,
  DataDirectory,
  renderConfig,
} from './config.js';
import {
  clusterName,
  clusterNamespace,
  clusterSelector,
  commonLabels,
  ConfigHashAnnotation,
  engineOf,
} from './labels.js';
import { childNames, DataVolumeName } from './names.js';
import { type ChildObject, type RenderInput, replicasOf } from './render-input.js';

export { ServerGid, ServerUid };
/** The server container's name in every pod. */
export const ServerContainerName = 'server';
/** The environment variable the pods read the password from (a secretKeyRef, never a value). */
export const PasswordEnv = 'CACHE_PASSWORD';

/**
 * The container's command (`/bin/sh -c` this): refuse an empty password (an empty `requirepass`
 * turns authentication off), write AuthConfigPath — readable by the server's user only — with
 * `requirepass` and `masterauth`, and exec the server with redis.conf and that file. The password
 * travels from the environment through a pipe into the file, never through a command line, the
 * ConfigMap or the logs, and is gone from the server's environment. It is written as `\xHH`
 * escapes inside double quotes, so any byte (quotes, spaces, a trailing newline of a hand-made
 * Secret) reaches the server exactly as the Secret holds it.
 */
export function serverScript(engine: CacheEngine): string {
  return String.raw`set -e
if [ -z "$${PasswordEnv}" ]; then
  echo "${PasswordEnv} is empty: refusing to start ${engine}-server without a password" >&2
  exit 1
fi
umask 077
hex=$(printf '%s' "$${PasswordEnv}" | od -An -v -tx1 | tr -d ' \n' | sed 's/../\\x&/g')
printf 'requirepass "%s"\nmasterauth "%s"\n' "$hex" "$hex" >${AuthConfigPath}
unset ${PasswordEnv} hex
exec ${engine}-server ${ConfigDirectory}/${ConfigFileName} --include ${AuthConfigPath}`;
}

/** The readiness check: an authenticated PING answered PONG (the password through REDISCLI_AUTH, not argv). */
export function readinessScript(engine: CacheEngine): string {
  return `REDISCLI_AUTH="$${PasswordEnv}" ${engine}-cli -h 127.0.0.1 -p ${CACHE_PORT} ping | grep -q PONG`;
}

/**
 * The StatefulSet `<name>`: `replicasOf(cluster)` pods started in parallel, `updateStrategy:
 * OnDelete` — the controller rolls a template change (the config hash annotation included) itself,
 * replicas first and the primary last, switched over first (phases/roll.ts) — PVCs kept on scale-down and deletion
 * (the controller deletes them per `spec.deletionPolicy`). Pods run non-root with a read-only
 * root filesystem, no capabilities, no service-account token and no service links; writable are
 * /tmp (memory, 16Mi) and /data (the `data` PVC with persistence, an emptyDir without).
 */
export function renderStatefulSet(input: RenderInput): ChildObject {
  const { cluster } = input;
  const name = clusterName(cluster);
  const names = childNames(name);
  const engine = engineOf(cluster);
  const labels = commonLabels(cluster);
  const storage = input.storage;
  const container = {
    name: ServerContainerName,
    image: input.image,
    command: ['/bin/sh', '-c', serverScript(engine)],
    env: [
      {
        name: PasswordEnv,
        valueFrom: {
          secretKeyRef: { name: input.passwordSecret.name, key: input.passwordSecret.key },
        },
      },
    ],
    ports: [{ name: 'redis', containerPort: CACHE_PORT, protocol: 'TCP' }],
    // A server that stops on an error leaves its last log lines as the termination message: the
    // crash loop's condition quotes the server's own last error line (CrashLooping).
    terminationMessagePolicy: 'FallbackToLogsOnError',
    readinessProbe: {
      exec: { command: ['/bin/sh', '-c', readinessScript(engine)] },
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    // A TCP connect, not a PING: a server loading a large dataset answers LOADING to commands
    // but accepts connections, and must not be killed for taking its time.
    livenessProbe: {
      tcpSocket: { port: CACHE_PORT },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    },
    ...(input.resources ? { resources: compactResources(input.resources) } : {}),
    securityContext: ContainerSecurityContext,
    volumeMounts: [
      { name: 'config', mountPath: ConfigDirectory, readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
      { name: DataVolumeName, mountPath: DataDirectory },
    ],
  };
  return renderWorkloadStatefulSet({
    meta: { namespace: clusterNamespace(cluster), labels },
    name: names.statefulSet,
    serviceName: names.headless,
    selector: clusterSelector(name),
    replicas: replicasOf(cluster),
    updateStrategy: 'OnDelete',
    whenScaled: 'Retain',
    podAnnotations: { [ConfigHashAnnotation]: configHash(renderConfig(input)) },
    securityContext: podSecurityContext(ServerUid, ServerGid),
    containers: [container],
    scheduling: cluster.spec.scheduling,
    ...(input.pull ? { pull: input.pull } : {}),
    volumes: [
      { name: 'config', configMap: { name: names.configMap } },
      TmpVolume,
      ...(storage ? [] : [{ name: DataVolumeName, emptyDir: {} }]),
    ],
    ...(storage
      ? {
          claim: {
            name: DataVolumeName,
            size: input.existingTemplateStorage ?? storage.size,
            ...(storage.storageClassName ? { storageClassName: storage.storageClassName } : {}),
          },
        }
      : {}),
  });
}
