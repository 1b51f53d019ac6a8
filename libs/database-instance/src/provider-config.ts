/**
 * What a DatabaseInstance provider needs to reach its cloud, resolved from the referenced
 * ProviderProfile and its credentials Secret by whoever calls `connect` (the controller). Providers
 * receive it ready-made, so they can be tested against moto or the local Cloud SQL API directly.
 * Credentials never appear in logs, Events or status.
 */
export interface AwsConfig {
  region: string;
  /** e.g. moto's `http://127.0.0.1:PORT`; omitted: the real AWS endpoint. */
  endpoint?: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Size class name → RDS instance class, from the profile. */
  sizeClasses: Record<string, string>;
}

export interface GcpConfig {
  project: string;
  region: string;
  /** Options for the Cloud SQL clients (e.g. `startCloudSqlApi().clientOptions()` in tests). */
  clientOptions: Record<string, unknown>;
  /** Size class name → Cloud SQL tier, from the profile. */
  sizeClasses: Record<string, string>;
}
