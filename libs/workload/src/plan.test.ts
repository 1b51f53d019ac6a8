import {
  ConfigMaps,
  Namespaces,
  Secrets,
  Services,
  StatefulSets,
  type KubeObject,
  type OwnerReference,
} from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { ConflictReasons, type DesiredChild } from './desired-child.js';
import { DesiredHashAnnotation } from './desired-hash.js';
import { addressChild, isConverged, planChild, planPrune, addressKey } from './plan.js';

const parent: KubeObject = {
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  metadata: { name: 'web', namespace: 'ns', uid: 'parent-uid' },
};
const ours: OwnerReference = {
  apiVersion: 'cache.steward.dev/v1alpha1',
  kind: 'CacheCluster',
  name: 'web',
  uid: 'parent-uid',
  controller: true,
  blockOwnerDeletion: true,
};
const service: DesiredChild = {
  resourceType: Services,
  object: {
    metadata: { name: 'web-rw', labels: { app: 'web' } },
    spec: { selector: { app: 'web' }, ports: [{ name: 'redis', port: 6379 }] },
  },
};

interface ServiceLive extends KubeObject {
  spec: { clusterIP?: string; ports: { port: number; protocol?: string; targetPort?: number }[] };
}
interface StatefulSetLive extends KubeObject {
  spec: {
    template: { spec: { containers: { resources: { requests: Record<string, string> } }[] } };
  };
}

/** What the API server would answer for the applied configuration, with fields of its own. */
function liveOf(child: DesiredChild, changes: (o: ServiceLive) => void = () => {}) {
  const configuration = addressChild(parent, child).configuration!;
  const live = structuredClone(configuration) as unknown as ServiceLive;
  live.metadata.uid = 'child-uid';
  live.metadata.resourceVersion = '7';
  live.spec.clusterIP = '10.0.0.7';
  live.spec.ports[0]!.protocol = 'TCP';
  live.spec.ports[0]!.targetPort = 6379;
  changes(live);
  return live;
}

describe('addressChild', () => {
  it('fills apiVersion, kind and the parent namespace, and adds the controller reference and hash', () => {
    const child = addressChild(parent, service);
    expect(child).toMatchObject({
      name: 'web-rw',
      namespace: 'ns',
      key: 'Service/web-rw',
      mode: 'apply',
    });
    expect(child.configuration).toMatchObject({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: {
        name: 'web-rw',
        namespace: 'ns',
        labels: { app: 'web' },
        ownerReferences: [ours],
        annotations: { [DesiredHashAnnotation]: expect.stringMatching(/^[0-9a-f]{16}$/) },
      },
    });
  });

  it('hashes the configuration independently of key order', () => {
    const a = addressChild(parent, {
      resourceType: ConfigMaps,
      object: { metadata: { name: 'c' }, data: { x: '1', y: '2' } },
    });
    const b = addressChild(parent, {
      resourceType: ConfigMaps,
      object: { data: { y: '2', x: '1' }, metadata: { name: 'c' } },
    });
    expect(a.configuration!.metadata.annotations).toEqual(b.configuration!.metadata.annotations);
  });

  it("turns a Secret's stringData into data (the server never returns stringData)", () => {
    const child = addressChild(parent, {
      resourceType: Secrets,
      object: { metadata: { name: 's' }, data: { a: 'YQ==' }, stringData: { b: 'b' } },
    });
    expect(child.configuration).not.toHaveProperty('stringData');
    expect(child.configuration!.data).toEqual({ a: 'YQ==', b: 'Yg==' });
  });

  it('calls a create-once generator only when building', () => {
    let calls = 0;
    const child = addressChild(parent, {
      resourceType: Secrets,
      mode: 'create-once',
      name: 'auth',
      object: () => {
        calls++;
        return { metadata: { name: 'auth' }, stringData: { password: 'p' } };
      },
    });
    expect(calls).toBe(0);
    expect(child.build()).toMatchObject({
      metadata: { name: 'auth', namespace: 'ns', ownerReferences: [ours] },
      data: { password: 'cA==' },
    });
    expect(calls).toBe(1);
  });

  it.each<[string, DesiredChild]>([
    ['no name', { resourceType: ConfigMaps, object: { metadata: {} } as never }],
    [
      'a function in mode apply',
      // Refused by the type too; this is what a caller that cast it meets at run time.
      { resourceType: Secrets, name: 's', object: () => ({ metadata: { name: 's' } }) } as never,
    ],
    [
      'a function without a name',
      {
        resourceType: Secrets,
        mode: 'create-once',
        object: () => ({ metadata: { name: 's' } }),
      } as never,
    ],
    [
      'another namespace',
      { resourceType: ConfigMaps, object: { metadata: { name: 'c', namespace: 'other' } } },
    ],
    [
      'ownerReferences',
      {
        resourceType: ConfigMaps,
        object: { metadata: { name: 'c', ownerReferences: [ours] } } as never,
      },
    ],
    [
      'another apiVersion',
      {
        resourceType: StatefulSets,
        object: { apiVersion: 'apps/v1beta1', metadata: { name: 's' } },
      },
    ],
    [
      'another kind',
      { resourceType: ConfigMaps, object: { kind: 'Secret', metadata: { name: 'c' } } },
    ],
    [
      'disagreeing names',
      { resourceType: ConfigMaps, name: 'a', object: { metadata: { name: 'b' } } },
    ],
    [
      'a cluster-scoped child of a namespaced parent',
      { resourceType: Namespaces, object: { metadata: { name: 'n' } } },
    ],
  ])('refuses %s', (_name, desired) => {
    expect(() => addressChild(parent, desired).build()).toThrow(TypeError);
  });

  it('refuses a generator whose object has another name, when it is built', () => {
    const child = addressChild(parent, {
      resourceType: Secrets,
      mode: 'create-once',
      name: 'auth',
      object: () => ({ metadata: { name: 'other' } }),
    });
    expect(() => child.build()).toThrow(TypeError);
  });
});

