import { protos, v1 } from '@google-cloud/sql';
import { TerminalError } from '@steward/controller';
import { checkVersionUnchanged, versionChanged } from '../engine-version.js';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { externalCall, type ExternalMetrics } from '@steward/telemetry';
import {
  ownerOf,
  readOwnerMark,
  Reasons,
  type ExternalClient,
  type ExternalProvider,
  type Observation,
  type OwnerMark,
  type Present,
} from '@steward/external';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type GcpConfig } from '../provider-config.js';
import { enginePort } from './database-version.js';
import { callCloudSql, GrpcCode, hasCode } from './errors.js';
import {
  actualSettings,
  desiredInstance,
  type DesiredInstance,
  enumName,
  insertBody,
  OwnerLabels,
  patchSettings,
  settingsDrift,
  sslSatisfies,
} from './instance-settings.js';
import { cloudSqlInstanceName } from './instance-name.js';
import { cloudSqlProviderState } from './provider-state.js';

type IDatabaseInstance = protos.google.cloud.sql.v1.IDatabaseInstance;
type ClientOptions = ConstructorParameters<typeof v1.SqlInstancesServiceClient>[0];

const enums = {
  state: protos.google.cloud.sql.v1.DatabaseInstance.SqlInstanceState as unknown as Record<
    string,
    unknown
  >,
  availability: protos.google.cloud.sql.v1.SqlAvailabilityType as unknown as Record<
    string,
    unknown
  >,
  activation: protos.google.cloud.sql.v1.Settings.SqlActivationPolicy as unknown as Record<
    string,
    unknown
  >,
  operationStatus: protos.google.cloud.sql.v1.Operation.SqlOperationStatus as unknown as Record<
    string,
    unknown
  >,
  operationType: protos.google.cloud.sql.v1.Operation.SqlOperationType as unknown as Record<
    string,
    unknown
  >,
  ipAddressType: protos.google.cloud.sql.v1.SqlIpAddressType as unknown as Record<string, unknown>,
  sslMode: protos.google.cloud.sql.v1.IpConfiguration.SslMode as unknown as Record<string, unknown>,
  databaseVersion: protos.google.cloud.sql.v1.SqlDatabaseVersion as unknown as Record<
    string,
    unknown
  >,
};

/** `POSTGRES_16`, whichever encoding (enum number or name) the transport answered with. */
function databaseVersionName(instance: IDatabaseInstance): string | undefined {
  return enumName(enums.databaseVersion, instance.databaseVersion) || undefined;
}

export interface CloudSqlProviderOptions {
  /**
   * The project, region, client options and size classes of the object's (admitted)
   * ProviderProfile, with its credentials Secret. Called once per reconcile, by `connect`.
   */
  resolveConfig(profile: ProviderProfile, signal: AbortSignal): Promise<GcpConfig>;
  /**
   * The root password to create the instance with; never logged, never in status or Events.
   * Omitted or undefined: Cloud SQL's default (no root password for PostgreSQL's `postgres` user).
   */
  passwordFor?(obj: DatabaseInstance): string | undefined | Promise<string | undefined>;
  /** Counts every Cloud SQL call in `steward_external_requests_total{provider="gcp"}`. */
  metrics?: ExternalMetrics;
}

/**
 * DatabaseInstance on GCP Cloud SQL through the Cloud SQL Admin v1 API (`@google-cloud/sql`).
 *
 * - Names are deterministic (`cloudSqlInstanceName`) and Cloud SQL refuses a second instance of one
 *   name (even for a week after its deletion), so a create repeated after a crash cannot make a
 *   duplicate: it gets ALREADY_EXISTS and is a success when the instance carries this object's
 *   owner label (`steward-owner-uid`).
 * - `observe` reads the instance and the operations on it; `ready` is RUNNABLE with no operation in
 *   progress (and not stopped).
 * - `create`, `update` and `delete` start an operation and return; they never wait for it.
 * - Errors are mapped by numeric code in one place, `callCloudSql` (errors.ts).
 */
export function cloudSqlExternalProvider(options: CloudSqlProviderOptions): CloudSqlProvider {
  return {
    name: 'gcp-cloudsql',
    deterministicNames: true,
    externalName: (obj) => cloudSqlInstanceName(obj.metadata.namespace ?? '', obj.metadata.name!),
    /** What Cloud SQL cannot serve (see `desiredInstance`). */
    validate: (obj, profile) =>
      desiredInstance(obj, {
        sizeClasses: { ...profile.spec.sizeClasses },
        region: profile.spec.gcp?.region ?? '',
      }),
    connect: async (_obj, profile, signal) =>
      new CloudSqlClient(await options.resolveConfig(profile, signal), options),
  };
}

/** What `observe` saw and `update`/`delete` act on: the instance and the operation running on it. */
export interface SeenInstance {
  instance: IDatabaseInstance;
  operationType: string | undefined;
}

