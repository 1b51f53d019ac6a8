import { type CacheCluster } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { configHash } from './config.js';
import { Labels } from './labels.js';
import { passwordSecretOf, renderChildren } from './render-children.js';
import { type ChildObject, type RenderInput } from './render-input.js';

function cluster(spec: Partial<CacheCluster['spec']> = {}, name = 'web'): CacheCluster {
  return {
    apiVersion: 'cache.steward.dev/v1alpha1',
    kind: 'CacheCluster',
    metadata: { name, namespace: 'shop', uid: '0b5c4a1e-0000-4000-8000-000000000001' },
    spec: { version: '7.0', engine: 'redis', mode: 'Standalone', ...spec },
  };
}

function input(spec: Partial<CacheCluster['spec']> = {}, extra: Partial<RenderInput> = {}) {
  const c = cluster(spec);
  return {
    cluster: c,
    image: 'ghcr.io/steward-dev/redis:7.0.15',
    passwordSecret: passwordSecretOf(c),
    ...(spec.persistence?.enabled ? { storage: { size: '1Gi' } } : {}),
    ...extra,
  } satisfies RenderInput;
}

const replicated = { mode: 'Replicated' as const, replicas: 3 };

/** Typed access to a rendered object's fields. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const field = (obj: ChildObject, path: string): any =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown>)?.[key], obj);
const podSpec = (obj: ChildObject) => field(obj, 'spec.template.spec');
const server = (obj: ChildObject) => podSpec(obj).containers[0];

const expectedLabels = {
  'app.kubernetes.io/name': 'redis',
  'app.kubernetes.io/instance': 'web',
  'app.kubernetes.io/component': 'cache',
  'app.kubernetes.io/managed-by': 'steward',
  'cache.steward.dev/cluster': 'web',
};

function allChildren(rendered: ReturnType<typeof renderChildren>, password = 'pw'): ChildObject[] {
  const { authSecret, ...rest } = rendered;
  return [...Object.values(rest), ...(authSecret ? [authSecret(password)] : [])];
}

describe('renderChildren: names, kinds and labels', () => {
  it('renders each child under its name, in the cluster’s namespace', () => {
    const rendered = renderChildren(input(replicated));
    const identity = (obj: ChildObject) =>
      `${obj.apiVersion} ${obj.kind} ${obj.metadata.namespace}/${obj.metadata.name}`;
    expect({
      statefulSet: identity(rendered.statefulSet),
      headless: identity(rendered.headless),
      readWrite: identity(rendered.readWrite),
      readOnly: identity(rendered.readOnly),
      configMap: identity(rendered.configMap),
      podDisruptionBudget: identity(rendered.podDisruptionBudget),
      networkPolicy: identity(rendered.networkPolicy),
      authSecret: identity(rendered.authSecret!('pw')),
    }).toEqual({
      statefulSet: 'apps/v1 StatefulSet shop/web',
      headless: 'v1 Service shop/web-headless',
      readWrite: 'v1 Service shop/web-rw',
      readOnly: 'v1 Service shop/web-ro',
      configMap: 'v1 ConfigMap shop/web-config',
      podDisruptionBudget: 'policy/v1 PodDisruptionBudget shop/web',
      networkPolicy: 'networking.k8s.io/v1 NetworkPolicy shop/web',
      authSecret: 'v1 Secret shop/web-auth',
    });
  });

  it('labels every child and the pod template with the common labels, and nothing carries ownerReferences or status', () => {
    const rendered = renderChildren(input({ ...replicated, persistence: { enabled: true } }));
    for (const obj of allChildren(rendered)) {
      expect(obj.metadata.labels, obj.kind).toEqual(expectedLabels);
      expect(obj.metadata, obj.kind).not.toHaveProperty('ownerReferences');
      expect(obj, obj.kind).not.toHaveProperty('status');
    }
    expect(field(rendered.statefulSet, 'spec.template.metadata.labels')).toEqual(expectedLabels);
    expect(field(rendered.statefulSet, 'spec.volumeClaimTemplates')[0].metadata.labels).toEqual(
      expectedLabels,
    );
  });

  it('leaves the role label out of the pod template: the controller labels pods itself', () => {
    const labels = field(
      renderChildren(input(replicated)).statefulSet,
      'spec.template.metadata.labels',
    );
    expect(labels).not.toHaveProperty(Labels.role);
  });

  it('names a Valkey cluster’s children valkey and runs valkey-server and valkey-cli', () => {
    const rendered = renderChildren(
      input({ engine: 'valkey', version: '8.1' }, { image: 'ghcr.io/steward-dev/valkey:8.1.1' }),
    );
    expect(rendered.statefulSet.metadata.labels['app.kubernetes.io/name']).toBe('valkey');
    const container = server(rendered.statefulSet);
    expect(container.image).toBe('ghcr.io/steward-dev/valkey:8.1.1');
    expect(container.command[2]).toMatch(
      /^exec valkey-server \/etc\/cache\/redis\.conf --include \/tmp\/auth\.conf$/m,
    );
    expect(container.command[2]).not.toMatch(/redis-server/);
    expect(container.readinessProbe.exec.command[2]).toMatch(/ valkey-cli /);
  });
});

describe('renderChildren: selectors', () => {
  const rendered = renderChildren(input(replicated));

  it('selects the StatefulSet’s pods by the cluster label alone', () => {
    expect(field(rendered.statefulSet, 'spec.selector')).toEqual({
      matchLabels: { 'cache.steward.dev/cluster': 'web' },
    });
  });

  it('makes the headless Service the StatefulSet’s serviceName, publishing pods before they are ready', () => {
    expect(field(rendered.statefulSet, 'spec.serviceName')).toBe('web-headless');
    expect(rendered.headless.spec).toEqual({
      clusterIP: 'None',
      publishNotReadyAddresses: true,
      selector: { 'cache.steward.dev/cluster': 'web' },
      ports: [{ name: 'redis', port: 6379, targetPort: 'redis', protocol: 'TCP' }],
    });
  });

  it('points -rw at the primary and -ro at the replicas, by the role label', () => {
    expect(field(rendered.readWrite, 'spec.selector')).toEqual({
      'cache.steward.dev/cluster': 'web',
      'cache.steward.dev/role': 'primary',
    });
    expect(field(rendered.readOnly, 'spec.selector')).toEqual({
      'cache.steward.dev/cluster': 'web',
      'cache.steward.dev/role': 'replica',
    });
    for (const svc of [rendered.readWrite, rendered.readOnly]) {
      expect(field(svc, 'spec.type')).toBe('ClusterIP');
      expect(field(svc, 'spec.ports')).toEqual([
        { name: 'redis', port: 6379, targetPort: 'redis', protocol: 'TCP' },
      ]);
    }
  });
});

describe('renderChildren: the StatefulSet', () => {
  it.each([
    ['Standalone', { mode: 'Standalone' as const }, 1],
    ['Standalone by default', { mode: undefined }, 1],
    ['Replicated, 2 by default', { mode: 'Replicated' as const }, 2],
    ['Replicated with 5', { mode: 'Replicated' as const, replicas: 5 }, 5],
  ])('%s: %s replicas', (_case, spec, replicas) => {
    expect(field(renderChildren(input(spec)).statefulSet, 'spec.replicas')).toBe(replicas);
  });

  it('starts pods in parallel, leaves the roll to the controller (OnDelete), and keeps their PVCs (the controller deletes per deletionPolicy)', () => {
    const sts = renderChildren(input(replicated)).statefulSet;
    expect(field(sts, 'spec.podManagementPolicy')).toBe('Parallel');
    expect(field(sts, 'spec.updateStrategy')).toEqual({ type: 'OnDelete' });
    expect(field(sts, 'spec.persistentVolumeClaimRetentionPolicy')).toEqual({
      whenDeleted: 'Retain',
      whenScaled: 'Retain',
    });
  });

  it('runs the pods locked down: non-root 999, seccomp RuntimeDefault, no token, no service links, no capabilities, read-only root', () => {
    const sts = renderChildren(input(replicated)).statefulSet;
    const spec = podSpec(sts);
    expect(spec.terminationGracePeriodSeconds).toBe(30);
    expect(spec.enableServiceLinks).toBe(false);
    expect(spec.automountServiceAccountToken).toBe(false);
    expect(spec.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 999,
      runAsGroup: 999,
      fsGroup: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(spec.containers).toHaveLength(1);
    expect(server(sts)).toMatchObject({
      image: 'ghcr.io/steward-dev/redis:7.0.15',
      imagePullPolicy: 'IfNotPresent',
      securityContext: {
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      },
      ports: [{ name: 'redis', containerPort: 6379, protocol: 'TCP' }],
    });
    expect(spec).not.toHaveProperty('initContainers');
  });

  it('starts the server with redis.conf and the auth file it writes itself, and probes it', () => {
    const container = server(renderChildren(input(replicated)).statefulSet);
    expect(container.command.slice(0, 2)).toEqual(['/bin/sh', '-c']);
    const script: string = container.command[2];
    expect(script).toMatch(/^umask 077$/m);
    expect(script).toMatch(/requirepass "%s"\\nmasterauth "%s"\\n.*>\/tmp\/auth\.conf$/m);
    expect(script).toMatch(
      /^exec redis-server \/etc\/cache\/redis\.conf --include \/tmp\/auth\.conf$/m,
    );
    expect(script).toMatch(/refusing to start redis-server without a password/);
    expect(container.readinessProbe).toEqual({
      exec: {
        command: [
          '/bin/sh',
          '-c',
          'REDISCLI_AUTH="$CACHE_PASSWORD" redis-cli -h 127.0.0.1 -p 6379 ping | grep -q PONG',
        ],
      },
      periodSeconds: 5,
      timeoutSeconds: 5,
      failureThreshold: 3,
    });
    expect(container.livenessProbe).toEqual({
      tcpSocket: { port: 6379 },
      initialDelaySeconds: 10,
      periodSeconds: 10,
      timeoutSeconds: 5,
      failureThreshold: 6,
    });
  });

  it('passes the resources as given, and none when none were resolved', () => {
    const resources = { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } };
    expect(server(renderChildren(input({}, { resources })).statefulSet).resources).toEqual(
      resources,
    );
    expect(server(renderChildren(input()).statefulSet)).not.toHaveProperty('resources');
  });

  it('mounts the config read-only at /etc/cache, a 16Mi memory /tmp and /data', () => {
    const sts = renderChildren(input()).statefulSet;
    expect(server(sts).volumeMounts).toEqual([
      { name: 'config', mountPath: '/etc/cache', readOnly: true },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'data', mountPath: '/data' },
    ]);
    expect(podSpec(sts).volumes.slice(0, 2)).toEqual([
      { name: 'config', configMap: { name: 'web-config' } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    ]);
  });

  it('annotates the pod template with the hash of the ConfigMap’s config, so a config change rolls the pods', () => {
    const hashOf = (i: RenderInput) => {
      const rendered = renderChildren(i);
      const hash = field(rendered.statefulSet, 'spec.template.metadata.annotations')[
        'cache.steward.dev/config-hash'
      ];
      expect(hash).toBe(configHash(field(rendered.configMap, 'data')['redis.conf']));
      return hash;
    };
    const base = hashOf(input(replicated));
    expect(hashOf(input(replicated))).toBe(base);
    expect(hashOf(input({ ...replicated, evictionPolicy: 'allkeys-lru' }))).not.toBe(base);
    expect(hashOf(input(replicated, { maxMemoryBytes: 1 << 20 }))).not.toBe(base);
    expect(hashOf(input(replicated, { resources: { limits: { memory: '1Gi' } } }))).not.toBe(base);
    // what is not in the config does not roll the pods through the annotation
    expect(hashOf(input({ ...replicated, replicas: 4 }))).toBe(base);
  });

  it('the ConfigMap holds redis.conf, fenced only in Replicated', () => {
    const conf = (i: RenderInput) => field(renderChildren(i).configMap, 'data')['redis.conf'];
    expect(conf(input(replicated))).toMatch(/^replicaof 127\.0\.0\.1 1$/m);
    expect(conf(input())).not.toMatch(/^replicaof/m);
  });
});

describe('renderChildren: persistence', () => {
  it('without persistence: /data is an emptyDir and there is no volumeClaimTemplate', () => {
    const sts = renderChildren(input({ persistence: { enabled: false } })).statefulSet;
    expect(podSpec(sts).volumes).toContainEqual({ name: 'data', emptyDir: {} });
    expect(field(sts, 'spec')).not.toHaveProperty('volumeClaimTemplates');
  });

  it('with persistence: /data is the `data` PVC (ReadWriteOnce, the size and class resolved), no emptyDir', () => {
    const sts = renderChildren(
      input(
        { persistence: { enabled: true, size: '2Gi', storageClassName: 'fast' } },
        { storage: { size: '2Gi', storageClassName: 'fast' } },
      ),
    ).statefulSet;
    expect(podSpec(sts).volumes.map((v: { name: string }) => v.name)).toEqual(['config', 'tmp']);
    expect(field(sts, 'spec.volumeClaimTemplates')).toEqual([
      {
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name: 'data', labels: expectedLabels },
        spec: {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '2Gi' } },
          storageClassName: 'fast',
        },
      },
    ]);
  });

  it('keeps the existing template’s size (templates are immutable; PVCs grow separately), and no class when none is given', () => {
    const sts = renderChildren(
      input(
        { persistence: { enabled: true, size: '5Gi' } },
        { storage: { size: '5Gi' }, existingTemplateStorage: '1Gi' },
      ),
    ).statefulSet;
    const template = field(sts, 'spec.volumeClaimTemplates')[0];
    expect(template.spec.resources.requests.storage).toBe('1Gi');
    expect(template.spec).not.toHaveProperty('storageClassName');
  });

  it.each([
    ['persistence on without storage', { persistence: { enabled: true } }, { storage: undefined }],
    ['storage without persistence', {}, { storage: { size: '1Gi' } }],
  ])('refuses %s (a resolution error of the caller)', (_case, spec, extra) => {
    expect(() => renderChildren(input(spec, extra))).toThrow(TypeError);
  });
});

describe('renderChildren: the password', () => {
  const password = 'S3cr3t "quoted" \\ pass\nword-7f1d0c';
  const base64 = Buffer.from(password).toString('base64');

  it('appears in no rendered object but the generated Secret, and the pods read it through a secretKeyRef', () => {
    const rendered = renderChildren(input({ ...replicated, persistence: { enabled: true } }));
    const { authSecret, ...rest } = rendered;
    for (const obj of Object.values(rest)) {
      const text = JSON.stringify(obj);
      expect(text, obj.kind).not.toContain(password);
      expect(text, obj.kind).not.toContain(base64);
    }
    expect(server(rendered.statefulSet).env).toEqual([
      {
        name: 'CACHE_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'web-auth', key: 'password' } },
      },
    ]);
    const secret = authSecret!(password);
    expect(secret).toMatchObject({ type: 'Opaque', data: { password: base64 } });
    expect(JSON.stringify(secret)).not.toContain(password);
  });

  it('the command line, probes and config hold only the variable’s name', () => {
    const container = server(renderChildren(input(replicated)).statefulSet);
    for (const text of [...container.command, ...container.readinessProbe.exec.command]) {
      expect(text).not.toMatch(/requirepass\s+[^"%\s]/);
      expect(text).not.toMatch(/ -a /);
    }
    expect(container.command[2]).toMatch(/unset CACHE_PASSWORD/);
  });

  it('renders no Secret for a cluster whose password is the user’s, and reads that Secret', () => {
    const spec = { auth: { existingSecret: { name: 'mine', key: 'redis-password' } } };
    const rendered = renderChildren(input(spec));
    expect(rendered.authSecret).toBeUndefined();
    expect(server(rendered.statefulSet).env[0].valueFrom.secretKeyRef).toEqual({
      name: 'mine',
      key: 'redis-password',
    });
    expect(passwordSecretOf(cluster({ auth: { existingSecret: { name: 'mine' } } }))).toEqual({
      name: 'mine',
      key: 'password',
    });
  });

  it('refuses a generated password read from another Secret (a resolution error of the caller)', () => {
    expect(() =>
      renderChildren(input({}, { passwordSecret: { name: 'other', key: 'password' } })),
    ).toThrow(TypeError);
  });

  it('refuses to render a Secret with an empty generated password', () => {
    expect(() => renderChildren(input()).authSecret!('')).toThrow(RangeError);
  });
});

describe('renderChildren: the NetworkPolicy', () => {
  const port = [{ protocol: 'TCP', port: 6379 }];
  const ownPods = { podSelector: { matchLabels: { 'cache.steward.dev/cluster': 'web' } } };
  const controller = {
    namespace: 'steward-system',
    podLabels: { 'app.kubernetes.io/name': 'cache-cluster-controller' },
  };
  const controllerPeer = {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'steward-system' } },
    podSelector: { matchLabels: { 'app.kubernetes.io/name': 'cache-cluster-controller' } },
  };

  it('selects the cluster’s pods, for ingress only', () => {
    const policy = renderChildren(input()).networkPolicy;
    expect(field(policy, 'spec.podSelector')).toEqual(ownPods.podSelector);
    expect(field(policy, 'spec.policyTypes')).toEqual(['Ingress']);
  });

  it.each([
    ['only the cluster’s own pods, without controller or clients', {}, {}, [ownPods]],
    ['the controller’s pods in its namespace', {}, { controller }, [ownPods, controllerPeer]],
    [
      'clients of this namespace by pod labels',
      { clients: { podSelector: { app: 'shop' } } },
      { controller },
      [ownPods, controllerPeer, { podSelector: { matchLabels: { app: 'shop' } } }],
    ],
    [
      'clients of other namespaces by namespace and pod labels',
      { clients: { podSelector: { app: 'shop' }, namespaceSelector: { team: 'a' } } },
      {},
      [
        ownPods,
        {
          namespaceSelector: { matchLabels: { team: 'a' } },
          podSelector: { matchLabels: { app: 'shop' } },
        },
      ],
    ],
    [
      'every pod of the selected namespaces when no pod labels are given',
      { clients: { namespaceSelector: { team: 'a' } } },
      {},
      [ownPods, { namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: {} }],
    ],
  ])('admits on 6379 %s, and nothing else', (_case, spec, extra, from) => {
    const policy = renderChildren(input(spec, extra)).networkPolicy;
    expect(field(policy, 'spec.ingress')).toEqual([{ from, ports: port }]);
  });
});

describe('renderChildren: the PodDisruptionBudgets', () => {
  const selector = { 'cache.steward.dev/cluster': 'web' };
  const others = {
    matchLabels: selector,
    matchExpressions: [{ key: 'steward.dev/eviction-protected', operator: 'DoesNotExist' }],
  };

  it('renders, Replicated with 3 pods, the primary’s budget (never evicted while it carries the label) and one over the others', () => {
    const rendered = renderChildren(input(replicated));
    expect(rendered.primaryDisruptionBudget?.metadata.name).toBe('web-primary');
    expect(rendered.primaryDisruptionBudget?.spec).toEqual({
      maxUnavailable: 0,
      selector: { matchLabels: { ...selector, 'steward.dev/eviction-protected': 'true' } },
    });
    expect(rendered.podDisruptionBudget.metadata.name).toBe('web');
    expect(rendered.podDisruptionBudget.spec).toEqual({
      minAvailable: 1,
      selector: others,
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    });
  });

  it('lets the one replica of a 2-pod cluster go (minAvailable 0 over the others)', () => {
    const rendered = renderChildren(input({ mode: 'Replicated', replicas: 2 }));
    expect(field(rendered.podDisruptionBudget, 'spec.minAvailable')).toBe(0);
    expect(rendered.primaryDisruptionBudget).toBeDefined();
  });

  it.each([
    ['Standalone', {}],
    ['Replicated with 1 pod', { mode: 'Replicated' as const, replicas: 1 }],
  ])('renders for %s one budget over every pod, which lets it be drained', (_case, spec) => {
    const rendered = renderChildren(input(spec));
    expect(rendered.primaryDisruptionBudget).toBeUndefined();
    expect(rendered.podDisruptionBudget.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: selector },
    });
  });
});
