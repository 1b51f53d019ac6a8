import {
  ApiException,
  CoreV1Api,
  CustomObjectsApi,
  RbacAuthorizationV1Api,
  VersionApi,
  Watch,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startControlPlane, type ControlPlane } from '../src/index.js';

const group = 'smoke.steward.dev';
const version = 'v1alpha1';
const plural = 'widgets';
const namespace = 'smoke';
const versions = readFileSync(
  join(import.meta.dirname, '../../../tools/control-plane/versions.env'),
  'utf8',
);
const expectedK8sVersion = /^K8S_VERSION=(.+)$/m.exec(versions)?.[1];

interface Widget extends KubernetesObject {
  spec: { size: number; color: string };
  status?: { ready?: boolean; observedGeneration?: number };
}

function widget(name: string, spec: Widget['spec']): Widget {
  return { apiVersion: `${group}/${version}`, kind: 'Widget', metadata: { name, namespace }, spec };
}

/** The API server's own rejection: HTTP code and the Status message it sent. */
async function rejection(call: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof ApiException)) throw error;
    const body = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
    return { code: error.code, message: String(body?.message ?? '') };
  }
  throw new Error('expected the API server to reject the request, but it was accepted');
}

describe('the control plane harness runs a real API server', () => {
  let plane: ControlPlane;
  let custom: CustomObjectsApi;
  let core: CoreV1Api;

  beforeAll(async () => {
    plane = await startControlPlane({
      crds: [join(import.meta.dirname, 'fixtures/crds')],
      controllerManager: true,
    });
    custom = plane.kubeConfig.makeApiClient(CustomObjectsApi);
    core = plane.kubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: namespace } } });
  });

  afterAll(async () => {
    await plane?.stop();
  });

  it('reports the Kubernetes version it was built as', async () => {
    const info = await plane.kubeConfig.makeApiClient(VersionApi).getCode();
    expect(info.gitVersion).toBe(expectedK8sVersion);
  });

  it('accepts a valid custom resource', async () => {
    const created = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: widget('valid', { size: 3, color: 'red' }),
    })) as Widget;
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.generation).toBe(1);
  });

  it.each([
    ['a size below the minimum', { size: 0, color: 'red' }, 'should be greater than or equal to 1'],
    ['a size above the maximum', { size: 11, color: 'red' }, 'should be less than or equal to 10'],
    ['a colour outside the enum', { size: 1, color: 'purple' }, 'Unsupported value: "purple"'],
  ])('rejects %s with the server’s own message', async (_case, spec, expected) => {
    const { code, message } = await rejection(
      custom.createNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        body: widget('invalid', spec as Widget['spec']),
      }),
    );
    expect(code).toBe(422);
    expect(message).toContain(expected);
  });

  it('rejects updates that break a CEL transition rule and keeps the stored object', async () => {
    const name = 'grows-only';
    await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: widget(name, { size: 5, color: 'green' }),
    });
    const current = (await custom.getNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name,
    })) as Widget;

    const shrink = await rejection(
      custom.replaceNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name,
        body: { ...current, spec: { ...current.spec, size: 3 } },
      }),
    );
    expect(shrink.code).toBe(422);
    expect(shrink.message).toContain('spec.size may only grow');

    const recolour = await rejection(
      custom.replaceNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name,
        body: { ...current, spec: { ...current.spec, color: 'blue' } },
      }),
    );
    expect(recolour.code).toBe(422);
    expect(recolour.message).toContain('spec.color is immutable');

    const grown = (await custom.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name,
      body: { ...current, spec: { ...current.spec, size: 7 } },
    })) as Widget;
    expect(grown.spec.size).toBe(7);
    expect(grown.metadata?.generation).toBe(2);
  });

  it('writes status only through the status subresource', async () => {
    const name = 'with-status';
    const created = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: widget(name, { size: 1, color: 'blue' }),
    })) as Widget;

    const viaMain = (await custom.replaceNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name,
      body: { ...created, status: { ready: true } },
    })) as Widget;
    expect(viaMain.status?.ready).toBeUndefined();

    const viaStatus = (await custom.replaceNamespacedCustomObjectStatus({
      group,
      version,
      namespace,
      plural,
      name,
      body: {
        ...viaMain,
        spec: { size: 9, color: 'blue' },
        status: { ready: true, observedGeneration: 1 },
      },
    })) as Widget;
    expect(viaStatus.status).toEqual({ ready: true, observedGeneration: 1 });
    expect(viaStatus.spec.size).toBe(1);
    expect(viaStatus.metadata?.generation).toBe(1);
  });

  it('streams ADDED, MODIFIED and DELETED to a watch', async () => {
    const name = 'watched';
    const seen: string[] = [];
    const watch = new Watch(plane.kubeConfig);
    const controller = await watch.watch(
      `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
      { fieldSelector: `metadata.name=${name}`, allowWatchBookmarks: true },
      (type, obj: Widget) => {
        if (obj.metadata?.name === name) seen.push(`${type}:${obj.spec.size}`);
      },
      () => undefined,
    );
    try {
      await custom.createNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        body: widget(name, { size: 2, color: 'red' }),
      });
      const current = (await custom.getNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name,
      })) as Widget;
      await custom.replaceNamespacedCustomObject({
        group,
        version,
        namespace,
        plural,
        name,
        body: { ...current, spec: { ...current.spec, size: 4 } },
      });
      await custom.deleteNamespacedCustomObject({ group, version, namespace, plural, name });
      await eventually(() => seen.length >= 3, { description: 'three watch events' });
      expect(seen).toEqual(['ADDED:2', 'MODIFIED:4', 'DELETED:4']);
    } finally {
      controller.abort();
    }
  });

  it('garbage-collects a child whose owner was deleted', async () => {
    const owner = (await custom.createNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      body: widget('owner', { size: 1, color: 'green' }),
    })) as Widget;
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: 'owned',
          ownerReferences: [
            {
              apiVersion: `${group}/${version}`,
              kind: 'Widget',
              name: 'owner',
              uid: owner.metadata!.uid!,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        data: { k: 'v' },
      },
    });
    await custom.deleteNamespacedCustomObject({
      group,
      version,
      namespace,
      plural,
      name: 'owner',
      propagationPolicy: 'Background',
    });
    await eventually(
      async () =>
        (await rejection(core.readNamespacedConfigMap({ namespace, name: 'owned' }))).code === 404,
      { description: 'the owned ConfigMap to be garbage-collected', timeoutMs: 120_000 },
    );
  });

  it('refuses a user without RBAC with 403, and admits them once a Role allows it', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'visible-to-developers' }, data: { k: 'v' } },
    });
    const alice = await plane.kubeConfigFor({ name: 'alice', groups: ['developers'] });
    const aliceCore = alice.makeApiClient(CoreV1Api);

    const refused = await rejection(aliceCore.listNamespacedConfigMap({ namespace }));
    expect(refused.code).toBe(403);
    expect(refused.message).toContain('User "alice" cannot list resource "configmaps"');

    const rbac = plane.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace,
      body: {
        metadata: { name: 'configmap-reader' },
        rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace,
      body: {
        metadata: { name: 'developers-read-configmaps' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-reader' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'developers' }],
      },
    });
    const allowed = await eventually(() => aliceCore.listNamespacedConfigMap({ namespace }), {
      description: 'alice to be allowed to list configmaps',
    });
    expect(allowed.items.map((cm) => cm.metadata?.name)).toContain('visible-to-developers');

    const stillRefused = await rejection(aliceCore.listNamespacedSecret({ namespace }));
    expect(stillRefused.code).toBe(403);
  });
  it('restarts the API server on the same address with the data intact', async () => {
    await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'survivor' }, data: { k: 'v' } },
    });
    await plane.stopApiServer();
    await expect(core.readNamespacedConfigMap({ namespace, name: 'survivor' })).rejects.toThrow();
    await plane.startApiServer();
    const back = await core.readNamespacedConfigMap({ namespace, name: 'survivor' });
    expect(back.data).toEqual({ k: 'v' });
  });
});
