/**
 * @steward/workload — the in-cluster counterpart of @steward/external: the children of a custom
 * resource (StatefulSet, Services, ConfigMaps, Secrets, PDB, NetworkPolicy, …) declared as data
 * and kept converged. No domain knowledge: what the children are is the domain lib's plan; this
 * library writes them and judges them.
 *
 * Contract of `WorkloadChildren.sync(parent, desired)`:
 * - Mode `apply` (default): server-side apply with the controller's field manager and
 *   `force: true` (documented on the class: a controller owns the fields it declares on its own
 *   children), a controller ownerReference (`controller`, `blockOwnerDeletion`) added by the
 *   toolkit, and the annotation `steward.dev/desired-hash` — sha256 (16 hex) of the key-order
 *   independent configuration — so that a field removed from the configuration is applied, and
 *   so removed on the server.
 * - A child is converged when its cached object has this parent as controller, carries the hash
 *   of the configuration, and holds every field of it (`isSubset`: nested subsets, arrays index by
 *   index, quantities by value, zero values matching omitted fields). A converged parent costs
 *   zero API requests: every read comes from the informers of `kinds`; only a name the cache lacks
 *   is looked up (GET) before its first apply.
 * - Mode `create-once` (generated Secrets): POST when missing — the generator runs only then, so
 *   a generator child names itself (`name`) — and AlreadyExists keeps what is there; never
 *   updated, never regenerated.
 * - A core Secret's `stringData` is sent as `data` (the server never returns `stringData`).
 * - Objects of a desired name that this parent does not control (another owner, or none) are
 *   conflicts: reported with a reason, never adopted, never written.
 * - Children of `kinds` this parent controls that are no longer desired are deleted (uid
 *   precondition, background propagation), in a sync where every desired child is in place.
 * - Failed writes do not stop the others; they are thrown together as `ChildrenSyncError`.
 * - `detach` (deletionPolicy Retain) removes only this parent's ownerReference, by a JSON patch
 *   that `test`s its uid at its index, so the garbage collector leaves the object.
 *
 * `planWorkload(facts)` is the in-cluster counterpart of `planManaged`: pause, then deletion
 * (Retain, or Delete behind the guardrail and the kind's pre-delete step), then admission, then
 * the finalizer, then the kind's own phases.
 *
 * The pieces both workload kinds share (pure where they can be): `planVolumeGrowth` /
 * `VolumeGrowth` (claims grown to the spec's size, refusals remembered, a shrink reported),
 * `volumesOf` (the volumes an object's own StatefulSets made — never a same-named predecessor's
 * retained ones), `ordinalOf`, `indexByLabel` (an object's pods by index, not a cache scan) and
 * `recordDecision` ("decide, then act": a decision written over the status it was taken over, or
 * `StaleDecisionError`).
 *
 * Pods: `renderWorkloadStatefulSet` is the one place a workload's pods are rendered — the
 * hardening, the pull policy and pull secrets (`ImagePull`, default `IfNotPresent`), and the
 * placement from `spec.scheduling` (`renderPlacement`: spread over nodes and zones, preferred
 * unless `Required`, overrides as given).
 *
 * Also: `statefulSetRolloutStatus` (exactly `kubectl rollout status`), `generatePassword`
 * (CSPRNG, URL-safe), `controllerReference`, and the pure pieces (`isSubset`, `desiredHash`,
 * `planChild`) for tests and plan functions.
 *
 * For the domain libs' server admins (the protocol stays theirs): `EndpointPool` (one connection
 * per address and password, idle ones closed, their ends awaited on close) and `abortable` (a
 * wait an `AbortSignal` cuts short).
 */
