/**
 * The children of a CacheCluster, rendered: pure functions from the cluster and what the
 * controller resolved for it (image, resources, maxMemory, storage, the password's Secret) to
 * plain Kubernetes objects as server-side apply takes them — apiVersion, kind, metadata (name,
 * namespace, labels, annotations) and spec; never ownerReferences (the applier adds its
 * controller reference) nor status. No I/O.
 *
 * - StatefulSet `<name>` (pods `<name>-<i>`, PVCs `data-<name>-<i>` with persistence), headless
 *   Service `<name>-headless`, Services `<name>-rw` (role=primary) and `<name>-ro`
 *   (role=replica), ConfigMap `<name>-config` (redis.conf), PodDisruptionBudgets `<name>`
 *   (maxUnavailable 1 for a single pod; else minAvailable pods−2 over the pods not
 *   eviction-protected) and, Replicated with more than one pod, `<name>-primary` (maxUnavailable 0
 *   over the eviction-protected pods: the primary, both ends of a switchover), NetworkPolicy
 *   `<name>`, and the Secret `<name>-auth` when the password is generated.
 * - The password is never rendered into anything but that Secret: pods read it through a
 *   secretKeyRef and write it to a memory-backed file at start.
 * - A Replicated cluster's pods boot fenced (`replicaof 127.0.0.1 1`); the controller gives each
 *   its role (REPLICAOF, and the role label the Services select on).
 */
export { renderAuthSecret } from './auth-secret.js';
export {
  AuthConfigPath,
  ConfigDirectory,
  ConfigFileName,
  configHash,
  DataDirectory,
  MaxMemoryOfLimit,
  maxMemoryOf,
  renderConfig,
} from './config.js';
export { renderConfigMap } from './config-map.js';
export {
  clusterSelector,
  commonLabels,
  ConfigHashAnnotation,
  engineOf,
  Labels,
  type Role,
  Roles,
} from './labels.js';
export { memoryBytes } from './memory.js';
export { childNames, DataVolumeName, PasswordKey, type ChildNames } from './names.js';
export { renderPolicies } from './policies.js';
export { passwordSecretOf, renderChildren } from './render-children.js';
export {
  replicasOf,
  type ChildObject,
  type CpuMemory,
  type RenderedChildren,
  type RenderInput,
} from './render-input.js';
export { renderServices } from './services.js';
export {
  PasswordEnv,
  readinessScript,
  renderStatefulSet,
  serverScript,
  ServerContainerName,
  ServerGid,
  ServerUid,
} from './stateful-set.js';
