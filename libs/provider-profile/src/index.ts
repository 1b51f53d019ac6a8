/**
 * @steward/provider-profile — the ProviderProfile controller: is a profile's credentials working,
 * who uses it, and may it go.
 *
 * `providerProfileController(manager, { providers, checkCredentials, users })` handles the profiles
 * whose `spec.provider` is one of `providers` and leaves every other profile alone (no finalizer,
 * no status), so that the database-instance process (`['aws', 'gcp']`) and a Kafka process
 * (`['kafka']`) never write the same profile. For each handled profile:
 *
 * - **Credentials**: `checkCredentials(profile, signal)` — one cheap read-only provider call,
 *   supplied by the domain that knows the provider — runs on creation, on each new generation and
 *   every `recheckIntervalMs` (default 5 min); never for usage changes or requeues in between. Its
 *   outcome is `Ready` with `observedGeneration`: True `CredentialsVerified`; False
 *   `CredentialsNotFound` / `CredentialsInvalid` / `InvalidProviderProfile` with `Stalled=True`
 *   (the platform team must act: no retry before the next interval or spec change, and the
 *   runtime's Warning Event), or False `ProviderUnreachable` / `CredentialsCheckFailed` without
 *   `Stalled` (retried with backoff, 1 s doubling to 5 min). A check is cut off after
 *   `checkTimeoutMs` (default 30 s) as `ProviderUnreachable`.
 * - **Usage**: `status.usedBy` is the number of objects of the `users` kinds that reference the
 *   profile, counted from the shared informer caches — objects being deleted included, since their
 *   cleanup (e.g. deleting a database) still needs the profile's credentials.
 * - **Several controllers, one profile**: each process counts only its own user kinds, in
 *   `status.usedByKind` (it replaces its kinds' entries and keeps the others'), and `usedBy` is
 *   the sum; each holds its own finalizer (`inUseFinalizerFor(users)`, e.g.
 *   `steward.dev/in-use-by-cacheclusters`), so a process with no users left never lets a profile go
 *   that another's objects still reference. The shared `steward.dev/in-use` of earlier versions is
 *   removed once a process's own finalizer is on.
 * - **In-use protection**: the process's finalizer is added to every handled profile.
 *   Deleting a profile still in use leaves it in place with `Ready=False, InUse` naming how many
 *   and up to three `namespace/name` of its users, plus a Warning Event; when the last user is
 *   gone the finalizer is removed — with a JSON-patch `test`, so another controller's finalizer is
 *   never touched — and the API server deletes the profile.
 * - **Zero writes when converged**: status is merge-patched (resourceVersion-guarded) only when it
 *   differs, `lastTransitionTime` moves only with a condition's status; Events only when `Ready`
 *   changes.
 * - Secret contents never reach logs, Events or status: messages come from the check, whose
 *   contract forbids secrets in them.
 * - **kubernetes profiles** (in-cluster workloads) have no credentials: `checkCredentials` is not
 *   needed for them and never called; such a profile is `Ready=True, CatalogueAccepted` with a
 *   message listing its images, size classes and limits (recomputed on each new generation, no
 *   recheck timer). Finalizer, `usedBy` and in-use protection work as for the others.
 *
 * `admitWorkload(profile, request)` is the kubernetes profile's guardrails and catalogue applied
 * to one in-cluster workload (pure, for the CacheCluster and PostgresCluster controllers): the
 * image for its engine and version and how it is pulled (the entry's `imagePullPolicy`, default
 * `IfNotPresent`; the profile's `imagePullSecrets`, names only — never read here), its size
 * class's resources, maxMemory and storage, or the first rule it breaks
 * (`WorkloadAdmissionReasons`; `SpreadRequired` when `spec.scheduling` spreads less than
 * `spec.kubernetes.requireSpread` asks, or replaces the spread it guards). `parseQuantity` / `compareQuantities` read
 * Kubernetes quantities exactly, for comparing sizes by value.
 *
 * **Tenancy** (`namespace-access.ts`, pure): `profileAllowsNamespace(profile, namespace)` — a
 * profile is usable from the namespaces its `spec.namespaces` lists or its `spec.namespaceSelector`
 * selects, and from none when it sets neither; `namespaceRefusal` is the
 * `ProfileNotAllowedInNamespace` refusal every referencing kind reports (`admitWorkload` checks it
 * first); `profileAllowsAdoption` / `adoptionRefusal` read `spec.adoption.namespaces`.
 * `namespaceDirectory(manager)` gives controllers the namespaces' labels from one shared informer
 * and the watch that wakes a namespace's objects when its labels change.
 *
 * RBAC: `namespaces` get/list/watch (for `namespaceDirectory`); `steward.dev` `providerprofiles` get/list/watch/patch, `providerprofiles/status` patch;
 * list/watch on every `users` kind; whatever `checkCredentials` reads (e.g. `get` on the Secrets
 * profiles name); `events.k8s.io` `events` create/patch for the Event recorder.
 */
export { CredentialsCheckSchedule } from './check-schedule.js';
export {
  WorkloadProfiles,
  type ProfileReferrer,
  type ProfileRefusal,
} from './workload-profiles.js';
export {
  inUseFinalizerFor,
  providerProfileController,
  TransientCredentialsError,
  type ProviderProfileControllerOptions,
} from './controller.js';
export {
  noopCredentialsCheck,
  runCredentialsCheck,
  type CredentialsCheck,
  type CredentialsCheckResult,
} from './credentials-check.js';
export { describeImages } from './catalogue.js';
export {
  compareQuantities,
  InvalidQuantityError,
  isQuantity,
  parseQuantity,
  quantityToNumber,
  type Quantity,
} from './quantity.js';
export {
  InUseFinalizer,
  ProviderProfileReasons,
  ReadyCondition,
  WorkloadAdmissionReasons,
  type WorkloadAdmissionReason,
} from './reasons.js';
export {
  planStatus,
  stateFromCatalogue,
  stateFromCheck,
  stateInUse,
  type ProfileState,
  type StatusPlan,
} from './status.js';
export {
  describeUsage,
  NamedUsersInMessage,
  profileUsage,
  type ProfileUsage,
  type ProfileUser,
  type ProfileUserRef,
} from './users.js';
export { profileChangesForUsers } from './predicates.js';
export {
  adoptionRefusal,
  matchesLabelSelector,
  namespaceRefusal,
  NamespaceRecheckMs,
  profileAllowsAdoption,
  profileAllowsNamespace,
  TenancyReasons,
  type NamespaceFacts,
  type TenancyRefusal,
} from './namespace-access.js';
export {
  ByNamespaceIndex,
  namespaceDirectory,
  type NamespaceDirectory,
} from './namespace-directory.js';
export {
  admitWorkload,
  DefaultWorkloadFields,
  type ResolvedWorkload,
  type WorkloadAdmission,
  type WorkloadFields,
  type WorkloadRequest,
} from './workload-admission.js';
export {
  wireProfiledWorkload,
  workloadProfileUsers,
  type ProfiledWorkload,
  type ProfiledWorkloadSpec,
  type WorkloadReconcilerDeps,
} from './profiled-workload.js';
