/**
 * @steward/crd — one source of truth per kind.
 *
 * `defineKind({ group, version, kind, plural, scope, spec, status, … })` takes TypeBox schemas and
 * yields the kind's TypeScript types (`Static<typeof spec>`, `typeof kind.$object`), its
 * `ResourceType` for `@steward/kube`, and its CustomResourceDefinition: a structural
 * `openAPIV3Schema` (see `toStructural` for what is rewritten or refused), the status
 * subresource, printer columns (+ Age) and CEL `x-kubernetes-validations`, so that what the
 * schema or CEL can know is rejected at admission, by the API server, with its own message.
 * CRD YAML under `charts/*\/crds/` is generated from these definitions, never written by hand.
 * The fields every in-cluster workload kind shares — spec (`ComputeResources`, `VolumeClaimFields`,
 * `ClientsSpec`, `DeletionPolicyField`, `SchedulingSpec`, `ImagePullPolicies` …) and status (`ReplicaStatusFields`, `FailoverRecordFields`
 * …) — are defined once here, so each kind's CRD says one thing one way.
 */
export {
  defineKind,
  type Kind,
  type KindDefinition,
  type KindObject,
  type PrinterColumn,
} from './define-kind.js';
export {
  ConditionsSchema,
  immutable,
  StringEnum,
  StringMap,
  withValidations,
  type CelRule,
} from './schema-helpers.js';
export { quantityBounds, type QuantityBounds } from './quantity-rules.js';
export { toStructural } from './structural.js';
export {
  DataLossRisks,
  FailoverCountFields,
  FailoverRecordFields,
  FencingModes,
  FencingStatus,
  ReplicaStatusFields,
  SalvagePhases,
  StatusEndpoint,
  SwitchoverPauseFields,
  SwitchoverReasons,
  WorkloadColumns,
  workloadPhases,
  type DataLossRisk,
  type FencingMode,
  type SalvagePhase,
  type SwitchoverReason,
} from './workload-status.js';
export { PrimaryUpdateMethods, RolloutSpec, type PrimaryUpdateMethod } from './rollout-spec.js';
export {
  ClientsSpec,
  ComputeResources,
  DeletionPolicies,
  DeletionPolicyField,
  FailoverSpecFields,
  ImagePullPolicies,
  ObjectName,
  ProviderProfileRef,
  Quantity,
  requestsWithinLimits,
  SizeClass,
  storageClassNameStaysSet,
  VolumeClaimFields,
  type DeletionPolicy,
  type ImagePullPolicy,
  type QuantityOptions,
  type VolumeSizeOptions,
} from './workload-spec.js';
export {
  LABEL_KEY_PATTERN,
  LabelSelectorOperators,
  NodeSelectorOperators,
  NodeTopologyKey,
  SchedulingSpec,
  SpreadPolicies,
  TaintEffects,
  TolerationOperators,
  WhenUnsatisfiable,
  ZoneTopologyKey,
  type SpreadPolicy,
  type Toleration,
  type TopologySpreadConstraint,
  type WorkloadAffinity,
  type WorkloadScheduling,
} from './scheduling.js';
