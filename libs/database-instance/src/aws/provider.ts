import {
  AddTagsToResourceCommand,
  CreateDBInstanceCommand,
  DeleteDBInstanceCommand,
  DescribeDBInstancesCommand,
  ModifyDBInstanceCommand,
  RDSClient,
  type DBInstance,
  type Tag,
} from '@aws-sdk/client-rds';
import { TerminalError } from '@steward/controller';
import { type DatabaseInstance } from '@steward/database-instance-api';
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
import { type AwsConfig } from '../provider-config.js';
import { externalCall, type ExternalMetrics } from '@steward/telemetry';
import { checkVersionUnchanged, versionChanged } from '../engine-version.js';
import { DefaultEngineVersions, desiredRdsInstance, type DesiredRdsInstance } from './desired.js';
import { RdsError, RdsReasons, rdsCall } from './errors.js';
import { rdsIdentifier } from './identifier.js';
import { checkModification, planModification } from './plan.js';
import { isUsable, observedStatus, providerState } from './state.js';

/** Tags every instance this provider creates carries; the first is the ownership mark. */
export const RdsTags = {
  ownerUid: 'steward.dev/owner-uid',
  namespace: 'steward.dev/namespace',
  name: 'steward.dev/name',
} as const;

export interface RdsProviderOptions {
  /**
   * The AWS configuration of the object's (admitted) ProviderProfile, with the credentials its
   * Secret holds. Called by `connect`, once per reconcile; may throw `TerminalError`.
   */
  resolveConfig(profile: ProviderProfile, signal: AbortSignal): Promise<AwsConfig>;
  /**
   * The master password to create the instance with. The controller generates and stores it (in
   * the connection Secret) before the first create, and must return the same one on every call.
   * Called only by `create`; the password is sent to RDS and nowhere else.
   */
  passwordFor(obj: DatabaseInstance, signal: AbortSignal): Promise<string>;
  /** The master user name. Default `steward`. */
  masterUsername?: string;
  /** Engine versions RDS offers; default `DefaultEngineVersions`. */
  engineVersions?: Record<'postgres' | 'mysql', readonly string[]>;
  /**
   * Makes the RDS client for a config (tests wrap it, e.g. with middleware). The provider owns the
   * client and destroys it on `close`. Default: a `RDSClient` with the config's region, endpoint
   * and credentials.
   */
  clientFor?(config: AwsConfig): RDSClient;
  /** Counts every RDS call attempt in `steward_external_requests_total{provider="aws"}`. */
  metrics?: ExternalMetrics;
}

const PROVIDER_NAME = 'aws-rds';

/** The RDS provider: its context is the admitted ProviderProfile. */
export type RdsProvider = ExternalProvider<
  DatabaseInstance,
  ProviderProfile,
  DesiredRdsInstance,
  DBInstance
>;
/**
 * The `DatabaseInstance` provider for AWS RDS (`@aws-sdk/client-rds`). External names are
 * deterministic (`rdsIdentifier(namespace, name)`) and RDS refuses a second instance of an
 * identifier, so a create retried after a crash cannot duplicate a database. Ownership is the
 * `steward.dev/owner-uid` tag (= metadata.uid). Every SDK call goes through `rdsCall`, which maps
 * errors by name.
 */
export function rdsExternalProvider(options: RdsProviderOptions): RdsProvider {
  const clientFor =
    options.clientFor ??
    ((config: AwsConfig) =>
      new RDSClient({
        region: config.region,
        credentials: { ...config.credentials },
        ...(config.endpoint ? { endpoint: config.endpoint } : {}),
      }));
  return {
    name: PROVIDER_NAME,
    deterministicNames: true,
    externalName: (obj) => rdsIdentifier(obj.metadata.namespace ?? '', obj.metadata.name ?? ''),
    /** What RDS would refuse (see `desiredRdsInstance`), and the master user's name. */
    validate: (obj, profile) => {
      const desired = desiredRdsInstance(
        obj,
        { sizeClasses: { ...profile.spec.sizeClasses } },
        options.engineVersions ?? DefaultEngineVersions,
      );
      checkMasterUser(desired.engine, options.masterUsername ?? 'steward');
      return desired;
    },
    connect: async (_obj, profile, signal) => {
      const config = await options.resolveConfig(profile, signal);
      const client = clientFor(config);
      if (options.metrics) countRequests(client, options.metrics);
      return new RdsExternalClient(client, options);
    },
  };
}

