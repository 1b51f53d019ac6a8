import { type WorkloadScheduling } from '@steward/crd';
import {
  type DeletionPolicy,
  type KubernetesProfileSpec,
  type ProviderProfile,
} from '@steward/provider-profile-api';
import { type ImagePull } from '@steward/workload';
import { describeImages } from './catalogue.js';
import { namespaceRefusal, type NamespaceFacts } from './namespace-access.js';
import { compareQuantities, InvalidQuantityError } from './quantity.js';
import { WorkloadAdmissionReasons as R, type WorkloadAdmissionReason } from './reasons.js';

/**
 * Where the request's values live in the workload's spec, for messages. The defaults are
 * CacheCluster's; a kind that spells them otherwise (PostgresCluster: `spec.storage.size`) says so.
 */
export interface WorkloadFields {
  engine: string;
  version: string;
  size: string;
  replicas: string;
  persistence: string;
  storageSize: string;
  storageClassName: string;
  deletionPolicy: string;
}

export const DefaultWorkloadFields: Readonly<WorkloadFields> = {
  engine: 'spec.engine',
  version: 'spec.version',
  size: 'spec.size',
  replicas: 'spec.replicas',
  persistence: 'spec.persistence.enabled',
  storageSize: 'spec.persistence.size',
  storageClassName: 'spec.persistence.storageClassName',
  deletionPolicy: 'spec.deletionPolicy',
};

/** What an in-cluster workload asks of its kubernetes ProviderProfile. */
export interface WorkloadRequest {
  /** The workload's kind, e.g. `CacheCluster` (for messages). */
  kind: string;
  /**
   * The workload's namespace (and its labels, once known): the profile must allow it
   * (`spec.namespaces` / `spec.namespaceSelector`) before anything else is looked at.
   */
  namespace: NamespaceFacts;
  /** As the catalogue names it: `redis`, `valkey`, `postgres`. */
  engine: string;
  /** As the workload's `spec.version` spells it: `7.0`, `17`. */
  version: string;
  /** A size class name (`spec.size`), if the workload names one. */
  size?: string;
  /** Pods the workload runs, the primary included. */
  replicas: number;
  /** Whether its data is on PersistentVolumeClaims. */
  persistence: boolean;
  /** The volume size the workload states explicitly, if any: it wins over the size class's. */
  storageSize?: string;
  /**
   * The volume size the workload uses when neither it nor its size class states one (e.g.
   * CacheCluster's 1Gi). Checked against `maxStorage` like the others and returned as
   * `storageSize`. Pass a default here, not in `storageSize`, or the size class never applies.
   */
  defaultStorageSize?: string;
  /** The StorageClass the workload names, if any. */
  storageClassName?: string;
  deletionPolicy: DeletionPolicy;
  /** `spec.scheduling` (absent: the defaults), for `spec.kubernetes.requireSpread`. */
  scheduling?: WorkloadScheduling;
  /** Field paths for messages; default `DefaultWorkloadFields`. */
  fields?: Partial<WorkloadFields>;
}

/** What the workload runs with, as the profile resolves it. */
export interface ResolvedWorkload {
  /** The catalogue's image for the engine and version. */
  image: string;
  /**
   * How it is pulled: the catalogue entry's `imagePullPolicy` (default `IfNotPresent`) and the
   * profile's `imagePullSecrets` (names only: the pods reference them, nobody here reads them).
   */
  pull: ImagePull;
  /**
   * The size class's resources, when the request named one: `cpu` is the CPU request (no CPU
   * limit), `memory` both the memory request and limit.
   */
  resources?: { cpu: string; memory: string };
  /** The size class's dataset limit (Redis/Valkey maxmemory), when it has one. */
  maxMemory?: string;
  /**
   * The volume size of each pod, when the workload has volumes and a size was found: the
   * request's, else the size class's, else the request's default.
   */
  storageSize?: string;
}

export type WorkloadAdmission =
  | { allowed: true; resolved: ResolvedWorkload }
  | { allowed: false; reason: WorkloadAdmissionReason; message: string };

const refuse = (reason: WorkloadAdmissionReason, message: string): WorkloadAdmission => ({
  allowed: false,
  reason,
  message,
});

/** Why the catalogue has no image for the request, naming what it has instead. */
function noImage(
  profileName: string,
  block: KubernetesProfileSpec,
  request: WorkloadRequest,
  fields: WorkloadFields,
): WorkloadAdmission {
  const { engine, version } = request;
  const sameEngine = block.images.filter((i) => i.engine === engine);
  const has =
    sameEngine.length > 0
      ? `spec.kubernetes.images has ${describeImages(sameEngine)}`
      : `spec.kubernetes.images has no ${engine} image; it has ${describeImages(block.images) || 'none'}`;
  return refuse(
    R.ImageNotInCatalogue,
    `${fields.version} ${version} of ${engine} (${fields.engine}) has no image in the catalogue of ProviderProfile ${profileName} (${has}): use a version it lists, or ask the platform team to add an image for ${engine} ${version}`,
  );
}

