import { type ProviderProfile, type ProviderProfileSpec } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { WorkloadAdmissionReasons } from './reasons.js';
import { admitWorkload, type WorkloadRequest } from './workload-admission.js';

type Kubernetes = NonNullable<ProviderProfileSpec['kubernetes']>;

const catalogue: Kubernetes = {
  sizeClasses: {
    small: { cpu: '250m', memory: '512Mi', maxMemory: '400Mi' },
    medium: { cpu: '1', memory: '2Gi', maxMemory: '1600Mi', storage: '10Gi' },
    large: { cpu: '4', memory: '16Gi', storage: '100Gi' },
  },
  images: [
    { engine: 'redis', version: '8.0', image: 'registry.example/redis:8.0.2' },
    { engine: 'redis', version: '7.0', image: 'registry.example/redis:7.0.15' },
    { engine: 'valkey', version: '8.1', image: 'registry.example/valkey:8.1.1' },
    { engine: 'postgres', version: '17', image: 'registry.example/postgres:17.2' },
    { engine: 'postgres', version: '15', image: 'registry.example/postgres:15.10' },
  ],
  requirePersistence: false,
};

function profile(
  kubernetes: Partial<Kubernetes> = {},
  guardrails: ProviderProfileSpec['guardrails'] = {},
): ProviderProfile {
  return {
    apiVersion: 'steward.dev/v1alpha1',
    kind: 'ProviderProfile',
    metadata: { name: 'in-cluster' },
    spec: {
      provider: 'kubernetes',
      namespaceSelector: {},
      kubernetes: { ...catalogue, ...kubernetes },
      guardrails,
    },
  } as ProviderProfile;
}

/** What a pod gets when neither the catalogue entry nor the profile says more. */
const defaultPull = { policy: 'IfNotPresent', secrets: [] };

const cache: WorkloadRequest = {
  kind: 'CacheCluster',
  namespace: { name: 'shop', labels: {} },
  engine: 'redis',
  version: '7.0',
  replicas: 1,
  persistence: false,
  deletionPolicy: 'Retain',
};