/**
 * Counts each attempt of each call (the SDK's retries included: the middleware sits below the
 * retry step) as `steward_external_requests_total{provider="aws",operation="CreateDBInstance",…}`,
 * and traces it as a child span of the reconcile.
 */
function countRequests(client: RDSClient, metrics: ExternalMetrics): void {
  client.middlewareStack.add(
    (next, context) => (args) =>
      externalCall(metrics, 'aws', (context.commandName ?? 'Unknown').replace(/Command$/, ''), () =>
        next(args),
      ),
    { step: 'deserialize', name: 'stewardExternalRequests' },
  );
}

/** One reconcile's conversation with RDS about one object's instance. */
class RdsExternalClient implements ExternalClient<
  DatabaseInstance,
  DesiredRdsInstance,
  DBInstance
> {
  constructor(
    private readonly rds: RDSClient,
    private readonly options: RdsProviderOptions,
  ) {}

  private async describe(id: string, signal: AbortSignal): Promise<DBInstance | undefined> {
    try {
      const out = await rdsCall('DescribeDBInstances', () =>
        this.rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: id }), {
          abortSignal: signal,
        }),
      );
      return out.DBInstances?.find((i) => i.DBInstanceIdentifier === id);
    } catch (error) {
      if (error instanceof RdsError && error.kind === 'not-found') return undefined;
      throw error;
    }
  }

  /** Describes the instance; never mutates. `upToDate` compares it with `desired` (live objects). */
  async observe(
    obj: DatabaseInstance,
    id: string,
    desired: DesiredRdsInstance | undefined,
    signal: AbortSignal,
  ): Promise<Observation<DBInstance>> {
    const instance = await this.describe(id, signal);
    if (!instance) return { exists: false };
    const owned = ownerUid(instance) === obj.metadata.uid;
    const upToDate =
      !desired ||
      (Object.keys(planModification(desired, instance)).length === 0 &&
        !versionChanged(obj.spec.engine, obj.spec.version, instance.EngineVersion) &&
        (owned || !obj.spec.adopt));
    const status = observedStatus(instance);
    const endpoint = status['endpoint'] as { host: string; port: number } | undefined;
    const usable = isUsable(instance.DBInstanceStatus);
    return {
      exists: true,
      raw: instance,
      upToDate,
      ready: usable,
      state: providerState(instance.DBInstanceStatus),
      mark: ownerMark(instance),
      status,
      ...(usable && endpoint
        ? { connectionDetails: { host: endpoint.host, port: String(endpoint.port) } }
        : {}),
    };
  }

  /**
   * CreateDBInstance. Idempotent: an existing instance with our owner tag (a create whose response
   * was lost) counts as success; one without it is `AlreadyExists`.
   */
  async create(
    obj: DatabaseInstance,
    id: string,
    desired: DesiredRdsInstance,
    signal: AbortSignal,
  ): Promise<void> {
    const username = this.options.masterUsername ?? 'steward';
    const password = await this.options.passwordFor(obj, signal);
    checkMasterPassword(desired.engine, password);
    const tags: Tag[] = [
      { Key: RdsTags.ownerUid, Value: obj.metadata.uid ?? '' },
      { Key: RdsTags.namespace, Value: obj.metadata.namespace ?? '' },
      { Key: RdsTags.name, Value: obj.metadata.name ?? '' },
    ];
    try {
      await rdsCall(
        'CreateDBInstance',
        () =>
          this.rds.send(
            new CreateDBInstanceCommand({
              DBInstanceIdentifier: id,
              Engine: desired.engine,
              EngineVersion: desired.engineVersion,
              DBInstanceClass: desired.instanceClass,
              AllocatedStorage: desired.allocatedStorage,
              StorageType: desired.storageType,
              ...(desired.iops !== undefined ? { Iops: desired.iops } : {}),
              MultiAZ: desired.multiAZ,
              BackupRetentionPeriod: desired.backupRetentionPeriod,
              ...(desired.dbSubnetGroupName
                ? { DBSubnetGroupName: desired.dbSubnetGroupName }
                : {}),
              ...(desired.vpcSecurityGroupIds
                ? { VpcSecurityGroupIds: desired.vpcSecurityGroupIds }
                : {}),
              StorageEncrypted: desired.storageEncrypted,
              PubliclyAccessible: desired.publiclyAccessible,
              DeletionProtection: desired.deletionProtection,
              MasterUsername: username,
              MasterUserPassword: password,
              CopyTagsToSnapshot: true,
              Tags: tags,
            }),
            { abortSignal: signal },
          ),
        [password],
      );
    } catch (error) {
      if (!(error instanceof RdsError && error.kind === 'already-exists')) throw error;
      const existing = await this.describe(id, signal);
      if (!existing) throw error; // deleted in between: retry
      if (ownerUid(existing) !== obj.metadata.uid) {
        throw new TerminalError(
          RdsReasons.AlreadyExists,
          `RDS instance ${id} already exists and was not created by this object; set spec.adopt: true to manage it`,
          { cause: error },
        );
      }
    }
  }

  /**
   * ModifyDBInstance (ApplyImmediately) for class, storage (grow only), storage type, IOPS,
   * Multi-AZ, backup retention and security groups; tags an adopted instance as ours. Does nothing
   * while the instance is busy (RDS refuses to modify it then); the next observe decides again.
   */
  async update(
    obj: DatabaseInstance,
    id: string,
    desired: DesiredRdsInstance,
    observed: Present<DBInstance>,
    signal: AbortSignal,
  ): Promise<void> {
    const instance = observed.raw;
    checkVersionUnchanged('aws', obj.spec.engine, obj.spec.version, instance.EngineVersion);
    if (instance.DBInstanceStatus !== 'available') return;
    if (ownerUid(instance) !== obj.metadata.uid && obj.spec.adopt && instance.DBInstanceArn) {
      await rdsCall('AddTagsToResource', () =>
        this.rds.send(
          new AddTagsToResourceCommand({
            ResourceName: instance.DBInstanceArn,
            Tags: [
              { Key: RdsTags.ownerUid, Value: obj.metadata.uid ?? '' },
              { Key: RdsTags.namespace, Value: obj.metadata.namespace ?? '' },
              { Key: RdsTags.name, Value: obj.metadata.name ?? '' },
            ],
          }),
          { abortSignal: signal },
        ),
      );
    }
    const plan = planModification(desired, instance);
    if (Object.keys(plan).length === 0) return;
    checkModification(plan, instance);
    await rdsCall('ModifyDBInstance', () =>
      this.rds.send(
        new ModifyDBInstanceCommand({ DBInstanceIdentifier: id, ApplyImmediately: true, ...plan }),
        { abortSignal: signal },
      ),
    );
  }

  /**
   * DeleteDBInstance with a final snapshot `<id>-final-<deletion time>` (stable across retries),
   * or `SkipFinalSnapshot` when `spec.finalSnapshot` is false. Never deletes an instance that is
   * not ours. Done once DescribeDBInstances no longer finds it.
   */
  async delete(
    obj: DatabaseInstance,
    id: string,
    observed: Present<DBInstance>,
    signal: AbortSignal,
  ): Promise<{ done: boolean }> {
    const instance = observed.raw;
    // The managed reconciler deletes only what carries this object's mark; so does this client.
    if (ownerOf(obj, ownerMark(instance)) !== 'this') {
      throw new TerminalError(
        Reasons.ExternalResourceOwnedElsewhere,
        `RDS instance ${id} is not tagged as this object's (${RdsTags.ownerUid}): it is not deleted`,
      );
    }
    if (instance.DBInstanceStatus !== 'deleting' && instance.DeletionProtection) {
      // deletionPolicy Delete is the explicit consent: the protection (against deletion by hand
      // or by another tool) is lifted first, then the instance deleted on a later reconcile.
      await rdsCall('ModifyDBInstance', () =>
        this.rds.send(
          new ModifyDBInstanceCommand({
            DBInstanceIdentifier: id,
            ApplyImmediately: true,
            DeletionProtection: false,
          }),
          { abortSignal: signal },
        ),
      );
      return { done: false };
    }
    if (instance.DBInstanceStatus !== 'deleting') {
      const snapshot =
        obj.spec.finalSnapshot === false
          ? { SkipFinalSnapshot: true }
          : { FinalDBSnapshotIdentifier: finalSnapshotIdentifier(id, obj) };
      try {
        await rdsCall('DeleteDBInstance', () =>
          this.rds.send(new DeleteDBInstanceCommand({ DBInstanceIdentifier: id, ...snapshot }), {
            abortSignal: signal,
          }),
        );
      } catch (error) {
        if (error instanceof RdsError && error.kind === 'not-found') return { done: true };
        if (error instanceof RdsError && error.kind === 'snapshot-already-exists') {
          throw new TerminalError(
            RdsReasons.AlreadyExists,
            `the final snapshot ${snapshot.FinalDBSnapshotIdentifier} of ${id} already exists; delete or rename it, or set spec.finalSnapshot: false`,
            { cause: error },
          );
        }
        throw error;
      }
    }
    return { done: !(await this.describe(id, signal)) };
  }

  async close(): Promise<void> {
    this.rds.destroy();
  }
}