describe('planChild', () => {
  const child = addressChild(parent, service);
  const secret = addressChild(parent, {
    resourceType: Secrets,
    mode: 'create-once',
    name: 'auth',
    object: () => ({ metadata: { name: 'auth' } }),
  });

  it.each<[string, KubeObject | undefined, string]>([
    ['absent → apply', undefined, 'apply'],
    ['converged, with server fields → keep', liveOf(service), 'keep'],
    [
      'a label we set changed → apply',
      liveOf(service, (o) => (o.metadata.labels!.app = 'x')),
      'apply',
    ],
    ['a port changed → apply', liveOf(service, (o) => (o.spec.ports[0]!.port = 1)), 'apply'],
    [
      'labels added by others → keep',
      liveOf(service, (o) => (o.metadata.labels!.team = 'a')),
      'keep',
    ],
    [
      'another hash (the configuration changed) → apply',
      liveOf(service, (o) => (o.metadata.annotations![DesiredHashAnnotation] = '0000000000000000')),
      'apply',
    ],
    ['no hash annotation → apply', liveOf(service, (o) => delete o.metadata.annotations), 'apply'],
    [
      'another owner listed before ours → keep',
      liveOf(service, (o) =>
        o.metadata.ownerReferences!.unshift({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          name: 'x',
          uid: 'x',
        }),
      ),
      'keep',
    ],
    [
      'controlled by another → conflict',
      liveOf(
        service,
        (o) => (o.metadata.ownerReferences = [{ ...ours, name: 'other', uid: 'other-uid' }]),
      ),
      'conflict',
    ],
    ['no owner → conflict', liveOf(service, (o) => delete o.metadata.ownerReferences), 'conflict'],
    [
      'our reference, but not as controller → conflict',
      liveOf(service, (o) => (o.metadata.ownerReferences = [{ ...ours, controller: false }])),
      'conflict',
    ],
    [
      'being deleted → keep',
      liveOf(service, (o) => {
        o.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
        o.metadata.labels!.app = 'x';
      }),
      'keep',
    ],
  ])('%s', (_name, live, action) => {
    expect(planChild(parent, child, live).action).toBe(action);
  });

  it('creates a missing create-once child and keeps an existing one whatever it holds', () => {
    expect(planChild(parent, secret, undefined)).toEqual({ action: 'create' });
    const existing: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'auth', namespace: 'ns', ownerReferences: [ours] },
    };
    expect(planChild(parent, secret, existing)).toEqual({ action: 'keep', object: existing });
  });

  it('names the other controller in a conflict', () => {
    const live = liveOf(
      service,
      (o) =>
        (o.metadata.ownerReferences = [{ ...ours, kind: 'PostgresCluster', name: 'db', uid: 'u' }]),
    );
    const plan = planChild(parent, child, live);
    expect(plan).toEqual({
      action: 'conflict',
      conflict: {
        kind: 'Service',
        name: 'web-rw',
        owner: 'PostgresCluster/db',
        reason: ConflictReasons.ControlledByAnother,
        message:
          'Service web-rw exists and is controlled by PostgresCluster/db, not by CacheCluster web: it is left as it is',
      },
    });
  });
});

describe('isConverged', () => {
  it('compares quantities by value', () => {
    const child = addressChild(parent, {
      resourceType: StatefulSets,
      object: {
        metadata: { name: 'web' },
        spec: {
          template: {
            spec: {
              containers: [
                { name: 'r', resources: { requests: { cpu: '1000m', memory: '1024Mi' } } },
              ],
            },
          },
        },
      },
    });
    const live = structuredClone(child.configuration!) as unknown as StatefulSetLive;
    live.spec.template.spec.containers[0]!.resources.requests = { cpu: '1', memory: '1Gi' };
    expect(isConverged(child.configuration!, live)).toBe(true);
    live.spec.template.spec.containers[0]!.resources.requests.cpu = '2';
    expect(isConverged(child.configuration!, live)).toBe(false);
  });
});

describe('planPrune', () => {
  it('deletes controlled children no longer desired, not those desired or already being deleted', () => {
    const cm = (name: string, deleting = false): KubeObject => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: 'ns', ...(deleting ? { deletionTimestamp: 'x' } : {}) },
    });
    const wanted = new Set([addressKey(ConfigMaps, 'ns', 'keep')]);
    const pruned = planPrune(ConfigMaps, [cm('keep'), cm('old'), cm('going', true)], wanted);
    expect(pruned.map((o) => o.metadata.name)).toEqual(['old']);
  });
});