describe('admitWorkload', () => {
  it('resolves the image, and a size class’s resources and maxMemory, for an allowed workload', () => {
    expect(admitWorkload(profile(), { ...cache, size: 'small' })).toEqual({
      allowed: true,
      resolved: {
        image: 'registry.example/redis:7.0.15',
        pull: defaultPull,
        resources: { cpu: '250m', memory: '512Mi' },
        maxMemory: '400Mi',
      },
    });
  });

  it('resolves only the image without a size (the workload’s own resources apply), whatever allowedSizes says', () => {
    expect(
      admitWorkload(profile({}, { allowedSizes: ['small'] }), {
        ...cache,
        engine: 'valkey',
        version: '8.1',
      }),
    ).toEqual({
      allowed: true,
      resolved: { image: 'registry.example/valkey:8.1.1', pull: defaultPull },
    });
  });

  it('resolves the volume size with persistence: explicit over the size class over the default', () => {
    const withVolumes = { ...cache, persistence: true, size: 'medium', defaultStorageSize: '1Gi' };
    const resolved = (r: WorkloadRequest) => {
      const admission = admitWorkload(profile(), r);
      if (!admission.allowed) throw new Error(admission.message);
      return admission.resolved;
    };
    expect(resolved({ ...withVolumes, storageSize: '20Gi' })).toMatchObject({
      storageSize: '20Gi',
      resources: { cpu: '1', memory: '2Gi' },
    });
    expect(resolved(withVolumes).storageSize).toBe('10Gi');
    expect(resolved({ ...withVolumes, size: 'small' }).storageSize).toBe('1Gi');
    const { defaultStorageSize: _, ...noDefault } = withVolumes;
    expect(resolved({ ...noDefault, size: 'small' }).storageSize).toBeUndefined();
    // without volumes no size applies
    expect(
      resolved({ ...withVolumes, persistence: false, storageSize: '20Gi' }),
    ).not.toHaveProperty('storageSize');
  });

  it('allows everything within the limits, limits included', () => {
    const admission = admitWorkload(
      profile({
        maxReplicas: 3,
        maxStorage: '100Gi',
        storageClassNames: ['standard', 'fast'],
        requirePersistence: true,
      }),
      {
        ...cache,
        size: 'large',
        replicas: 3,
        persistence: true,
        storageClassName: 'fast',
        deletionPolicy: 'Delete',
      },
    );
    expect(admission).toEqual({
      allowed: true,
      resolved: {
        image: 'registry.example/redis:7.0.15',
        pull: defaultPull,
        resources: { cpu: '4', memory: '16Gi' },
        storageSize: '100Gi',
      },
    });
  });

  it.each<[string, ProviderProfile, Partial<WorkloadRequest>, string, string]>([
    [
      'an aws profile',
      {
        ...profile(),
        spec: {
          provider: 'aws',
          namespaceSelector: {},
          aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: 'ops', name: 'aws' } },
        },
      } as ProviderProfile,
      {},
      'WrongProvider',
      'ProviderProfile in-cluster is for aws; a CacheCluster needs a kubernetes profile',
    ],
    [
      'a namespace the profile does not allow (checked before anything else)',
      {
        ...profile(),
        spec: { ...profile().spec, namespaceSelector: undefined, namespaces: ['billing'] },
      } as ProviderProfile,
      { version: '6.2' },
      'ProfileNotAllowedInNamespace',
      'ProviderProfile in-cluster may not be used from namespace shop: namespace shop is neither listed in its spec.namespaces nor selected by its spec.namespaceSelector. Ask the platform team to allow the namespace in the profile, or reference a profile that allows it',
    ],
    [
      'a kubernetes profile without its block',
      { ...profile(), spec: { provider: 'kubernetes', namespaceSelector: {} } } as ProviderProfile,
      {},
      'InvalidProviderProfile',
      'ProviderProfile in-cluster is a kubernetes profile without spec.kubernetes: the platform team must add it',
    ],
    [
      'a deletion policy the guardrails forbid',
      profile({}, { allowedDeletionPolicies: ['Retain'] }),
      { deletionPolicy: 'Delete' },
      'DeletionPolicyNotAllowed',
      'spec.deletionPolicy Delete is not allowed by ProviderProfile in-cluster (allowed: Retain)',
    ],
    [
      'a size that is no size class',
      profile(),
      { size: 'huge' },
      'UnknownSize',
      'spec.size huge is not a size class of ProviderProfile in-cluster (known: large, medium, small)',
    ],
    [
      'a size in a profile without size classes',
      profile({ sizeClasses: undefined }),
      { size: 'small' },
      'UnknownSize',
      'spec.size small is not a size class of ProviderProfile in-cluster (known: none)',
    ],
    [
      'a size class the guardrails leave out',
      profile({}, { allowedSizes: ['small', 'medium'] }),
      { size: 'large' },
      'SizeNotAllowed',
      'spec.size large is not allowed by ProviderProfile in-cluster (allowed: small, medium)',
    ],
    [
      'a version the catalogue lacks',
      profile(),
      { version: '7.2' },
      'ImageNotInCatalogue',
      'spec.version 7.2 of redis (spec.engine) has no image in the catalogue of ProviderProfile in-cluster (spec.kubernetes.images has redis 7.0, 8.0): use a version it lists, or ask the platform team to add an image for redis 7.2',
    ],
    [
      'an engine the catalogue lacks',
      profile({
        images: catalogue.images.filter((i) => i.engine !== 'valkey'),
      }),
      { engine: 'valkey', version: '8.1' },
      'ImageNotInCatalogue',
      'spec.version 8.1 of valkey (spec.engine) has no image in the catalogue of ProviderProfile in-cluster (spec.kubernetes.images has no valkey image; it has postgres 15, 17; redis 7.0, 8.0): use a version it lists, or ask the platform team to add an image for valkey 8.1',
    ],
    [
      'more replicas than maxReplicas',
      profile({ maxReplicas: 3 }),
      { replicas: 4 },
      'ReplicasExceedLimit',
      'spec.replicas 4 exceeds spec.kubernetes.maxReplicas 3 of ProviderProfile in-cluster',
    ],
    [
      'a preferred zone spread where the profile requires it',
      profile({ requireSpread: { zones: 'Required' } }),
      {},
      'SpreadRequired',
      'spec.scheduling.spread.zones Preferred is less than ProviderProfile in-cluster requires (spec.kubernetes.requireSpread.zones: Required): set spec.scheduling.spread.zones: Required',
    ],
    [
      'a preferred node spread where the profile requires it (nodes before zones)',
      profile({ requireSpread: { nodes: 'Required', zones: 'Required' } }),
      { scheduling: { spread: { nodes: 'Preferred', zones: 'Preferred' } } },
      'SpreadRequired',
      'spec.scheduling.spread.nodes Preferred is less than ProviderProfile in-cluster requires (spec.kubernetes.requireSpread.nodes: Required): set spec.scheduling.spread.nodes: Required',
    ],
    [
      'topologySpreadConstraints where the profile requires the zone spread',
      profile({ requireSpread: { zones: 'Required' } }),
      {
        scheduling: {
          spread: { zones: 'Preferred' },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'DoNotSchedule',
            },
          ],
        },
      },
      'SpreadRequired',
      'spec.scheduling.topologySpreadConstraints replaces the spread over zones that ProviderProfile in-cluster requires (spec.kubernetes.requireSpread.zones: Required): remove it and set spec.scheduling.spread.zones: Required',
    ],
    [
      'a podAntiAffinity where the profile keeps the preferred node spread',
      profile({ requireSpread: { nodes: 'Preferred' } }),
      { scheduling: { affinity: { podAntiAffinity: {} } } },
      'SpreadRequired',
      'spec.scheduling.affinity.podAntiAffinity replaces the spread over nodes that ProviderProfile in-cluster requires (spec.kubernetes.requireSpread.nodes: Preferred): remove it',
    ],
    [
      'no volumes where persistence is required',
      profile({ requirePersistence: true }),
      {},
      'PersistenceRequired',
      'ProviderProfile in-cluster requires CacheClusters to keep their data on volumes (spec.kubernetes.requirePersistence): set spec.persistence.enabled: true',
    ],
    [
      'a StorageClass the profile does not list',
      profile({ storageClassNames: ['standard', 'fast'] }),
      { persistence: true, storageClassName: 'premium' },
      'StorageClassNotAllowed',
      'spec.persistence.storageClassName premium is not allowed by ProviderProfile in-cluster (allowed: standard, fast)',
    ],
    [
      'no StorageClass where the profile lists them',
      profile({ storageClassNames: ['standard', 'fast'] }),
      { persistence: true },
      'StorageClassNotAllowed',
      'spec.persistence.storageClassName is required by ProviderProfile in-cluster: volumes must be on one of its StorageClasses (allowed: standard, fast)',
    ],
    [
      'an explicit volume above maxStorage (by value: 1025Mi > 1Gi)',
      profile({ maxStorage: '1Gi' }),
      { persistence: true, storageSize: '1025Mi' },
      'StorageExceedsLimit',
      'spec.persistence.size 1025Mi exceeds spec.kubernetes.maxStorage 1Gi of ProviderProfile in-cluster',
    ],
    [
      'a size class’s volume above maxStorage',
      profile({ maxStorage: '50Gi' }),
      { persistence: true, size: 'large' },
      'StorageExceedsLimit',
      'the volume of size class large (spec.size), 100Gi (spec.kubernetes.sizeClasses.large.storage), exceeds spec.kubernetes.maxStorage 50Gi of ProviderProfile in-cluster',
    ],
    [
      'a default volume above maxStorage',
      profile({ maxStorage: '500Mi' }),
      { persistence: true, defaultStorageSize: '1Gi' },
      'StorageExceedsLimit',
      'the default volume size 1Gi (spec.persistence.size is not set) exceeds spec.kubernetes.maxStorage 500Mi of ProviderProfile in-cluster',
    ],
    [
      'a volume size that is not a quantity',
      profile({ maxStorage: '10Gi' }),
      { persistence: true, storageSize: '5 GB' },
      'InvalidQuantity',
      'spec.persistence.size: "5 GB" is not a quantity such as 500m, 1Gi or 10G',
    ],
    [
      'a maxStorage that is not a quantity',
      profile({ maxStorage: 'lots' }),
      { persistence: true, storageSize: '5Gi' },
      'InvalidQuantity',
      'spec.kubernetes.maxStorage of ProviderProfile in-cluster: "lots" is not a quantity such as 500m, 1Gi or 10G',
    ],
  ])('refuses %s', (_case, p, request, reason, message) => {
    expect(admitWorkload(p, { ...cache, ...request })).toEqual({ allowed: false, reason, message });
    expect(Object.values(WorkloadAdmissionReasons)).toContain(reason);
  });

  it('compares volume sizes by value, not by text', () => {
    const limited = profile({ maxStorage: '1Gi' });
    const admit = (storageSize: string) =>
      admitWorkload(limited, { ...cache, persistence: true, storageSize }).allowed;
    expect(admit('1024Mi')).toBe(true);
    expect(admit('1073741824')).toBe(true);
    expect(admit('1G')).toBe(true); // 10^9 < 2^30
    expect(admit('1073741825')).toBe(false);
    expect(admit('1.1Gi')).toBe(false);
    expect(admit('0.5Gi')).toBe(true);
  });

  it('checks volumes only for a workload that has them', () => {
    const strict = profile({ maxStorage: '1Gi', storageClassNames: ['fast'] });
    expect(admitWorkload(strict, { ...cache, storageSize: '1Ti' }).allowed).toBe(true);
  });

  it('reports the first rule broken, in the documented order', () => {
    const strict = profile(
      {
        maxReplicas: 1,
        requireSpread: { zones: 'Required' },
        requirePersistence: true,
        storageClassNames: ['fast'],
        maxStorage: '5Gi',
      },
      { allowedDeletionPolicies: ['Retain'], allowedSizes: ['medium'] },
    );
    let request: WorkloadRequest = {
      ...cache,
      version: '6.2',
      size: 'huge',
      replicas: 5,
      deletionPolicy: 'Delete',
    };
    const fixes: Partial<WorkloadRequest>[] = [
      { deletionPolicy: 'Retain' },
      { size: 'small' },
      { size: 'medium' },
      { version: '7.0' },
      { replicas: 1 },
      { scheduling: { spread: { zones: 'Required' } } },
      { persistence: true },
      { storageClassName: 'fast' },
      { storageSize: '5Gi' },
    ];
    const outcomes: string[] = [];
    for (const fix of [...fixes, {}]) {
      const admission = admitWorkload(strict, request);
      outcomes.push(admission.allowed ? 'allowed' : admission.reason);
      request = { ...request, ...fix };
    }
    expect(outcomes).toEqual([
      'DeletionPolicyNotAllowed',
      'UnknownSize',
      'SizeNotAllowed',
      'ImageNotInCatalogue',
      'ReplicasExceedLimit',
      'SpreadRequired',
      'PersistenceRequired',
      'StorageClassNotAllowed',
      'StorageExceedsLimit',
      'allowed',
    ]);
  });

  it('admits a spread that meets the profile’s, and what it does not guard', () => {
    const admit = (
      requireSpread: Kubernetes['requireSpread'],
      scheduling: WorkloadRequest['scheduling'],
    ) => admitWorkload(profile({ requireSpread }), { ...cache, scheduling }).allowed;
    expect(admit({ zones: 'Required' }, { spread: { zones: 'Required' } })).toBe(true);
    expect(admit({ zones: 'Preferred' }, undefined)).toBe(true);
    expect(admit({ zones: 'Preferred' }, { spread: { zones: 'Required' } })).toBe(true);
    expect(
      admit(
        { nodes: 'Required', zones: 'Required' },
        { spread: { nodes: 'Required', zones: 'Required' } },
      ),
    ).toBe(true);
    // a guardrail on zones leaves the node spread to the workload, and the other way round
    expect(
      admit(
        { zones: 'Required' },
        { spread: { zones: 'Required' }, affinity: { podAntiAffinity: {} } },
      ),
    ).toBe(true);
    expect(
      admit(
        { nodes: 'Required' },
        { spread: { nodes: 'Required' }, topologySpreadConstraints: [] },
      ),
    ).toBe(true);
    // without a guardrail anything goes
    expect(
      admit(undefined, { affinity: { podAntiAffinity: {} }, topologySpreadConstraints: [] }),
    ).toBe(true);
  });

  it('resolves how the image is pulled: the entry’s policy (default IfNotPresent), the profile’s pull secrets', () => {
    const pinned = `registry.example/redis:7.0.15@sha256:${'a'.repeat(64)}`;
    const admission = admitWorkload(
      profile({
        images: [{ engine: 'redis', version: '7.0', image: pinned, imagePullPolicy: 'Always' }],
        imagePullSecrets: [{ name: 'registry-a' }, { name: 'registry-b' }],
      }),
      cache,
    );
    expect(admission).toEqual({
      allowed: true,
      resolved: {
        image: pinned,
        pull: { policy: 'Always', secrets: ['registry-a', 'registry-b'] },
      },
    });
  });

  it('names the fields as the workload’s kind spells them', () => {
    const postgres: WorkloadRequest = {
      kind: 'PostgresCluster',
      namespace: { name: 'shop', labels: {} },
      engine: 'postgres',
      version: '16',
      replicas: 2,
      persistence: true,
      storageSize: '200Gi',
      deletionPolicy: 'Retain',
      fields: { storageSize: 'spec.storage.size', engine: 'the engine' },
    };
    const p = profile({ maxStorage: '100Gi' });
    expect(admitWorkload(p, postgres)).toMatchObject({
      reason: 'ImageNotInCatalogue',
      message: expect.stringContaining(
        'spec.version 16 of postgres (the engine) has no image in the catalogue of ProviderProfile in-cluster (spec.kubernetes.images has postgres 15, 17)',
      ) as string,
    });
    expect(admitWorkload(p, { ...postgres, version: '17' })).toEqual({
      allowed: false,
      reason: 'StorageExceedsLimit',
      message:
        'spec.storage.size 200Gi exceeds spec.kubernetes.maxStorage 100Gi of ProviderProfile in-cluster',
    });
  });
});
