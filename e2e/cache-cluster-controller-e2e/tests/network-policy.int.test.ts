/**
 * CacheCluster under an enforced NetworkPolicy: the multi-node tier with kube-network-policies on
 * every node, the cache-cluster-controller as it ships (its image, its chart `helm install`ed,
 * its own NetworkPolicy on), a Replicated 3-pod cache whose `spec.clients` admits the pods
 * labelled `app: orders` of its namespace:
 *
 * - the controller still reaches its pods (INFO, REPLICAOF) and the replicas still sync from the
 *   primary across nodes: Ready, 3 of 3, two linked replicas;
 * - a pod inside `spec.clients` gets PONG through the read-write Service; one outside it — in the
 *   same namespace without the label, or with the label in another namespace — cannot connect.
 */
import { CoreV1Api } from '@kubernetes/client-node';
import { findCondition } from '@steward/conditions';
import { CacheCluster, type CacheClusterSpec } from '@steward/cache-cluster-api';
import { KubeClient, Secrets, Services, type KubeObject } from '@steward/kube';
import { installCRDs, repoRoot } from '@steward/testing';
import { installControllerChart, type InstalledControllerChart } from '@steward/testing-charts';
import {
  acquireNodeTier,
  appImage,
  localImages,
  type LocalImage,
  type MultiNodeTier,
} from '@steward/testing-node-tier';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const app = 'cache-cluster-controller';
const Kind = CacheCluster.resourceType;
const name = 'guarded';

let tier: MultiNodeTier;
let admin: KubeClient;
let core: CoreV1Api;
let chart: InstalledControllerChart | undefined;
let redis: LocalImage;
let ns = '';
let otherNs = '';

beforeAll(async () => {
  tier = await acquireNodeTier({ nodes: 3, networkPolicy: true });
  const image = await appImage(app);
  await tier.importImage(image);
  const images = await localImages('redis-7.0');
  for (const i of Object.values(images)) await tier.importImage(i);
  redis = Object.values(images)[0]!;
  admin = new KubeClient(tier.kubeConfig, { fieldManager: 'e2e-admin' });
  core = tier.kubeConfig.makeApiClient(CoreV1Api);
  ns = await tier.createNamespace('cc-policy');
  otherNs = await tier.createNamespace('cc-policy-other');
  await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts', app, 'crds'));
  chart = await installControllerChart(tier, {
    chart: app,
    image,
    namespace: await tier.createNamespace('cc-policy-sys'),
    values: { watchNamespaces: [ns], networkPolicy: { enabled: true } },
  });
}, 900_000);

afterAll(async () => {
  // Deleted while the controller runs (its finalizer), then the chart.
  if (admin) {
    await admin.delete(Kind, name, ns).catch(() => undefined);
    await chart
      ?.until(async () => (await admin.list(Kind, { namespace: ns })).items.length === 0, {
        description: `${name} gone`,
        timeoutMs: 60_000,
      })
      .catch(() => undefined);
  }
  await chart?.uninstall().catch(() => undefined);
  await admin?.close();
  await tier?.release();
}, 300_000);

const spec: CacheClusterSpec = {
  engine: 'redis',
  version: '7.0',
  mode: 'Replicated',
  replicas: 3,
  failover: { after: '5s' },
  resources: { requests: { cpu: '20m', memory: '64Mi' }, limits: { memory: '256Mi' } },
  clients: { podSelector: { app: 'orders' } },
};

const read = () => admin.get<CacheCluster>(Kind, name, ns);

/**
 * A pod that sends `command` to a Service of the cluster (`redis-cli`, 5 s at most, the password
 * from a Secret in its namespace) and exits with its answer: 0 the reply contains `expected`, 2
 * no connection within the time (the packets dropped), 1 anything else. Resolves to the exit code
 * and the reply's lines that matter.
 */
