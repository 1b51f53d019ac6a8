/**
 * @steward/database-instance — the DatabaseInstance domain: providers for AWS RDS and GCP Cloud SQL
 * on `@steward/external`'s managed reconciler, the platform team's guardrails, and the connection
 * Secret.
 *
 * - `checkGuardrails(profile, obj)` is pure and runs before anything happens at a provider: a
 *   forbidden deletion policy, a skipped final snapshot the profile requires, or a size the profile
 *   does not allow stops the object with a reason and a message naming the field and the profile.
 * - `ensureMasterPassword` generates the master password once and stores it in the connection
 *   Secret before any create call; with `deletionPolicy: Retain` the Secret outlives the object, as
 *   the database does. Passwords never reach logs, Events or status.
 */
export {
  cloudSqlRootUser,
  connectionSecretName,
  ensureMasterPassword,
  masterUsername,
  publishEndpoint,
} from './connection-secret.js';
export { checkGuardrails, type GuardrailViolation } from './guardrails.js';
export { type AwsConfig, type GcpConfig } from './provider-config.js';
export * from './aws/index.js';
export * from './gcp/index.js';
export * from './controller/index.js';
export * from './credentials/index.js';
