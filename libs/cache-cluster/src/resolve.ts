import { type CacheCluster } from '@steward/cache-cluster-api';
import {
  admitWorkload,
  compareQuantities,
  quantityToNumber,
  type NamespaceFacts,
} from '@steward/provider-profile';
import { type ProviderProfile } from '@steward/provider-profile-api';
import { type Admission, type ImagePull, type ResolvedPods } from '@steward/workload';
import { BuiltInImages } from './images.js';
import { CacheReasons } from './status.js';

/** What a CacheCluster runs with, once its profile (or the built-in catalogue) allowed it. */
export interface ResolvedCache extends ResolvedPods {
  maxMemoryBytes?: number;
}

export type Resolution = Admission<ResolvedCache>;

/** The default volume size when neither the spec nor a size class gives one. */
export const DEFAULT_STORAGE = '1Gi';

/**
 * The image, resources, dataset limit and volume of a CacheCluster (pure): through its kubernetes
 * ProviderProfile's guardrails, size classes and image catalogue when it has one, else the
 * built-in catalogue (a `spec.size` then has nothing to name: `SizeNeedsProfile`). Explicit
 * `resources`, `maxMemory` and `persistence.size` win over the size class. `maxMemory` must stay
 * below the memory limit, however both were arrived at (`MaxMemoryExceedsLimit`); without one,
 * the children's renderer takes 80 % of the memory limit (`maxMemoryOf`).
 */
export function resolveWorkload(
  obj: CacheCluster,
  profile: ProviderProfile | undefined,
  namespace: NamespaceFacts = { name: obj.metadata.namespace ?? '' },
): Resolution {
  const spec = obj.spec;
  const engine = spec.engine ?? 'redis';
  const persistence = spec.persistence?.enabled ?? false;
  let image: string;
  let pull: ImagePull | undefined;
  let resources = spec.resources;
  let maxMemory = spec.maxMemory;
  let storageSize = spec.persistence?.size;
  if (profile) {
    const admission = admitWorkload(profile, {
      kind: 'CacheCluster',
      namespace,
      engine,
      version: spec.version,
      ...(spec.size ? { size: spec.size } : {}),
      replicas: spec.mode === 'Replicated' ? (spec.replicas ?? 2) : 1,
      persistence,
      ...(spec.persistence?.size ? { storageSize: spec.persistence.size } : {}),
      defaultStorageSize: DEFAULT_STORAGE,
      ...(spec.persistence?.storageClassName
        ? { storageClassName: spec.persistence.storageClassName }
        : {}),
      deletionPolicy: spec.deletionPolicy ?? 'Retain',
      ...(spec.scheduling ? { scheduling: spec.scheduling } : {}),
    });
    if (!admission.allowed) return admission;
    const r = admission.resolved;
    image = r.image;
    pull = r.pull;
    if (!resources && r.resources)
      resources = { requests: { ...r.resources }, limits: { memory: r.resources.memory } };
    maxMemory = maxMemory ?? r.maxMemory;
    storageSize = storageSize ?? r.storageSize;
  } else {
    if (spec.size) {
      return {
        allowed: false,
        reason: CacheReasons.SizeNeedsProfile,
        message: `spec.size ${spec.size} names a size class, but the CacheCluster has no ProviderProfile: set spec.providerProfileRef, or give spec.resources and spec.maxMemory instead`,
      };
    }
    const entry = BuiltInImages.find((i) => i.engine === engine && i.version === spec.version);
    if (!entry) {
      const known = BuiltInImages.filter((i) => i.engine === engine).map((i) => i.version);
      return {
        allowed: false,
        reason: CacheReasons.ImageNotInCatalogue,
        message: `no image for ${engine} ${spec.version} in the controller's catalogue (${engine}: ${known.join(', ') || 'none'}); use one of those versions or a ProviderProfile whose spec.kubernetes.images has it`,
      };
    }
    image = entry.image;
  }
  const limit = resources?.limits?.memory;
  const maxMemoryBytes =
    maxMemory !== undefined ? Math.floor(quantityToNumber(maxMemory)) : undefined;
  if (maxMemory !== undefined && limit && compareQuantities(maxMemory, limit) >= 0) {
    return {
      allowed: false,
      reason: CacheReasons.MaxMemoryExceedsLimit,
      message: `maxMemory ${maxMemory} is not below the memory limit ${limit}: the server needs memory beyond its dataset; lower maxMemory or raise the limit`,
    };
  }
  return {
    allowed: true,
    resolved: {
      image,
      ...(pull ? { pull } : {}),
      ...(resources ? { resources } : {}),
      ...(maxMemoryBytes !== undefined ? { maxMemoryBytes } : {}),
      ...(persistence
        ? {
            storage: {
              size: storageSize ?? DEFAULT_STORAGE,
              ...(spec.persistence?.storageClassName
                ? { storageClassName: spec.persistence.storageClassName }
                : {}),
            },
          }
        : {}),
    },
  };
}
