// The kubernetes ProviderProfile's schema and CEL rules, as a real API server applies them to the
// CRD exactly as the charts ship it. The other providers' rules are proven in
// libs/database-instance-api/tests/admission.int.test.ts.
import { InvalidError, KubeClient, type ApplyConfiguration } from '@steward/kube';
import { examplesOf, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderProfile, QUANTITY_PATTERN, type ProviderProfileSpec } from '../src/index.js';

/** The generated CRD (tools/scripts/generate-crds.ts); every chart's copy is the same. */
const chartCrd = join(
  repoRoot(),
  'charts',
  'database-instance-controller',
  'crds',
  'providerprofiles.steward.dev.yaml',
);

let plane: ControlPlane;
let client: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane({ crds: [chartCrd] });
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'provider-profile-api-test' });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

type Kubernetes = NonNullable<ProviderProfileSpec['kubernetes']>;

const kubernetes = {
  sizeClasses: {
    small: { cpu: '250m', memory: '512Mi', maxMemory: '400Mi' },
    large: { cpu: '2', memory: '8Gi', maxMemory: '6Gi', storage: '50Gi' },
  },
  images: [
    { engine: 'redis', version: '7.0', image: 'registry.example/redis:7.0.15' },
    { engine: 'redis', version: '8.0', image: 'registry.example/redis:8.0.2' },
    { engine: 'valkey', version: '8.1', image: 'registry.example/valkey:8.1.1' },
    { engine: 'postgres', version: '17', image: 'registry.example/postgres:17.2' },
  ],
} satisfies Partial<Kubernetes>;
const kubernetesSpec = { provider: 'kubernetes', kubernetes };
const awsSpec = {
  provider: 'aws',
  aws: {
    region: 'eu-west-1',
    credentialsSecretRef: { namespace: 'steward-system', name: 'cloud-credentials' },
  },
  sizeClasses: { small: 'db.t3.micro' },
};

let created = 0;
const profile = (spec: Record<string, unknown>): ProviderProfile =>
  ({
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: `profile-${++created}` },
    spec,
  }) as ProviderProfile;
const create = (spec: Record<string, unknown>) =>
  client.create<ProviderProfile>(ProviderProfile.resourceType, profile(spec));
const withBlock = (block: Record<string, unknown>) => ({
  ...kubernetesSpec,
  kubernetes: { ...kubernetes, ...block },
});

/** The API server's message for a refused request (and a failure when it was accepted). */
async function rejection(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (error instanceof InvalidError) return error.message;
    throw error;
  }
  throw new Error('expected the API server to reject the request');
}

