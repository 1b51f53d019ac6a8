import {
  ApiException,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  RbacAuthorizationV1Api,
  type V1Pod,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { eventually } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireNodeTier, localImages, type LocalImage, type NodeTier } from '../src/index.js';

const versions = readFileSync(
  join(import.meta.dirname, '../../../tools/control-plane/versions.env'),
  'utf8',
);
const k8sVersion = /^K8S_VERSION=(.+)$/m.exec(versions)?.[1];

/** Sends a RESP `PING` over plain TCP and returns the first reply line. */
function redisPing(host: string, port = 6379): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: 5_000 }, () => socket.write('PING\r\n'));
    socket.setEncoding('utf8');
    socket.once('data', (data: string) => {
      resolve(data.split('\r\n')[0]!);
      socket.destroy();
    });
    socket.once('timeout', () => socket.destroy(new Error(`${host}:${port} timed out`)));
    socket.once('error', reject);
  });
}

async function rejectionCode(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (error) {
    if (error instanceof ApiException) return error.code;
    throw error;
  }
  throw new Error('expected the API server to refuse the request, but it was accepted');
}

describe('the node tier runs real pods', () => {
  let tier: NodeTier;
  let core: CoreV1Api;
  let ns: string;
  let images: Record<string, LocalImage>;

  const podPhase = async (name: string): Promise<V1Pod> =>
    core.readNamespacedPod({ name, namespace: ns });
  const readyPod = (name: string): Promise<V1Pod> =>
    eventually(
      async () => {
        const pod = await podPhase(name);
        return (
          pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') && pod
        );
      },
      { timeoutMs: 120_000, description: `pod ${name} Ready` },
    );
  const finishedLogs = async (name: string): Promise<string> => {
    await eventually(async () => (await podPhase(name)).status?.phase === 'Succeeded', {
      timeoutMs: 120_000,
      description: `pod ${name} Succeeded`,
    });
    return core.readNamespacedPodLog({ name, namespace: ns });
  };
  const nodePod = (name: string, script: string, extra: Partial<V1Pod['spec']> = {}) =>
    core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          securityContext: { runAsNonRoot: true, runAsUser: 65532, runAsGroup: 65532 },
          containers: [
            {
              name: 'main',
              image: images['node-24']!.ref,
              imagePullPolicy: 'Never',
              command: ['node', '-e', script],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              ...(extra.containers?.[0] ?? {}),
            },
          ],
          ...(extra.volumes ? { volumes: extra.volumes } : {}),
        },
      },
    });

  beforeAll(async () => {
    tier = await acquireNodeTier();
    core = tier.kubeConfig.makeApiClient(CoreV1Api);
    images = await localImages('redis-7.0', 'node-24');
    for (const image of Object.values(images)) await tier.importImage(image);
    ns = await tier.createNamespace('node-tier');
  });
  afterAll(async () => {
    await tier?.release();
  });

  it(`has one Ready node running kubelet ${k8sVersion}, without taints`, async () => {
    const node = await core.readNode({ name: tier.nodeName });
    expect(node.status?.nodeInfo?.kubeletVersion).toBe(k8sVersion);
    expect(node.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');
    expect(node.spec?.taints ?? []).toEqual([]);
    expect(node.status?.addresses).toContainEqual({
      type: 'InternalIP',
      address: tier.hostAddress,
    });
  });

  it('runs a pod from a locally built image that answers at its pod IP, and through a ClusterIP', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'redis', labels: { app: 'redis' } },
        spec: {
          securityContext: { runAsNonRoot: true, runAsUser: 999, runAsGroup: 999 },
          containers: [
            {
              name: 'redis',
              image: images['redis-7.0']!.ref,
              imagePullPolicy: 'Never',
              command: [
                'redis-server',
                '--bind',
                '0.0.0.0',
                '--protected-mode',
                'no',
                '--save',
                '',
              ],
              ports: [{ containerPort: 6379 }],
              readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    const pod = await readyPod('redis');
    expect(await redisPing(pod.status!.podIP!)).toBe('+PONG');

    const service = await core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'redis' },
        spec: { selector: { app: 'redis' }, ports: [{ port: 6379, targetPort: 6379 }] },
      },
    });
    const clusterIp = service.spec!.clusterIP!;
    expect(
      await eventually(() => redisPing(clusterIp).catch(() => false), {
        timeoutMs: 60_000,
        description: `redis through ClusterIP ${clusterIp}`,
      }),
    ).toBe('+PONG');
  });

  it('gives pods a bound ServiceAccount token that reaches the API server through the kubernetes Service', async () => {
    const rbac = tier.kubeConfig.makeApiClient(RbacAuthorizationV1Api);
    await rbac.createNamespacedRole({
      namespace: ns,
      body: {
        metadata: { name: 'pod-reader' },
        rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['list'] }],
      },
    });
    await rbac.createNamespacedRoleBinding({
      namespace: ns,
      body: {
        metadata: { name: 'pod-reader' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [{ kind: 'ServiceAccount', name: 'default', namespace: ns }],
      },
    });
    const script = `
      const fs = require('fs'), https = require('https');
      const dir = '/var/run/secrets/kubernetes.io/serviceaccount';
      const req = https.request({
        host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT,
        path: '/api/v1/namespaces/' + fs.readFileSync(dir + '/namespace', 'utf8') + '/pods',
        ca: fs.readFileSync(dir + '/ca.crt'),
        headers: { authorization: 'Bearer ' + fs.readFileSync(dir + '/token', 'utf8') },
      }, (res) => { let b = ''; res.on('data', (d) => b += d); res.on('end', () => {
        console.log(JSON.stringify({ host: process.env.KUBERNETES_SERVICE_HOST, status: res.statusCode,
          pods: JSON.parse(b).items?.length, routes: fs.readFileSync('/proc/net/route', 'utf8') }));
      }); });
      req.on('error', (e) => { console.log(JSON.stringify({ error: e.message })); process.exit(1); });
      req.end();`;
    await nodePod('api-client', script);
    const result = JSON.parse((await finishedLogs('api-client')).trim()) as {
      host: string;
      status: number;
      pods: number;
      routes: string;
    };
    expect(result).toMatchObject({ host: tier.layout.apiServiceIp, status: 200 });
    expect(result.pods).toBeGreaterThanOrEqual(1);
    // /proc/net/route: a default route has destination 00000000; pods have none (no way off the machine)
    const destinations = result.routes
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[1]);
    expect(destinations.length).toBeGreaterThan(0);
    expect(destinations).not.toContain('00000000');
    expect(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim()).toBe('0');
  });

  it('binds a claim to a dynamic local volume, and a claim re-created after deletion gets a new, empty one', async () => {
    const claim = async (): Promise<void> => {
      await core.createNamespacedPersistentVolumeClaim({
        namespace: ns,
        body: {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '64Mi' } } },
        },
      });
    };
    const withVolume = {
      containers: [{ name: 'main', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
      volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
    } as Partial<V1Pod['spec']>;
    const listAndWrite = `const fs = require('fs'); console.log(JSON.stringify(fs.readdirSync('/data')));
      fs.writeFileSync('/data/written', 'x');`;

    await claim();
    await nodePod('writer', listAndWrite, withVolume);
    expect(JSON.parse(await finishedLogs('writer'))).toEqual([]);
    const first = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns });
    expect(first.status?.phase).toBe('Bound');
    expect(first.spec?.storageClassName).toBe(tier.storageClass);
    await nodePod('reader', listAndWrite, withVolume);
    expect(JSON.parse(await finishedLogs('reader'))).toEqual(['written']);

    const firstVolume = first.spec!.volumeName!;
    for (const name of ['writer', 'reader'])
      await core.deleteNamespacedPod({ name, namespace: ns, gracePeriodSeconds: 0 });
    await core.deleteNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns });
    await eventually(
      () =>
        core.readPersistentVolume({ name: firstVolume }).then(
          () => false,
          (e: unknown) => e instanceof ApiException && e.code === 404,
        ),
      { timeoutMs: 120_000, description: `volume ${firstVolume} deleted with its claim` },
    );

    await claim();
    await nodePod('again', listAndWrite, withVolume);
    expect(JSON.parse(await finishedLogs('again'))).toEqual([]);
    const second = await core.readNamespacedPersistentVolumeClaim({ name: 'data', namespace: ns });
    expect(second.spec?.volumeName).not.toBe(firstVolume);
  });

  it("limits the node's own credentials with the Node authorizer and NodeRestriction", async () => {
    const nodeConfig = new KubeConfig();
    nodeConfig.loadFromFile(tier.nodeKubeconfigPath);
    const asNode = nodeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedSecret({
      namespace: ns,
      body: { metadata: { name: 'unrelated' }, stringData: { password: 'not for the node' } },
    });
    // the Node authorizer: a secret no pod on this node uses is not the node's to read
    expect(
      await rejectionCode(asNode.readNamespacedSecret({ name: 'unrelated', namespace: ns })),
    ).toBe(403);
    // NodeRestriction: a node may not label itself into node-restriction.kubernetes.io/
    expect(
      await rejectionCode(
        KubernetesObjectApi.makeApiClient(nodeConfig).patch(
          {
            apiVersion: 'v1',
            kind: 'Node',
            metadata: {
              name: tier.nodeName,
              labels: { 'node-restriction.kubernetes.io/forged': 'true' },
            },
          },
          undefined,
          undefined,
          undefined,
          undefined,
          PatchStrategy.MergePatch,
        ),
      ),
    ).toBe(403);
    // while its own Node object is readable to it
    expect((await asNode.readNode({ name: tier.nodeName })).metadata?.name).toBe(tier.nodeName);
  });
});