async function probeFrom(
  namespace: string,
  pod: string,
  labels: Record<string, string>,
  secret: string,
  ask: { service: string; command: string; expected: string } = {
    service: `${name}-rw`,
    command: 'PING',
    expected: 'PONG',
  },
): Promise<{ code: number; output: string }> {
  const svc = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    ask.service,
    ns,
  );
  const script = [
    `out=$(timeout 5 redis-cli -h ${svc.spec.clusterIP} -p 6379 --no-auth-warning ${ask.command} 2>&1)`,
    'rc=$?',
    `line=$(echo "$out" | tr -d '\\r' | grep -x '${ask.expected}')`,
    '[ -n "$line" ] && { echo "$line"; exit 0; }',
    'echo "rc=$rc $out"',
    '[ $rc -eq 124 ] && exit 2',
    'exit 1',
  ].join('\n');
  await core.createNamespacedPod({
    namespace,
    body: {
      metadata: { name: pod, labels },
      spec: {
        restartPolicy: 'Never',
        automountServiceAccountToken: false,
        securityContext: {
          runAsNonRoot: true,
          runAsUser: 999,
          seccompProfile: { type: 'RuntimeDefault' },
        },
        containers: [
          {
            name: 'probe',
            image: redis.ref,
            imagePullPolicy: 'IfNotPresent',
            command: ['/bin/sh', '-c', script],
            env: [
              {
                name: 'REDISCLI_AUTH',
                valueFrom: { secretKeyRef: { name: secret, key: 'password' } },
              },
            ],
            securityContext: {
              allowPrivilegeEscalation: false,
              capabilities: { drop: ['ALL'] },
            },
          },
        ],
      },
    },
  });
  const code = await chart!.until(
    async () => {
      const p = await core.readNamespacedPod({ namespace, name: pod });
      const done = p.status?.containerStatuses?.[0]?.state?.terminated;
      return done ? done.exitCode : undefined;
    },
    { description: `${namespace}/${pod} answered`, timeoutMs: 120_000 },
  );
  const output = await core.readNamespacedPodLog({ namespace, name: pod });
  return { code, output: String(output).trim() };
}

describe('CacheCluster under an enforced NetworkPolicy (three nodes, kube-network-policies)', () => {
  it('works as before: the controller reaches its pods, the replicas sync from the primary across nodes', async () => {
    await admin.create<CacheCluster>(Kind, {
      apiVersion: CacheCluster.apiVersion,
      kind: 'CacheCluster',
      metadata: { name, namespace: ns },
      spec,
    } as CacheCluster);
    const ready = await chart!.until(
      async () => {
        const c = await read();
        return findCondition(c.status?.conditions, 'Ready')?.status === 'True' &&
          c.status?.readyReplicas === 3
          ? c
          : undefined;
      },
      { description: `${name} Ready with 3 pods ready in their roles`, timeoutMs: 420_000 },
    );
    expect(ready.status?.primary).toBeDefined();
    expect(findCondition(ready.status?.conditions, 'Degraded')?.status).not.toBe('True');
  }, 900_000);

  it('admits a pod of spec.clients, and refuses one outside it (same namespace without the label, or the label in another namespace)', async () => {
    // The password in the other namespace too: only the network may stand in the way there.
    const auth = await admin.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      `${name}-auth`,
      ns,
    );
    await admin.create(Secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'cache-password', namespace: otherNs },
      data: { password: auth.data['password']! },
    } as KubeObject);
    const inside = await probeFrom(ns, 'orders-app', { app: 'orders' }, `${name}-auth`);
    expect(inside).toEqual({ code: 0, output: 'PONG' });
    // Through the read-only Service: a replica, its link to the primary (on another node) up.
    const replica = await probeFrom(ns, 'orders-reader', { app: 'orders' }, `${name}-auth`, {
      service: `${name}-ro`,
      command: 'INFO replication',
      expected: 'master_link_status:up',
    });
    expect(replica).toEqual({ code: 0, output: 'master_link_status:up' });
    const stranger = await probeFrom(ns, 'stranger', { app: 'stranger' }, `${name}-auth`);
    expect(stranger.code, stranger.output).toBe(2);
    const elsewhere = await probeFrom(
      otherNs,
      'orders-elsewhere',
      { app: 'orders' },
      'cache-password',
    );
    expect(elsewhere.code, elsewhere.output).toBe(2);
  }, 600_000);
});