describe('a kubernetes ProviderProfile in a real API server', () => {
  it('admits every example ProviderProfile', async () => {
    const folders = ['cache-cluster', 'database-instance', 'kafka-topic', 'postgres-cluster'];
    const examples = (
      await Promise.all(folders.map((f) => examplesOf<ProviderProfile>(f, 'ProviderProfile')))
    ).flat();
    expect(examples.length).toBeGreaterThan(2);
    for (const example of examples)
      await expect(
        client.create(ProviderProfile.resourceType, example, { dryRun: true }),
      ).resolves.toBeDefined();
  });

  it('is accepted with its catalogue, limits and guardrails, and gets the defaults', async () => {
    const accepted = await create({
      ...withBlock({
        storageClassNames: ['standard', 'fast-ssd'],
        maxReplicas: 5,
        maxStorage: '50Gi',
        maxFailoverLagBytes: 1048576,
      }),
      guardrails: { allowedSizes: ['small', 'large'], allowedDeletionPolicies: ['Retain'] },
    });
    expect(accepted.spec.kubernetes).toEqual({
      ...kubernetes,
      images: kubernetes.images.map((i) => ({ ...i, imagePullPolicy: 'IfNotPresent' })),
      storageClassNames: ['standard', 'fast-ssd'],
      maxReplicas: 5,
      maxStorage: '50Gi',
      maxFailoverLagBytes: 1048576,
      requirePersistence: false,
      requireSyncReplication: false,
    });
    expect(accepted.spec.guardrails).toEqual({
      allowedSizes: ['small', 'large'],
      allowedDeletionPolicies: ['Retain'],
      requireFinalSnapshot: false,
    });
  });

  it('accepts images pinned by digest, pull settings and a required spread', async () => {
    const digest = `sha256:${'0123456789abcdef'.repeat(4)}`;
    const images = [
      { engine: 'redis', version: '7.0', image: `registry.example/redis@${digest}` },
      {
        engine: 'redis',
        version: '8.0',
        image: `registry.example:5000/team/redis:8.0.2@${digest}`,
        imagePullPolicy: 'Always',
      },
      { engine: 'valkey', version: '8.1', image: 'valkey/valkey:8.1.1', imagePullPolicy: 'Never' },
      { engine: 'postgres', version: '17', image: 'localhost/steward/postgres:17.12' },
    ];
    const accepted = await create(
      withBlock({
        images,
        imagePullSecrets: [{ name: 'regcred' }, { name: 'mirror.example' }],
        requireSpread: { nodes: 'Preferred', zones: 'Required' },
      }),
    );
    expect(accepted.spec.kubernetes?.images).toEqual(
      images.map((i) => ({ imagePullPolicy: 'IfNotPresent', ...i })),
    );
    expect(accepted.spec.kubernetes?.imagePullSecrets).toEqual([
      { name: 'regcred' },
      { name: 'mirror.example' },
    ]);
    expect(accepted.spec.kubernetes?.requireSpread).toEqual({
      nodes: 'Preferred',
      zones: 'Required',
    });
  });

  it('accepts quantities in every spelling Kubernetes has, compared by value (a class’s 1Gi within maxStorage 1024Mi)', async () => {
    const accepted = await create(
      withBlock({
        sizeClasses: {
          tiny: { cpu: '0.1', memory: '134217728', maxMemory: '100Mi', storage: '1Gi' },
          exp: { cpu: '1e-1', memory: '1.5G', storage: '.5Gi' },
        },
        maxStorage: '1024Mi',
        requirePersistence: true,
      }),
    );
    expect(accepted.spec.kubernetes?.sizeClasses?.tiny?.memory).toBe('134217728');
    expect(accepted.spec.kubernetes?.requirePersistence).toBe(true);
  });

  describe('spec.kubernetes.backup: isolated backups', () => {
    const destination = {
      bucket: 'platform-backups',
      prefix: 'pg',
      endpoint: 'https://s3.example',
      credentialsSecretRef: { name: 'backup-keys' },
    };
    const source = { namespace: 'platform', name: 'bucket-key' };

    it('defaults to no workload destinations and no copying; takes a copy with its source and endpoints with allowWorkloadDestinations', async () => {
      const plain = await create(withBlock({ backup: { destination } }));
      expect(plain.spec.kubernetes?.backup).toMatchObject({
        allowWorkloadDestinations: false,
        copyCredentialsToWorkloadNamespaces: false,
      });
      const open = await create(
        withBlock({
          backup: {
            destination,
            allowWorkloadDestinations: true,
            allowedEndpoints: ['http://minio.team:9000', 'https://10.0.0.7:9000/s3/'],
            copyCredentialsToWorkloadNamespaces: true,
            credentialsSourceSecretRef: source,
          },
        }),
      );
      expect(open.spec.kubernetes?.backup?.allowedEndpoints).toEqual([
        'http://minio.team:9000',
        'https://10.0.0.7:9000/s3/',
      ]);
    });

    it.each<[string, Record<string, unknown>, string]>([
      [
        'a copy without the Secret to copy',
        { destination, copyCredentialsToWorkloadNamespaces: true },
        'copyCredentialsToWorkloadNamespaces needs credentialsSourceSecretRef',
      ],
      [
        'a Secret to copy without the copy',
        { destination, credentialsSourceSecretRef: source },
        'credentialsSourceSecretRef is only read with copyCredentialsToWorkloadNamespaces: true',
      ],
      [
        'allowed endpoints without workload destinations',
        { destination, allowedEndpoints: ['http://minio.team:9000'] },
        'allowedEndpoints is only read with allowWorkloadDestinations: true',
      ],
      [
        'an allowed endpoint that is no URL',
        { allowWorkloadDestinations: true, allowedEndpoints: ['minio.team:9000'] },
        'spec.kubernetes.backup.allowedEndpoints[0]: Invalid value: "minio.team:9000": must be a URL http(s)://host[:port][/path]',
      ],
      [
        'an allowed endpoint with a user and password',
        { allowWorkloadDestinations: true, allowedEndpoints: ['http://u:p@minio.team:9000'] },
        'spec.kubernetes.backup.allowedEndpoints[0]: Invalid value: "http://u:p@minio.team:9000": must be a URL http(s)://host[:port][/path]',
      ],
    ])('refuses %s', async (_, backup, message) => {
      expect(await rejection(create(withBlock({ backup })))).toContain(message);
    });
  });

  it('accepts requireFinalSnapshot: false, which the guardrails default to anyway', async () => {
    const accepted = await create({
      ...kubernetesSpec,
      guardrails: { requireFinalSnapshot: false },
    });
    expect(accepted.spec.guardrails?.requireFinalSnapshot).toBe(false);
  });

  it.each<[string, Record<string, unknown>, string]>([
    [
      'a kubernetes profile without its block',
      { provider: 'kubernetes' },
      'spec.kubernetes is required when spec.provider is kubernetes',
    ],
    [
      'a kubernetes block on an aws profile',
      { ...awsSpec, kubernetes },
      'spec.kubernetes is only allowed when spec.provider is kubernetes',
    ],
    [
      'an aws block on a kubernetes profile',
      { ...kubernetesSpec, aws: awsSpec.aws },
      'spec.aws is only allowed when spec.provider is aws',
    ],
    [
      'a kubernetes profile without an image catalogue',
      { provider: 'kubernetes', kubernetes: { sizeClasses: kubernetes.sizeClasses } },
      'spec.kubernetes.images: Required value',
    ],
    [
      'an empty image catalogue',
      withBlock({ images: [] }),
      'spec.kubernetes.images: Invalid value: 0: spec.kubernetes.images in body should have at least 1 items',
    ],
    [
      'two images for one engine and version',
      withBlock({
        images: [...kubernetes.images, { engine: 'redis', version: '7.0', image: 'redis:7.0' }],
      }),
      'spec.kubernetes.images[4]: Duplicate value: {"engine":"redis","version":"7.0"}',
    ],
    [
      'an image version that is not a number',
      withBlock({ images: [{ engine: 'redis', version: 'latest', image: 'redis:latest' }] }),
      'spec.kubernetes.images[0].version: Invalid value: "latest"',
    ],
    [
      'an image reference with a space',
      withBlock({ images: [{ engine: 'redis', version: '7.0', image: 'redis 7.0' }] }),
      'spec.kubernetes.images[0].image: Invalid value: "redis 7.0": spec.kubernetes.images: image must be an image reference',
    ],
    ...(
      [
        ['an uppercase repository', 'registry.example/Redis:7.0.15'],
        ['a digest that is not 64 hex digits', 'registry.example/redis@sha256:abc123'],
        ['an uppercase digest', `registry.example/redis@sha256:${'A'.repeat(64)}`],
        ['a tag after the digest', `registry.example/redis@sha256:${'a'.repeat(64)}:7.0`],
        ['an empty tag', 'registry.example/redis:'],
        ['a scheme', 'https://registry.example/redis:7.0'],
      ] as const
    ).map(([what, image]): [string, Record<string, unknown>, string] => [
      `an image reference with ${what}`,
      withBlock({ images: [{ engine: 'redis', version: '7.0', image }] }),
      'spec.kubernetes.images: image must be an image reference such as registry.example.com/redis:7.0.15',
    ]),
    [
      'an unknown imagePullPolicy',
      withBlock({
        images: [
          { engine: 'redis', version: '7.0', image: 'redis:7.0', imagePullPolicy: 'Sometimes' },
        ],
      }),
      'spec.kubernetes.images[0].imagePullPolicy: Unsupported value: "Sometimes"',
    ],
    [
      'a pull Secret named twice',
      withBlock({ imagePullSecrets: [{ name: 'regcred' }, { name: 'regcred' }] }),
      'spec.kubernetes.imagePullSecrets[1]: Duplicate value: {"name":"regcred"}',
    ],
    [
      'a pull Secret name that is no object name',
      withBlock({ imagePullSecrets: [{ name: 'Reg_Cred' }] }),
      'spec.kubernetes.imagePullSecrets[0].name: Invalid value: "Reg_Cred"',
    ],
    [
      'an unknown required spread',
      withBlock({ requireSpread: { zones: 'Always' } }),
      'spec.kubernetes.requireSpread.zones: Unsupported value: "Always"',
    ],
    [
      'allowedSizes naming a class the kubernetes block does not have',
      { ...kubernetesSpec, guardrails: { allowedSizes: ['small', 'huge'] } },
      'spec.guardrails.allowedSizes may only name keys of spec.kubernetes.sizeClasses in a kubernetes profile',
    ],
    [
      'allowedSizes on a kubernetes profile without size classes',
      {
        provider: 'kubernetes',
        kubernetes: { images: kubernetes.images },
        guardrails: { allowedSizes: ['small'] },
      },
      'spec.guardrails.allowedSizes may only name keys of spec.kubernetes.sizeClasses in a kubernetes profile',
    ],
    [
      'the aws/gcp size classes on a kubernetes profile',
      { ...kubernetesSpec, sizeClasses: { small: 'db.t3.micro' } },
      'spec.sizeClasses maps sizes to aws or gcp instance classes: a kubernetes profile declares its size classes in spec.kubernetes.sizeClasses',
    ],
    [
      'requireFinalSnapshot on a kubernetes profile',
      { ...kubernetesSpec, guardrails: { requireFinalSnapshot: true } },
      'spec.guardrails.requireFinalSnapshot is for aws and gcp profiles (DatabaseInstance final snapshots): in-cluster workloads take no final snapshot, so a kubernetes profile cannot require one',
    ],
    [
      'a memory that is not a quantity',
      withBlock({ sizeClasses: { small: { cpu: '250m', memory: '1GB' } } }),
      `spec.kubernetes.sizeClasses.small.memory: Invalid value: "1GB": spec.kubernetes.sizeClasses.small.memory in body should match '${QUANTITY_PATTERN}'`,
    ],
    [
      'a cpu that is not a quantity',
      withBlock({ sizeClasses: { small: { cpu: 'two', memory: '1Gi' } } }),
      `spec.kubernetes.sizeClasses.small.cpu: Invalid value: "two": spec.kubernetes.sizeClasses.small.cpu in body should match '${QUANTITY_PATTERN}'`,
    ],
    [
      'a negative storage',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '1Gi', storage: '-1Gi' } } }),
      `spec.kubernetes.sizeClasses.small.storage: Invalid value: "-1Gi": spec.kubernetes.sizeClasses.small.storage in body should match '${QUANTITY_PATTERN}'`,
    ],
    [
      'a maxStorage that is not a quantity',
      withBlock({ maxStorage: '100 GiB' }),
      `spec.kubernetes.maxStorage: Invalid value: "100 GiB": spec.kubernetes.maxStorage in body should match '${QUANTITY_PATTERN}'`,
    ],
    [
      'a size class without memory',
      withBlock({ sizeClasses: { small: { cpu: '1' } } }),
      'spec.kubernetes.sizeClasses.small.memory: Required value',
    ],
    [
      'a size class of zero cpu',
      withBlock({ sizeClasses: { small: { cpu: '0', memory: '1Gi' } } }),
      'spec.kubernetes.sizeClasses[small].cpu: Invalid value: "0": spec.kubernetes.sizeClasses: a size class’s cpu must be greater than 0',
    ],
    [
      'a size class of zero memory',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '0' } } }),
      'spec.kubernetes.sizeClasses: a size class’s memory must be greater than 0',
    ],
    [
      'a size class whose memory is in millibytes',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '512m' } } }),
      'spec.kubernetes.sizeClasses: a size class’s memory must be a whole number of bytes',
    ],
    [
      'a size class of half a byte of storage',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '1Gi', storage: '0.5' } } }),
      'spec.kubernetes.sizeClasses: a size class’s storage must be a whole number of bytes',
    ],
    [
      'a size class whose maxMemory is 0 (Redis: no limit at all)',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '1Gi', maxMemory: '0' } } }),
      'spec.kubernetes.sizeClasses: a size class’s maxMemory must be greater than 0',
    ],
    [
      'a maxStorage of 0',
      withBlock({ maxStorage: '0' }),
      'spec.kubernetes.maxStorage must be greater than 0',
    ],
    [
      'a maxStorage of 1.1Gi (a fraction of a byte)',
      withBlock({ maxStorage: '1.1Gi' }),
      'spec.kubernetes.maxStorage must be a whole number of bytes',
    ],
    [
      'a backup destination whose bucket is an IP address',
      withBlock({
        backup: {
          destination: { bucket: '10.1.2.3', credentialsSecretRef: { name: 'backup-keys' } },
        },
      }),
      'spec.kubernetes.backup.destination.bucket: Invalid value: "10.1.2.3": an S3 bucket name may not be an IP address',
    ],
    [
      'a backup destination endpoint with a user and password',
      withBlock({
        backup: {
          destination: {
            bucket: 'platform-backups',
            endpoint: 'https://key:secret@s3.example',
            credentialsSecretRef: { name: 'backup-keys' },
          },
        },
      }),
      'spec.kubernetes.backup.destination.endpoint: Invalid value: "https://key:secret@s3.example": must be a URL http(s)://host[:port][/path]',
    ],
    [
      'an aws endpoint with a query',
      { ...awsSpec, aws: { ...awsSpec.aws, endpoint: 'https://rds.example/?x=1' } },
      'spec.aws.endpoint: Invalid value: "https://rds.example/?x=1": must be a URL http(s)://host[:port][/path]',
    ],
    [
      'an aws endpoint with a port above 65535',
      { ...awsSpec, aws: { ...awsSpec.aws, endpoint: 'http://127.0.0.1:65536' } },
      'spec.aws.endpoint: Invalid value: "http://127.0.0.1:65536": the port of the URL must be 1-65535',
    ],
    [
      'a maxMemory equal to memory (by value: 1024Mi = 1Gi)',
      withBlock({ sizeClasses: { small: { cpu: '1', memory: '1Gi', maxMemory: '1024Mi' } } }),
      'spec.kubernetes.sizeClasses[small]: Invalid value: spec.kubernetes.sizeClasses: a size class’s maxMemory must be below its memory (the memory limit): the server needs memory beyond its dataset',
    ],
    [
      'a size class’s storage above maxStorage (by value: 1025Mi > 1Gi)',
      withBlock({
        sizeClasses: { small: { cpu: '1', memory: '1Gi', storage: '1025Mi' } },
        maxStorage: '1Gi',
      }),
      'spec.kubernetes: Invalid value: spec.kubernetes.sizeClasses: a size class’s storage may not exceed spec.kubernetes.maxStorage',
    ],
    [
      'a size class name that is not a DNS label',
      withBlock({ sizeClasses: { Small: { cpu: '1', memory: '1Gi' } } }),
      'spec.kubernetes.sizeClasses keys must be lowercase DNS labels such as small or large-ha',
    ],
    [
      'a StorageClass listed twice',
      withBlock({ storageClassNames: ['fast', 'fast'] }),
      'spec.kubernetes.storageClassNames[1]: Duplicate value: "fast"',
    ],
    [
      'maxReplicas 0',
      withBlock({ maxReplicas: 0 }),
      'spec.kubernetes.maxReplicas: Invalid value: 0: spec.kubernetes.maxReplicas in body should be greater than or equal to 1',
    ],
    [
      'a negative maxFailoverLagBytes',
      withBlock({ maxFailoverLagBytes: -1 }),
      'spec.kubernetes.maxFailoverLagBytes: Invalid value: -1: spec.kubernetes.maxFailoverLagBytes in body should be greater than or equal to 0',
    ],
  ])('rejects %s', async (_case, spec, expected) => {
    expect(await rejection(create(spec))).toContain(expected);
  });

  it('still checks an aws profile’s allowedSizes against spec.sizeClasses', async () => {
    expect(
      await rejection(create({ ...awsSpec, guardrails: { allowedSizes: ['small', 'large'] } })),
    ).toContain('spec.guardrails.allowedSizes may only name keys of spec.sizeClasses');
    const accepted = await create({ ...awsSpec, guardrails: { allowedSizes: ['small'] } });
    expect(accepted.spec.guardrails?.allowedSizes).toEqual(['small']);
  });

  it('rejects turning a kubernetes profile into another provider', async () => {
    const current = await create(kubernetesSpec);
    expect(
      await rejection(
        client.update(ProviderProfile.resourceType, {
          ...current,
          spec: { provider: 'aws', namespaceSelector: {}, aws: awsSpec.aws } as ProviderProfileSpec,
        }),
      ),
    ).toContain('spec.provider is immutable: create a new ProviderProfile instead');
  });

  it('merges catalogue entries by engine and version under server-side apply', async () => {
    const name = `applied-${++created}`;
    const apply = (fieldManager: string, images: Kubernetes['images']) =>
      client.apply<ProviderProfile>(
        ProviderProfile.resourceType,
        {
          apiVersion: ProviderProfile.apiVersion,
          kind: 'ProviderProfile',
          metadata: { name },
          spec: { provider: 'kubernetes', namespaceSelector: {}, kubernetes: { images } },
        } satisfies ApplyConfiguration<ProviderProfile>,
        { fieldManager },
      );
    await apply('redis-team', [{ engine: 'redis', version: '7.0', image: 'redis:7.0.15' }]);
    const merged = await apply('postgres-team', [
      { engine: 'postgres', version: '17', image: 'postgres:17.2' },
    ]);
    expect(merged.spec.kubernetes?.images).toEqual([
      { engine: 'redis', version: '7.0', image: 'redis:7.0.15', imagePullPolicy: 'IfNotPresent' },
      {
        engine: 'postgres',
        version: '17',
        image: 'postgres:17.2',
        imagePullPolicy: 'IfNotPresent',
      },
    ]);
  });
});
