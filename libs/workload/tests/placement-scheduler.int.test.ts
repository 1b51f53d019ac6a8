// Where the real kube-scheduler puts the pods renderWorkloadStatefulSet places: a control plane, the
// scheduler, and Node objects in zones (no kubelet: a pod is placed once it is bound to a node).
// The node tier's three-node proof runs the pods; this one checks the rules themselves — the
// default spread, Required over nodes and zones, minDomains in a one-zone pool — and that a pod the
// spread holds back reads as Unschedulable with what to do.
import { type WorkloadScheduling } from '@steward/crd';
import { KubeClient, Namespaces, Nodes, Pods, type KubeObject } from '@steward/kube';
import {
  eventually,
  freePort,
  ManagedProcess,
  repoRoot,
  runPrintEnv,
  startControlPlane,
  type ControlPlane,
} from '@steward/testing';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  podFailure,
  podSecurityContext,
  renderWorkloadStatefulSet,
  TmpVolume,
  type PodLike,
} from '../src/index.js';

const namespace = 'placed';
const zoneKey = 'topology.kubernetes.io/zone';
/** Four nodes in zones — two in zone-a, one each in zone-b and zone-c — and one in none. */
const nodes: Record<string, string | undefined> = {
  'node-a1': 'zone-a',
  'node-a2': 'zone-a',
  'node-b1': 'zone-b',
  'node-c1': 'zone-c',
  'node-x': undefined,
};

/**
 * kube-scheduler as tools/node-tier/build.sh builds it (STEWARD_KUBE_SCHEDULER_BIN wins; else the
 * script builds or finds it — a runtime lib's tests may not use @steward/testing-node-tier).
 */
async function kubeScheduler(): Promise<string> {
  const given = process.env['STEWARD_KUBE_SCHEDULER_BIN'];
  if (given) return given;
  const script = join(repoRoot(), 'tools', 'node-tier', 'build.sh');
  const built = (await runPrintEnv(script))['STEWARD_KUBE_SCHEDULER_BIN'];
  if (!built) throw new Error(`steward: ${script} --print-env named no STEWARD_KUBE_SCHEDULER_BIN`);
  return built;
}

let plane: ControlPlane;
let client: KubeClient;
let scheduler: ManagedProcess;

interface PodObject extends KubeObject, PodLike {
  spec: { nodeName?: string };
}

beforeAll(async () => {
  const schedulerBinary = await kubeScheduler();
  plane = await startControlPlane();
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'placement-scheduler-test' });
  scheduler = ManagedProcess.start(
    'kube-scheduler',
    schedulerBinary,
    [
      `--kubeconfig=${plane.kubeconfigPath}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
    ],
    join(plane.dataDir, 'kube-scheduler.log'),
  );
  await client.create(Namespaces, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace },
  });
  for (const [name, zone] of Object.entries(nodes)) {
    await client.create(Nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        labels: {
          'kubernetes.io/hostname': name,
          ...(zone ? { [zoneKey]: zone } : { pool: 'unzoned' }),
        },
      },
    });
    // Ready, with room, and without the not-ready taint admission puts on a new node (no kubelet
    // and no node lifecycle controller here will ever lift it).
    await client.mergePatch(Nodes, name, undefined, { spec: { taints: [] } });
    const capacity = { cpu: '4', memory: '8Gi', pods: '110' };
    await client.mergePatch(
      Nodes,
      name,
      undefined,
      {
        status: {
          capacity,
          allocatable: capacity,
          conditions: [
            {
              type: 'Ready',
              status: 'True',
              reason: 'KubeletReady',
              message: 'test node',
              lastHeartbeatTime: new Date().toISOString(),
              lastTransitionTime: new Date().toISOString(),
            },
          ],
        },
      },
      { subresource: 'status' },
    );
  }
}, 240_000);
afterAll(async () => {
  await scheduler?.stop();
  await client?.close();
  await plane?.stop();
});

/** `replicas` pods as the StatefulSet `name` would create them (the template as rendered). */
async function createPods(name: string, replicas: number, scheduling?: WorkloadScheduling) {
  const selector = { 'steward.dev/cluster': name };
  const set = renderWorkloadStatefulSet({
    meta: { namespace, labels: { ...selector } },
    name,
    serviceName: name,
    selector,
    replicas,
    updateStrategy: 'OnDelete',
    whenScaled: 'Delete',
    podAnnotations: {},
    securityContext: podSecurityContext(999, 999),
    containers: [{ name: 'server', image: 'ghcr.io/steward-dev/redis:7.0.15' }],
    volumes: [TmpVolume],
    ...(scheduling ? { scheduling } : {}),
  }) as unknown as {
    spec: { template: { metadata: { labels: Record<string, string> }; spec: object } };
  };
  for (let i = 0; i < replicas; i++)
    await client.create(Pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-${i}`, namespace, labels: set.spec.template.metadata.labels },
      spec: set.spec.template.spec,
    } as KubeObject);
}

