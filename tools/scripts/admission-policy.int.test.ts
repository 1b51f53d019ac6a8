import { CacheCluster } from '@steward/cache-cluster-api';
import { DatabaseInstance } from '@steward/database-instance-api';
import { KafkaTopic } from '@steward/kafka-topic-api';
import { ApiError, KubeClient, Namespaces, type KubeObject } from '@steward/kube';
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { ProviderProfile } from '@steward/provider-profile-api';
import { eventually, repoRoot, startControlPlane, type ControlPlane } from '@steward/testing';
import {
  applyAsAdmin,
  manifestsOf,
  renderChart,
  type ObjectManifest,
} from '@steward/testing-charts';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Every chart ships a ValidatingAdmissionPolicy that refuses an object whose ProviderProfile does
 * not allow its namespace — judged by the real API server, with the profiles as params and the
 * request's namespaceObject labels.
 */
const charts = [
  { chart: 'database-instance-controller', kind: DatabaseInstance, provider: 'aws' },
  { chart: 'kafka-topic-controller', kind: KafkaTopic, provider: 'kafka' },
  { chart: 'cache-cluster-controller', kind: CacheCluster, provider: 'kubernetes' },
  { chart: 'postgres-cluster-controller', kind: PostgresCluster, provider: 'kubernetes' },
] as const;

const specs: Record<string, Record<string, unknown>> = {
  DatabaseInstance: { engine: 'postgres', version: '16', size: 'small', storageGiB: 20 },
  KafkaTopic: { partitions: 1 },
  CacheCluster: { version: '7.0' },
  PostgresCluster: { version: '17' },
};
const blocks: Record<string, Record<string, unknown>> = {
  aws: {
    aws: { region: 'eu-west-1', credentialsSecretRef: { namespace: 'platform', name: 'aws' } },
    sizeClasses: { small: 'db.t3.micro' },
  },
  kafka: { kafka: { bootstrapServers: ['127.0.0.1:9092'] } },
  kubernetes: {
    kubernetes: { images: [{ engine: 'redis', version: '7.0', image: 'registry.example/r:7' }] },
  },
};

let plane: ControlPlane;
let admin: KubeClient;

beforeAll(async () => {
  plane = await startControlPlane({
    crds: charts.map((c) => join(repoRoot(), 'charts', c.chart, 'crds')),
  });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
  for (const [name, labels] of [
    ['listed', {}],
    ['labelled', { 'steward.dev/tenant': 'yes' }],
    ['outsider', {}],
  ] as const) {
    await admin.create(Namespaces, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels },
    });
  }
  for (const { chart } of charts) {
    // The cache chart is installed with a default profile (workloads that name none use it).
    const values =
      chart === 'cache-cluster-controller' ? { defaultProviderProfile: 'default-kubernetes' } : {};
    const manifests = await renderChart(join(repoRoot(), 'charts', chart), values);
    const policies = [
      ...manifestsOf(manifests, 'ValidatingAdmissionPolicy'),
      ...manifestsOf(manifests, 'ValidatingAdmissionPolicyBinding'),
    ];
    // The kafka chart adds the topic-name policy (kafka.topicNamePolicy NamespacePrefix).
    expect(policies).toHaveLength(chart === 'kafka-topic-controller' ? 4 : 2);
    for (const p of policies) await applyAsAdmin(plane, p as ObjectManifest);
  }
  for (const provider of ['aws', 'kafka', 'kubernetes']) {
    await admin.create(ProviderProfile.resourceType, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: `${provider}-bound` },
      spec: {
        provider,
        namespaces: ['listed'],
        namespaceSelector: {
          matchExpressions: [{ key: 'steward.dev/tenant', operator: 'In', values: ['yes'] }],
        },
        ...blocks[provider],
      },
    } as KubeObject);
  }
  await admin.create(ProviderProfile.resourceType, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name: 'default-kubernetes' },
    spec: { provider: 'kubernetes', namespaces: ['listed'], ...blocks['kubernetes'] },
  } as KubeObject);
}, 300_000);
afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

const objectOf = (
  kind: (typeof charts)[number]['kind'],
  namespace: string,
  name: string,
  profile?: string,
) =>
  ({
    apiVersion: kind.apiVersion,
    kind: kind.resourceType.kind,
    metadata: { name, namespace },
    spec: {
      ...specs[kind.resourceType.kind],
      // A topic the namespace may name under the profiles' default topicNamePolicy.
      ...(kind === KafkaTopic ? { topicName: `${namespace}.${name}` } : {}),
      ...(profile ? { providerProfileRef: { name: profile } } : {}),
    },
  }) as KubeObject;

/** Creates, retrying while the API server has not yet loaded the policy or its params. */
async function createRefused(obj: KubeObject): Promise<ApiError> {
  return eventually(
    async () => {
      try {
        const created = await admin.create({ ...objectType(obj) }, obj);
        await admin.delete(objectType(obj), created.metadata.name!, created.metadata.namespace);
        return undefined;
      } catch (error) {
        return error instanceof ApiError && error.code === 403 ? error : undefined;
      }
    },
    {
      description: `${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name} refused`,
      timeoutMs: 30_000,
    },
  );
}
const objectType = (obj: KubeObject) =>
  charts.find((c) => c.kind.resourceType.kind === obj.kind)!.kind.resourceType;

