/**
 * The AWS RDS provider of DatabaseInstance: `rdsExternalProvider()` for `managedReconciler`, and
 * the pure pieces it is made of (identifier, desired state and validation, modification plan,
 * state mapping, error mapping).
 */
export {
  DefaultEngineVersions,
  desiredRdsInstance,
  StorageBounds,
  type DesiredRdsInstance,
} from './desired.js';
export { RdsError, RdsReasons, rdsCall, rdsErrorKind, type RdsErrorKind } from './errors.js';
export { isValidRdsIdentifier, rdsIdentifier } from './identifier.js';
export { checkModification, planModification, type RdsModification } from './plan.js';
export {
  finalSnapshotIdentifier,
  rdsExternalProvider,
  RdsTags,
  type RdsProviderOptions,
} from './provider.js';
export { isUsable, observedStatus, providerState } from './state.js';