/** The Cloud SQL provider: its context is the admitted ProviderProfile. */
export type CloudSqlProvider = ExternalProvider<
  DatabaseInstance,
  ProviderProfile,
  DesiredInstance,
  SeenInstance
>;

class CloudSqlClient implements ExternalClient<DatabaseInstance, DesiredInstance, SeenInstance> {
  private readonly instances: v1.SqlInstancesServiceClient;
  private readonly operations: v1.SqlOperationsServiceClient;

  constructor(
    private readonly config: GcpConfig,
    private readonly options: CloudSqlProviderOptions,
  ) {
    this.instances = new v1.SqlInstancesServiceClient(config.clientOptions as ClientOptions);
    this.operations = new v1.SqlOperationsServiceClient(config.clientOptions as ClientOptions);
  }

  /** One Cloud SQL call: counted (the client never retries, so once per attempt) and traced, errors mapped. */
  private call<R>(method: string, call: () => Promise<R>): Promise<R> {
    return callCloudSql(method, () => externalCall(this.options.metrics, 'gcp', method, call));
  }

  private get project() {
    return this.config.project;
  }

  /** The instance, or undefined when Cloud SQL answers NOT_FOUND. */
  private async getInstance(name: string): Promise<IDatabaseInstance | undefined> {
    try {
      const [instance] = await this.call('instances.get', () =>
        this.instances.get({ project: this.project, instance: name }),
      );
      return instance;
    } catch (error) {
      if (hasCode(error, GrpcCode.NotFound)) return undefined;
      throw error;
    }
  }

  /** The type of the operation running on the instance (newest first; one at a time), if any. */
  private async operationInProgress(name: string): Promise<string | undefined> {
    const [list] = await this.call('operations.list', () =>
      this.operations.list({ project: this.project, instance: name, maxResults: 10 }),
    );
    const running = (list.items ?? []).find(
      (op) => enumName(enums.operationStatus, op.status) !== 'DONE',
    );
    return running ? enumName(enums.operationType, running.operationType) : undefined;
  }

  async observe(
    obj: DatabaseInstance,
    name: string,
    desired: DesiredInstance | undefined,
    signal: AbortSignal,
  ): Promise<Observation<SeenInstance>> {
    signal.throwIfAborted();
    const instance = await this.getInstance(name);
    if (!instance) return { exists: false };
    const operationType = await this.operationInProgress(name);

    const rawState = enumName(enums.state, instance.state);
    const activation = enumName(enums.activation, instance.settings?.activationPolicy);
    const state = cloudSqlProviderState(rawState, activation, operationType);
    const actual = actualSettings(instance, enums.availability, enums.sslMode);
    const mark = ownerMark(actual.labels);

    // While the object is being deleted (no `desired`) nothing is compared, so deletion never
    // waits on a spec fix.
    const drift = desired ? settingsDrift(desired, actual) : [];
    if (desired && versionChanged(obj.spec.engine, obj.spec.version, databaseVersionName(instance)))
      drift.push('databaseVersion');

    const addresses = instance.ipAddresses ?? [];
    const address =
      addresses.find((a) => enumName(enums.ipAddressType, a.type) === 'PRIMARY') ??
      addresses.find((a) => a.ipAddress);
    const status: Record<string, unknown> = {
      atProvider: {
        status: rawState,
        instanceClass: actual.tier,
        engineVersion: databaseVersionName(instance) ?? '',
        storageGiB: actual.dataDiskSizeGb,
        highAvailability: actual.availabilityType === 'REGIONAL',
        backupRetentionDays: actual.backupsEnabled ? (actual.retainedBackups ?? 0) : 0,
        // Cloud SQL encrypts every instance's storage; it has no public-access switch of its own.
        storageEncrypted: true,
        deletionProtection: actual.deletionProtection,
        requireTLS: sslSatisfies(actual.sslMode, 'ENCRYPTED_ONLY'),
      },
    };
    if (address?.ipAddress) {
      status['endpoint'] = { host: address.ipAddress, port: enginePort(obj.spec.engine) };
    }
    const ready = state === 'available';
    return {
      exists: true,
      raw: { instance, operationType },
      upToDate: drift.length === 0,
      ready,
      state,
      mark,
      status,
      ...(ready && address?.ipAddress
        ? {
            connectionDetails: {
              host: address.ipAddress,
              port: String(enginePort(obj.spec.engine)),
            },
          }
        : {}),
    };
  }