describe('the charts’ ValidatingAdmissionPolicy (ProfileNotAllowedInNamespace at admission)', () => {
  it.each(charts)(
    '$chart: refuses a profile from a namespace it neither lists nor selects',
    async ({ kind, provider }) => {
      const refused = await createRefused(objectOf(kind, 'outsider', 'x', `${provider}-bound`));
      expect(refused.message).toContain(
        `ProviderProfile ${provider}-bound may not be used from namespace outsider (ProfileNotAllowedInNamespace)`,
      );
      // Listed by name, or selected by its labels: admitted.
      await admin.create(
        kind.resourceType,
        objectOf(kind, 'listed', 'by-name', `${provider}-bound`),
      );
      await admin.create(
        kind.resourceType,
        objectOf(kind, 'labelled', 'by-label', `${provider}-bound`),
      );
    },
  );

  it('judges a workload without providerProfileRef by the chart’s default profile', async () => {
    const refused = await createRefused(objectOf(CacheCluster, 'labelled', 'defaulted'));
    expect(refused.message).toContain(
      'ProviderProfile default-kubernetes may not be used from namespace labelled',
    );
    await admin.create(CacheCluster.resourceType, objectOf(CacheCluster, 'listed', 'defaulted'));
  });

  it('judges only a changed profile reference on update: the controller’s own writes go through after the profile stops allowing the namespace', async () => {
    const obj = await admin.get(DatabaseInstance.resourceType, 'by-name', 'listed');
    await admin.mergePatch(ProviderProfile.resourceType, 'aws-bound', undefined, {
      spec: { namespaces: ['somewhere-else'] },
    });
    // A finalizer and an annotation, as the controller writes them: admitted.
    await eventually(
      async () => {
        try {
          await admin.mergePatch(DatabaseInstance.resourceType, 'by-name', 'listed', {
            metadata: { finalizers: ['database.steward.dev/external'], annotations: { note: 'x' } },
          });
          return true;
        } catch {
          return false;
        }
      },
      { description: 'metadata write admitted' },
    );
    // Pointing another object at the profile now: refused.
    const other = objectOf(DatabaseInstance, 'listed', 'late', 'aws-bound');
    const refused = await createRefused(other);
    expect(refused.message).toContain('may not be used from namespace listed');
    expect(obj.metadata.name).toBe('by-name');
  });

  it('kafka: refuses a topic outside <namespace>. under topicNamePolicy NamespacePrefix, by spec or by annotation (TopicNameNotAllowed)', async () => {
    const foreign = objectOf(KafkaTopic, 'listed', 'foreign', 'kafka-bound') as KubeObject & {
      spec: { topicName?: string };
    };
    foreign.spec.topicName = 'payments.ledger';
    const refused = await createRefused(foreign);
    expect(refused.message).toContain(
      'topic payments.ledger is not one namespace listed may manage through ProviderProfile kafka-bound (TopicNameNotAllowed)',
    );
    // No topicName: the object's name is the topic, and it has no prefix.
    const bare = objectOf(KafkaTopic, 'listed', 'bare', 'kafka-bound') as KubeObject & {
      spec: { topicName?: string };
    };
    delete bare.spec.topicName;
    expect((await createRefused(bare)).message).toContain('Set spec.topicName to listed.bare');
    // A forged external-name annotation on an admitted object: refused on update.
    const admitted = await admin.create(
      KafkaTopic.resourceType,
      objectOf(KafkaTopic, 'listed', 'annotated', 'kafka-bound'),
    );
    const forged = await admin
      .mergePatch(KafkaTopic.resourceType, 'annotated', 'listed', {
        metadata: { annotations: { 'steward.dev/external-name': 'payments.ledger' } },
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(forged).toBeInstanceOf(ApiError);
    expect((forged as ApiError).message).toContain('TopicNameNotAllowed');
    // The annotation the controller writes (the topic it acts on) and other metadata: admitted.
    await admin.mergePatch(KafkaTopic.resourceType, 'annotated', 'listed', {
      metadata: {
        annotations: { 'steward.dev/external-name': 'listed.annotated', note: 'x' },
        finalizers: ['kafka.steward.dev/topic'],
      },
    });
    // A profile whose topicNamePolicy is Any: any name.
    await admin.create(ProviderProfile.resourceType, {
      apiVersion: ProviderProfile.apiVersion,
      kind: 'ProviderProfile',
      metadata: { name: 'kafka-any' },
      spec: {
        provider: 'kafka',
        namespaces: ['listed'],
        kafka: { bootstrapServers: ['127.0.0.1:9092'], topicNamePolicy: 'Any' },
      },
    } as KubeObject);
    const anyName = objectOf(KafkaTopic, 'listed', 'shared', 'kafka-any') as KubeObject & {
      spec: { topicName?: string };
    };
    anyName.spec.topicName = 'shared-events';
    await eventually(
      async () =>
        admin.create(KafkaTopic.resourceType, anyName).then(
          () => true,
          () => false,
        ),
      { description: 'a topic of any name admitted under topicNamePolicy Any', timeoutMs: 30_000 },
    );
    expect(admitted.metadata.name).toBe('annotated');
  });
});