/** The volume size that applies, where it comes from, and how a message says so. */
function effectiveStorage(
  request: WorkloadRequest,
  classStorage: string | undefined,
  fields: WorkloadFields,
): { size: string; field: string; what: string } | undefined {
  if (request.storageSize !== undefined) {
    const size = request.storageSize;
    return { size, field: fields.storageSize, what: `${fields.storageSize} ${size}` };
  }
  if (classStorage !== undefined) {
    const field = `spec.kubernetes.sizeClasses.${request.size}.storage`;
    return {
      size: classStorage,
      field,
      what: `the volume of size class ${request.size} (${fields.size}), ${classStorage} (${field}),`,
    };
  }
  if (request.defaultStorageSize !== undefined) {
    const size = request.defaultStorageSize;
    return {
      size,
      field: `the default volume size`,
      what: `the default volume size ${size} (${fields.storageSize} is not set)`,
    };
  }
  return undefined;
}

/** The spread levels, weakest first: a request's level must reach the profile's. */
const SpreadStrength = { Preferred: 1, Required: 2 } as const;

/**
 * Why the request spreads less than `spec.kubernetes.requireSpread` asks (nodes, then zones), or
 * undefined. The override of a guarded spread (`affinity.podAntiAffinity` for nodes,
 * `topologySpreadConstraints` for zones) is refused whatever it says: the controller renders the
 * spread it can vouch for, and a replacement's selector and topology are the user's.
 */
function spreadRefusal(
  profileName: string,
  block: KubernetesProfileSpec,
  request: WorkloadRequest,
): WorkloadAdmission | undefined {
  const required = block.requireSpread;
  if (!required) return undefined;
  const scheduling = request.scheduling ?? {};
  const dimensions = [
    {
      key: 'nodes' as const,
      over: 'nodes',
      wanted: required.nodes,
      asked: scheduling.spread?.nodes ?? 'Preferred',
      override: scheduling.affinity?.podAntiAffinity
        ? 'spec.scheduling.affinity.podAntiAffinity'
        : undefined,
    },
    {
      key: 'zones' as const,
      over: 'zones',
      wanted: required.zones,
      asked: scheduling.spread?.zones ?? 'Preferred',
      override: scheduling.topologySpreadConstraints
        ? 'spec.scheduling.topologySpreadConstraints'
        : undefined,
    },
  ];
  for (const d of dimensions) {
    if (!d.wanted) continue;
    const guardrail = `spec.kubernetes.requireSpread.${d.key}: ${d.wanted}`;
    if (d.override)
      return refuse(
        R.SpreadRequired,
        `${d.override} replaces the spread over ${d.over} that ProviderProfile ${profileName} requires (${guardrail}): remove it${d.wanted === 'Required' ? ` and set spec.scheduling.spread.${d.key}: Required` : ''}`,
      );
    if (SpreadStrength[d.asked] < SpreadStrength[d.wanted])
      return refuse(
        R.SpreadRequired,
        `spec.scheduling.spread.${d.key} ${d.asked} is less than ProviderProfile ${profileName} requires (${guardrail}): set spec.scheduling.spread.${d.key}: ${d.wanted}`,
      );
  }
  return undefined;
}

/**
 * A kubernetes profile's guardrails and catalogue applied to one in-cluster workload (pure): the
 * first rule it breaks, in this order — `WrongProvider`, `DeletionPolicyNotAllowed`, `UnknownSize`,
 * `SizeNotAllowed`, `ImageNotInCatalogue`, `ReplicasExceedLimit`, `SpreadRequired`, `PersistenceRequired`,
 * `StorageClassNotAllowed`, `StorageExceedsLimit` (`InvalidQuantity` for a size that is not a
 * quantity) — or what it runs with. Call it before anything is created, changed or deleted for the
 * workload, so that a forbidden deletion policy stops the Delete path too.
 *
 * - Spread (`requireSpread`): see `spreadRefusal`. Images: the catalogue entry's pull policy and
 *   the profile's pull secrets come with the image (`pull`).
 * - Sizes: a request without `size` is not checked against `allowedSizes` (its resources are its
 *   own, as a DatabaseInstance's provider overrides are) and gets no `resources`.
 * - Storage (only with `persistence`): the request's explicit size wins over the size class's,
 *   which wins over the request's default; whichever applies is compared with `maxStorage` by
 *   value. While `storageClassNames` is set, the workload must name one of them: a volume on the
 *   cluster's default StorageClass is not known to be on an allowed one.
 */