  /** instances.insert; ALREADY_EXISTS is success when the instance is this object's. */
  async create(
    obj: DatabaseInstance,
    name: string,
    desired: DesiredInstance,
    signal: AbortSignal,
  ): Promise<void> {
    signal.throwIfAborted();
    const body = insertBody(name, desired);
    const password = await this.options.passwordFor?.(obj);
    if (password) body.rootPassword = password;
    try {
      await this.call('instances.insert', () =>
        this.instances.insert({ project: this.project, body }),
      );
    } catch (error) {
      if (!hasCode(error, GrpcCode.AlreadyExists)) throw error;
      // Ours from an earlier attempt whose answer was lost, or someone else's.
      const existing = await this.getInstance(name);
      if (existing?.settings?.userLabels?.[OwnerLabels.uid] === obj.metadata.uid) return;
      throw new TerminalError(
        'AlreadyExists',
        existing
          ? `Cloud SQL instance ${name} already exists in project ${this.project} and was not created by this object; set spec.adopt: true to manage it`
          : `Cloud SQL instance name ${name} is still reserved in project ${this.project}: Cloud SQL keeps a deleted instance's name for a week`,
        { cause: error },
      );
    }
  }

  async update(
    obj: DatabaseInstance,
    name: string,
    desired: DesiredInstance,
    observed: Present<SeenInstance>,
    signal: AbortSignal,
  ): Promise<void> {
    signal.throwIfAborted();
    const seen = observed.raw;
    checkVersionUnchanged(
      'gcp',
      obj.spec.engine,
      obj.spec.version,
      databaseVersionName(seen.instance),
    );
    // While an operation runs (or the instance is not RUNNABLE) Cloud SQL refuses a change with
    // ABORTED / FAILED_PRECONDITION; the reconciler polls again soon, and the change goes then.
    if (seen.operationType || enumName(enums.state, seen.instance.state) !== 'RUNNABLE') return;
    if (!patchSettings(desired, actualSettings(seen.instance, enums.availability, enums.sslMode)))
      return;
    // observe read the instance before the operations: an operation (ours) that ended between
    // the two reads left the instance seen without its change and no operation running. Looked
    // at again, operations first, so that a change already made is never sent a second time.
    if (await this.operationInProgress(name)) return;
    const fresh = await this.getInstance(name);
    if (!fresh || enumName(enums.state, fresh.state) !== 'RUNNABLE') return;
    const settings = patchSettings(
      desired,
      actualSettings(fresh, enums.availability, enums.sslMode),
    );
    if (!settings) return;
    // 10 ABORTED (another operation started meanwhile) propagates and is retried with backoff.
    await this.call('instances.patch', () =>
      this.instances.patch({ project: this.project, instance: name, body: { settings } }),
    );
  }

  async delete(
    obj: DatabaseInstance,
    name: string,
    observed: Present<SeenInstance>,
    signal: AbortSignal,
  ): Promise<{ done: boolean }> {
    signal.throwIfAborted();
    const seen = observed.raw;
    // The managed reconciler deletes only what carries this object's mark; so does this client.
    if (ownerOf(obj, ownerMark(seen.instance.settings?.userLabels ?? {})) !== 'this') {
      throw new TerminalError(
        Reasons.ExternalResourceOwnedElsewhere,
        `Cloud SQL instance ${name} is not labelled as this object's (${OwnerLabels.uid}): it is not deleted`,
      );
    }
    const state = enumName(enums.state, seen.instance.state);
    // Already being deleted, or busy with something else: wait for it.
    if (state === 'PENDING_DELETE' || seen.operationType) return { done: false };
    if (seen.instance.settings?.deletionProtectionEnabled?.value === true) {
      // deletionPolicy Delete is the explicit consent: the protection is lifted first (an
      // operation), and the instance deleted once that is done.
      await this.call('instances.patch', () =>
        this.instances.patch({
          project: this.project,
          instance: name,
          body: { settings: { deletionProtectionEnabled: { value: false } } },
        }),
      );
      return { done: false };
    }
    const finalBackup = obj.spec.finalSnapshot !== false;
    if (finalBackup && state !== 'RUNNABLE') {
      throw new TerminalError(
        'FinalSnapshotImpossible',
        `Cloud SQL instance ${name} is ${state || 'not running'}, so it cannot take the final backup spec.finalSnapshot asks for; set spec.finalSnapshot: false to delete it without one, or set deletionPolicy: Retain`,
      );
    }
    try {
      await this.call('instances.delete', () =>
        this.instances.delete({
          project: this.project,
          instance: name,
          ...(finalBackup
            ? {
                enableFinalBackup: true,
                finalBackupDescription: `steward final backup of DatabaseInstance ${obj.metadata.namespace}/${obj.metadata.name}`,
              }
            : {}),
        }),
      );
    } catch (error) {
      if (hasCode(error, GrpcCode.NotFound)) return { done: true };
      throw error;
    }
    return { done: false };
  }

  async close(): Promise<void> {
    await Promise.all([this.instances.close(), this.operations.close()]);
  }
}

/** The object an instance's user labels name as its owner, or null when it has no owner label. */
export function ownerMark(labels: Readonly<Record<string, string>>): OwnerMark | null {
  return readOwnerMark((key) => labels[key], OwnerLabels);
}