export {
  childKey,
  ConflictReasons,
  type ApplyObject,
  type ChildConflict,
  type ChildrenSync,
  type ChildWrite,
  type ConflictReason,
  type DesiredChild,
  type DesiredGenerator,
  type DesiredObject,
} from './desired-child.js';
export { canonicalJson, DesiredHashAnnotation, desiredHash } from './desired-hash.js';
export { ChildrenSyncError, type ChildFailure } from './errors.js';
export { controllerOf, controllerReference, isControlledBy } from './owner-reference.js';
export { generatePassword } from './password.js';
export {
  addressChild,
  isConverged,
  planChild,
  type AddressedChild,
  type ChildPlan,
} from './plan.js';
export { parseQuantity, quantitiesEqual, type QuantityValue } from './quantity.js';
export {
  RolloutReasons,
  statefulSetRolloutStatus,
  type RolloutStatus,
  type StatefulSetLike,
} from './rollout-status.js';
export { isSubset } from './subset.js';
export {
  OwnerUidIndex,
  WorkloadChildren,
  type WorkloadChildrenOptions,
} from './workload-children.js';
export {
  failoverGauges,
  lossBoundOf,
  type FailoverStatus,
  type LossRecord,
} from './failover-gauges.js';
export {
  planWorkload,
  type DeletionHold,
  type WorkloadAction,
  type WorkloadFacts,
} from './workload-plan.js';
export {
  compareQuantity,
  deleteOwnVolumes,
  EXPANSION_RECHECK_MS,
  ordinalOf,
  planVolumeGrowth,
  retainVolumes,
  templateStorageOf,
  type StatefulSetWithClaims,
  VolumeGrowth,
  VolumeReasons,
  volumesOf,
  type ClaimObject,
  type ExpansionRefusal,
  type VolumeGrowthFacts,
  type VolumeGrowthPlan,
  type VolumesOfObject,
} from './volumes.js';
export {
  compareMarks,
  DecisionMarks,
  decisionStale,
  failoverMarksOf,
  recordDecision,
  StaleDecisionError,
  type Decision,
} from './decision.js';
export { indexByLabel } from './by-label.js';
export { podsByOrdinal, type PodBasics, type WorkloadPod } from './pod-facts.js';
export { protectFromEviction } from './eviction-protection.js';
export {
  drainWantsSwitchover,
  nodeCordonChanged,
  nodeCordoned,
  UnschedulableTaint,
  type WorkloadNode,
} from './drain.js';
export {
  failedLately,
  outdatedPods,
  planRollout,
  ROLLOUT_SWITCHOVER_RETRY_MS,
  rolloutWantsSwitchover,
  type RolloutFacts,
  type RolloutPlan,
  type SwitchoverSeen,
} from './rollout.js';
export { WorkloadReasons } from './reasons.js';
export {
  labelSelector,
  renderClusterIpService,
  renderConfigMap,
  renderHeadlessService,
  renderIngressPolicy,
  renderPodDisruptionBudget,
  renderPolicies,
  renderPrimaryDisruptionBudget,
  EvictionProtectedLabel,
  evictionProtected,
  evictionProtectionChanges,
  renderRoleServices,
  renderService,
  type ChildMeta,
  type IngressPeers,
  type RoleLabel,
  type RoleServiceNames,
  type ChildObject,
  type ServedPort,
} from './render.js';
export {
  availableStatement,
  conditionsOf,
  missingStatement,
  scaling,
  stated,
  workloadConditions,
  type ConditionsInput,
  type PhaseStatement,
  type StatedCondition,
} from './workload-conditions.js';
export {
  eventsOf,
  FailureReasons,
  lastLine,
  newestWarning,
  podFailure,
  readFailures,
  STUCK_AFTER_MS,
  stuckObjects,
  workloadFailures,
  type ClaimLike,
  type ContainerStatusLike,
  type EventLike,
  type Failure,
  type PodLike,
} from './pod-problems.js';
export {
  ChildConflictReason,
  childSecretValue,
  desiredWorkload,
  syncOwnChildren,
  type RenderedWorkload,
} from './sync.js';
export {
  compactResources,
  ContainerSecurityContext,
  DefaultImagePull,
  podSecurityContext,
  renderWorkloadStatefulSet,
  TmpVolume,
  type CpuMemory,
  type ImagePull,
  type ResolvedPods,
  type WorkloadRenderInput,
  type WorkloadStatefulSetSpec,
} from './stateful-set.js';
export { nodeSpread, renderPlacement, zoneSpread, type PodPlacement } from './placement.js';
export {
  ServerGid,
  ServerUid,
  storedName,
  storedNamespace,
  workloadChildNames,
  workloadLabels,
} from './names.js';
export {
  abortable,
  AdminClosedError,
  adminFailure,
  ObservationAbortedError,
  scrubbed,
} from './abortable.js';
export { EndpointPool, type EndpointEntry, type EndpointPoolOptions } from './endpoint-pool.js';
export {
  nextLook,
  scalingEvent,
  stateStatus,
  stateWorkloadStatus,
  type StatedProblem,
  type WorkloadStatusChange,
  type WorkloadStatusProblems,
} from './status-cycle.js';
export {
  durationMs,
  wireWorkload,
  WorkloadChildKinds,
  workloadRuntime,
  type WorkloadRuntime,
  type WorkloadControllerOptions,
  type WorkloadWatch,
  type WorkloadWiring,
  type WorkloadWiringSpec,
} from './wiring.js';
export {
  PausedAnnotation,
  PausedCondition,
  ReconcilePaused,
  refusalOf,
  workloadChanges,
  workloadFacts,
  workloadReconciler,
  type Admission,
  type PreDeleteOutcome,
  type WorkloadKind,
  type WorkloadRefusal,
} from './workload-reconciler.js';