function ownerUid(instance: DBInstance): string | undefined {
  return instance.TagList?.find((t) => t.Key === RdsTags.ownerUid)?.Value;
}

/** The object the instance's tags name as its owner, or null when it has no owner tag. */
export function ownerMark(instance: DBInstance): OwnerMark | null {
  return readOwnerMark((key) => instance.TagList?.find((t) => t.Key === key)?.Value, {
    uid: RdsTags.ownerUid,
    namespace: RdsTags.namespace,
    name: RdsTags.name,
  });
}

/** `<id>-final-<yyyymmddhhmmss>` of the deletion time: the same on every retry of one deletion. */
export function finalSnapshotIdentifier(id: string, obj: DatabaseInstance): string {
  const stamp = obj.metadata.deletionTimestamp
    ? String(obj.metadata.deletionTimestamp).replace(/\D/g, '').slice(0, 14)
    : `g${obj.metadata.generation ?? 0}`;
  return `${id}-final-${stamp}`;
}

function checkMasterUser(engine: 'postgres' | 'mysql', username: string): void {
  const max = engine === 'mysql' ? 32 : 63;
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(username) || username.length > max) {
    throw new TerminalError(
      RdsReasons.InvalidParameter,
      `master user name "${username}" is not valid for RDS ${engine}: 1..${max} letters, digits or _, starting with a letter`,
    );
  }
}

/** RDS: printable ASCII except `/`, `"`, `@` and space; postgres 8..128, mysql 8..41 characters. */
function checkMasterPassword(engine: 'postgres' | 'mysql', password: string): void {
  const max = engine === 'mysql' ? 41 : 128;
  if (password.length < 8 || password.length > max || !/^[!#-.0-?A-~]+$/.test(password)) {
    throw new TerminalError(
      RdsReasons.InvalidParameter,
      `the master password is not valid for RDS ${engine}: 8..${max} printable ASCII characters except / " @ and space`,
    );
  }
}
