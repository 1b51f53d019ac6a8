/**
 * The DatabaseInstance controller: ProviderProfile → guardrails → RDS or Cloud SQL through
 * `managedReconciler`, with the pure pieces it is built from (admission, config from a profile).
 */
export { admit, type Admission } from './admission.js';
export {
  ByProviderProfile,
  DatabaseInstanceFinalizer,
  databaseInstanceController,
  readCredentials,
  type DatabaseInstanceControllerOptions,
} from './controller.js';
export {
  awsConfigFromProfile,
  credentialsRef,
  DefaultCredentialKeys,
  gcpConfigFromProfile,
  gcpEndpointOptions,
  parseAwsCredentialsFile,
  ProfileReasons,
} from './profile-config.js';
