/**
 * The GCP Cloud SQL provider of DatabaseInstance: `cloudSqlExternalProvider()` for
 * `managedReconciler`, and the pure pieces it is built from (instance names, engine/version
 * mapping, state mapping, settings drift), exported for tests and status messages.
 */
export { cloudSqlExternalProvider, type CloudSqlProviderOptions } from './cloudsql-provider.js';
export { cloudSqlDatabaseVersion, enginePort } from './database-version.js';
export { callCloudSql, CloudSqlCallError, GrpcCode } from './errors.js';
export { OwnerLabels } from './instance-settings.js';
export { CLOUD_SQL_INSTANCE_NAME_MAX, cloudSqlInstanceName } from './instance-name.js';
export { cloudSqlProviderState } from './provider-state.js';
