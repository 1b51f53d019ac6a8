import { createHash, randomBytes } from 'node:crypto';
import { invalidRequest, unimplemented } from './errors.js';
import { clone, isObject, mergePatch, type Json, type JsonObject } from './json.js';
import type { Operation } from './operation.js';

/**
 * A Cloud SQL instance as the server keeps it: the `DatabaseInstance` resource in its JSON form with
 * enum names (int64 values as strings, like the real API), plus the operation in flight on it.
 */
export interface InstanceRecord {
  project: string;
  name: string;
  resource: JsonObject;
  /** The operation running on the instance; a second mutating call meanwhile gets 409. */
  busy?: Operation;
  /** Stable per instance, for its IP addresses. */
  ordinal: number;
}

/** `userLabels` is sent whole: a PATCH replaces the map rather than merging keys into it. */
export const replacedInSettingsPatch = new Set(['userLabels']);

/** Fields the server sets; values a caller sends for them are ignored, as the real API does. */
const outputOnly = [
  'kind',
  'state',
  'etag',
  'project',
  'selfLink',
  'connectionName',
  'ipAddresses',
  'ipv6Address',
  'serviceAccountEmailAddress',
  'backendType',
  'gceZone',
  'secondaryGceZone',
  'createTime',
  'databaseInstalledVersion',
  'dnsName',
  'dnsNames',
  'writeEndpoint',
  'serverCaCert',
  'upgradableDatabaseVersions',
  'availableMaintenanceVersions',
  'maintenanceVersion',
  'satisfiesPzs',
  'satisfiesPzi',
  'scheduledMaintenance',
  'suspensionReason',
  'outOfDiskReport',
  'failoverReplica',
  'replicaNames',
  'nodes',
  'currentDiskSize',
  'maxDiskSize',
  // Input-only: used, never returned.
  'rootPassword',
  'tags',
];

/** Features whose behaviour this server does not model; refused rather than silently ignored. */
const unsupported = ['masterInstanceName', 'replicaConfiguration', 'onPremisesConfiguration'];

export function defaultSettings(region: string): JsonObject {
  return {
    kind: 'sql#settings',
    settingsVersion: '1',
    tier: '',
    edition: 'ENTERPRISE',
    availabilityType: 'ZONAL',
    pricingPlan: 'PER_USE',
    activationPolicy: 'ALWAYS',
    dataDiskType: 'PD_SSD',
    dataDiskSizeGb: '10',
    storageAutoResize: true,
    storageAutoResizeLimit: '0',
    userLabels: {},
    ipConfiguration: { ipv4Enabled: true, sslMode: 'ALLOW_UNENCRYPTED_AND_ENCRYPTED' },
    locationPreference: { kind: 'sql#locationPreference', zone: `${region}-a` },
    backupConfiguration: {
      kind: 'sql#backupConfiguration',
      enabled: false,
      startTime: '00:00',
      pointInTimeRecoveryEnabled: false,
      transactionLogRetentionDays: 7,
      backupRetentionSettings: { retentionUnit: 'COUNT', retainedBackups: 7 },
    },
    connectorEnforcement: 'NOT_REQUIRED',
    deletionProtectionEnabled: false,
  };
}

/** Drops server-set fields from a request body and refuses what this server cannot model. */
export function acceptedInput(body: JsonObject): JsonObject {
  const input = clone(body);
  for (const key of outputOnly) delete input[key];
  for (const key of unsupported) {
    if (input[key] !== undefined) throw unimplemented(`DatabaseInstance.${key}`);
  }
  return input;
}

export const newEtag = () => randomBytes(16).toString('hex');

