/**
 * What the ProviderProfile controller needs from the DatabaseInstance domain: the credentials
 * checks of `aws` and `gcp` profiles (read the Secret as the DatabaseInstance controller does, make
 * one cheap read-only call, map the answer to `CredentialsInvalid` / `ProviderUnreachable` / …),
 * and DatabaseInstance as a kind that uses profiles.
 */
export {
  awsCredentialsCheck,
  databaseCredentialsCheck,
  gcpCredentialsCheck,
  type AwsCredentialsCheckOptions,
  type DatabaseCredentialsCheckOptions,
  type GcpCredentialsCheckOptions,
} from './credentials-check.js';
export { awsCheckFailure, cloudSqlCheckFailure, type CheckFailure } from './failures.js';
export { databaseInstanceUsers } from './users.js';