/** The set's pods once the scheduler has decided on each: bound, or PodScheduled=False. */
async function decided(name: string, replicas: number): Promise<PodObject[]> {
  return eventually(
    async () => {
      const pods = await Promise.all(
        Array.from({ length: replicas }, (_, i) =>
          client.get<PodObject>(Pods, `${name}-${i}`, namespace),
        ),
      );
      const settled = pods.every(
        (p) =>
          p.spec.nodeName ||
          p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.status === 'False'),
      );
      return settled ? pods : undefined;
    },
    { timeoutMs: 60_000, description: `the scheduler's decision on ${name}'s pods` },
  ).catch((error: unknown) => {
    throw new Error(`${String(error)}\nkube-scheduler log:\n${scheduler.logTail()}`);
  });
}

const placed = (pods: PodObject[]) =>
  pods.map((p) => p.spec.nodeName).filter((n): n is string => !!n);
const zonesOf = (names: string[]) => names.map((n) => nodes[n]);
const count = (values: (string | undefined)[]) =>
  values.reduce<Record<string, number>>((acc, v) => ({ ...acc, [v!]: (acc[v!] ?? 0) + 1 }), {});

describe('the real scheduler places the rendered pods', () => {
  it('by default, three pods go to three nodes', async () => {
    await createPods('preferred', 3);
    const on = placed(await decided('preferred', 3));
    expect(on).toHaveLength(3);
    expect(new Set(on).size).toBe(3);
  });

  it('Required over nodes and zones: four pods on four nodes, no zone two ahead; a fifth waits, Unschedulable with what to do', async () => {
    await createPods('strict', 5, { spread: { nodes: 'Required', zones: 'Required' } });
    const pods = await decided('strict', 5);
    const on = placed(pods);
    expect(on).toHaveLength(4);
    expect(new Set(on).size).toBe(4);
    expect(count(zonesOf(on))).toEqual({ 'zone-a': 2, 'zone-b': 1, 'zone-c': 1 });
    const waiting = pods.find((p) => !p.spec.nodeName)!;
    const failure = podFailure(waiting);
    expect(failure?.reason).toBe('Unschedulable');
    expect(failure?.message).toMatch(/anti-affinity/);
    expect(failure?.message).toContain(
      'add nodes or zones, or set spec.scheduling.spread to Preferred',
    );
  });

  it('Required over zones in a one-zone pool (nodeSelector): the first pod runs, the second waits (minDomains 2)', async () => {
    await createPods('one-zone', 2, {
      spread: { zones: 'Required' },
      nodeSelector: { [zoneKey]: 'zone-a' },
    });
    const pods = await decided('one-zone', 2);
    expect(zonesOf(placed(pods))).toEqual(['zone-a']);
    const failure = podFailure(pods.find((p) => !p.spec.nodeName)!);
    expect(failure?.reason).toBe('Unschedulable');
    expect(failure?.message).toMatch(/topology spread constraints/);
  });

  it('Required over zones on a node without the zone label: no pod, and the message says why', async () => {
    await createPods('unzoned', 1, {
      spread: { zones: 'Required' },
      nodeSelector: { pool: 'unzoned' },
    });
    const failure = podFailure((await decided('unzoned', 1))[0]!);
    expect(failure?.reason).toBe('Unschedulable');
    expect(failure?.message).toContain(
      'a node without the spread’s topology label, e.g. topology.kubernetes.io/zone, is in no zone',
    );
  });

  it('Preferred in the same one-zone pool places both pods (a preference, never a wait)', async () => {
    await createPods('one-zone-preferred', 2, { nodeSelector: { [zoneKey]: 'zone-a' } });
    const on = placed(await decided('one-zone-preferred', 2));
    expect(zonesOf(on)).toEqual(['zone-a', 'zone-a']);
    expect(new Set(on).size).toBe(2);
  });
});