/** The resource of a just-inserted instance, in PENDING_CREATE. */
export function newInstanceResource(
  input: JsonObject,
  project: string,
  baseUrl: string,
  now: number,
): JsonObject {
  const region =
    typeof input['region'] === 'string' && input['region'] ? input['region'] : 'us-central1';
  const requested = isObject(input['settings']) ? input['settings'] : {};
  const settings = mergePatch(defaultSettings(region), requested, replacedInSettingsPatch);
  settings['settingsVersion'] = '1';
  settings['kind'] = 'sql#settings';
  const name = String(input['name']);
  const resource: JsonObject = {
    ...input,
    kind: 'sql#instance',
    state: 'PENDING_CREATE',
    name,
    project,
    region,
    settings,
    backendType: 'SECOND_GEN',
    instanceType:
      typeof input['instanceType'] === 'string' ? input['instanceType'] : 'CLOUD_SQL_INSTANCE',
    selfLink: `${baseUrl}/v1/projects/${project}/instances/${name}`,
    serviceAccountEmailAddress: `p${digits(project)}-${digits(name).slice(0, 6)}@gcp-sa-cloud-sql.iam.gserviceaccount.com`,
    createTime: new Date(now).toISOString(),
    etag: newEtag(),
  };
  placeZones(resource);
  return resource;
}

/** What the instance looks like once created: RUNNABLE, with addresses and a connection name. */
export function markRunnable(record: InstanceRecord) {
  const resource = record.resource;
  resource['state'] = 'RUNNABLE';
  resource['connectionName'] = `${record.project}:${String(resource['region'])}:${record.name}`;
  assignAddresses(record);
  resource['etag'] = newEtag();
}

/** `next` becomes the instance's settings (after a PATCH or PUT operation is DONE). */
export function applySettings(record: InstanceRecord, next: JsonObject) {
  const resource = record.resource;
  const current = isObject(resource['settings']) ? resource['settings'] : {};
  const version = Number(current['settingsVersion'] ?? '1') + 1;
  resource['settings'] = { ...clone(next), kind: 'sql#settings', settingsVersion: String(version) };
  placeZones(resource);
  if (resource['state'] === 'RUNNABLE') assignAddresses(record);
  resource['etag'] = newEtag();
}

/** Rejects changes to fields that are fixed once the instance exists. */
export function checkImmutable(resource: JsonObject, input: JsonObject) {
  for (const key of ['name', 'region', 'databaseVersion', 'instanceType'] as const) {
    const wanted: Json | undefined = input[key];
    if (wanted === undefined || wanted === resource[key]) continue;
    if (key === 'databaseVersion')
      throw unimplemented('major version upgrade (databaseVersion change)');
    throw invalidRequest(`${key} cannot be changed after the instance is created.`);
  }
}

function placeZones(resource: JsonObject) {
  const settings = isObject(resource['settings']) ? resource['settings'] : {};
  const region = String(resource['region']);
  const location = isObject(settings['locationPreference']) ? settings['locationPreference'] : {};
  const zone =
    typeof location['zone'] === 'string' && location['zone'] ? location['zone'] : `${region}-a`;
  resource['gceZone'] = zone;
  if (settings['availabilityType'] === 'REGIONAL') {
    const secondary = location['secondaryZone'];
    resource['secondaryGceZone'] =
      typeof secondary === 'string' && secondary
        ? secondary
        : zone.endsWith('-b')
          ? `${region}-c`
          : `${region}-b`;
  } else {
    delete resource['secondaryGceZone'];
  }
}

function assignAddresses(record: InstanceRecord) {
  const settings = isObject(record.resource['settings']) ? record.resource['settings'] : {};
  const ip = isObject(settings['ipConfiguration']) ? settings['ipConfiguration'] : {};
  const n = record.ordinal;
  const addresses: JsonObject[] = [];
  // Documentation ranges: nothing real answers on them.
  if (ip['ipv4Enabled'] !== false) {
    addresses.push({ type: 'PRIMARY', ipAddress: `203.0.113.${(n % 254) + 1}` });
  }
  if (typeof ip['privateNetwork'] === 'string' && ip['privateNetwork']) {
    addresses.push({
      type: 'PRIVATE',
      ipAddress: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255 || 1}`,
    });
  }
  record.resource['ipAddresses'] = addresses;
}

function digits(text: string) {
  return BigInt(`0x${createHash('sha256').update(text).digest('hex').slice(0, 12)}`).toString();
}