export function admitWorkload(
  profile: ProviderProfile,
  request: WorkloadRequest,
): WorkloadAdmission {
  const name = profile.metadata.name ?? '';
  const fields = { ...DefaultWorkloadFields, ...request.fields };
  if (profile.spec.provider !== 'kubernetes') {
    return refuse(
      R.WrongProvider,
      `ProviderProfile ${name} is for ${profile.spec.provider}; a ${request.kind} needs a kubernetes profile`,
    );
  }
  const tenancy = namespaceRefusal(profile, request.namespace);
  if (tenancy) return refuse(R.ProfileNotAllowedInNamespace, tenancy.message);
  const block = profile.spec.kubernetes;
  if (!block) {
    return refuse(
      R.InvalidProviderProfile,
      `ProviderProfile ${name} is a kubernetes profile without spec.kubernetes: the platform team must add it`,
    );
  }
  const guardrails = profile.spec.guardrails ?? {};

  const allowedPolicies = guardrails.allowedDeletionPolicies ?? ['Retain', 'Delete'];
  if (!allowedPolicies.includes(request.deletionPolicy)) {
    return refuse(
      R.DeletionPolicyNotAllowed,
      `${fields.deletionPolicy} ${request.deletionPolicy} is not allowed by ProviderProfile ${name} (allowed: ${allowedPolicies.join(', ')})`,
    );
  }

  const sizeClass = request.size !== undefined ? block.sizeClasses?.[request.size] : undefined;
  if (request.size !== undefined) {
    if (!sizeClass) {
      const known = Object.keys(block.sizeClasses ?? {}).sort();
      return refuse(
        R.UnknownSize,
        `${fields.size} ${request.size} is not a size class of ProviderProfile ${name} (known: ${known.join(', ') || 'none'})`,
      );
    }
    if (guardrails.allowedSizes && !guardrails.allowedSizes.includes(request.size)) {
      return refuse(
        R.SizeNotAllowed,
        `${fields.size} ${request.size} is not allowed by ProviderProfile ${name} (allowed: ${guardrails.allowedSizes.join(', ')})`,
      );
    }
  }

  const image = block.images.find(
    (i) => i.engine === request.engine && i.version === request.version,
  );
  if (!image) return noImage(name, block, request, fields);

  if (block.maxReplicas !== undefined && request.replicas > block.maxReplicas) {
    return refuse(
      R.ReplicasExceedLimit,
      `${fields.replicas} ${request.replicas} exceeds spec.kubernetes.maxReplicas ${block.maxReplicas} of ProviderProfile ${name}`,
    );
  }

  const spread = spreadRefusal(name, block, request);
  if (spread) return spread;

  const resolved: ResolvedWorkload = {
    image: image.image,
    pull: {
      policy: image.imagePullPolicy ?? 'IfNotPresent',
      secrets: (block.imagePullSecrets ?? []).map((s) => s.name),
    },
    ...(sizeClass ? { resources: { cpu: sizeClass.cpu, memory: sizeClass.memory } } : {}),
    ...(sizeClass?.maxMemory !== undefined ? { maxMemory: sizeClass.maxMemory } : {}),
  };

  if (!request.persistence) {
    if (block.requirePersistence) {
      return refuse(
        R.PersistenceRequired,
        `ProviderProfile ${name} requires ${request.kind}s to keep their data on volumes (spec.kubernetes.requirePersistence): set ${fields.persistence}: true`,
      );
    }
    return { allowed: true, resolved };
  }

  const allowedClasses = block.storageClassNames;
  if (allowedClasses) {
    if (request.storageClassName === undefined) {
      return refuse(
        R.StorageClassNotAllowed,
        `${fields.storageClassName} is required by ProviderProfile ${name}: volumes must be on one of its StorageClasses (allowed: ${allowedClasses.join(', ')})`,
      );
    }
    if (!allowedClasses.includes(request.storageClassName)) {
      return refuse(
        R.StorageClassNotAllowed,
        `${fields.storageClassName} ${request.storageClassName} is not allowed by ProviderProfile ${name} (allowed: ${allowedClasses.join(', ')})`,
      );
    }
  }

  const storage = effectiveStorage(request, sizeClass?.storage, fields);
  if (storage && block.maxStorage !== undefined) {
    let comparison: number;
    try {
      comparison = compareQuantities(storage.size, block.maxStorage);
    } catch (error) {
      if (!(error instanceof InvalidQuantityError)) throw error;
      const where =
        error.text === block.maxStorage
          ? `spec.kubernetes.maxStorage of ProviderProfile ${name}`
          : storage.field;
      return refuse(R.InvalidQuantity, `${where}: ${error.message}`);
    }
    if (comparison > 0) {
      return refuse(
        R.StorageExceedsLimit,
        `${storage.what} exceeds spec.kubernetes.maxStorage ${block.maxStorage} of ProviderProfile ${name}`,
      );
    }
  }
  return {
    allowed: true,
    resolved: { ...resolved, ...(storage ? { storageSize: storage.size } : {}) },
  };
}
