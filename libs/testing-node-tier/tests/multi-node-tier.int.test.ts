/**
 * The multi-node tier, started once for this file: three real nodes in three zones, pod traffic
 * across them, ClusterIPs from pods and from the host, the node faults (stop/start, partition/heal,
 * drain with a PodDisruptionBudget), NetworkPolicy enforced by kube-network-policies, and nothing
 * left on the host once it stops. The pod network never reaches past this machine.
 */
import { CoreV1Api, type V1Pod, type V1Volume, type V1VolumeMount } from '@kubernetes/client-node';
import { eventually, repoRoot } from '@steward/testing';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acquireNodeTier,
  leftovers,
  localImages,
  multiNodeLeftovers,
  multiNodeTierLayout,
  nodeTierLayout,
  stopMultiNodeTier,
  type LocalImage,
  type MultiNodeTier,
} from '../src/index.js';
import { inCgroup } from '../src/cgroups.js';

const execFileAsync = promisify(execFile);
const layout = multiNodeTierLayout();

/** RESP `PING` over plain TCP (optionally from a test client's address); the first reply line. */
function redisPing(host: string, o: { localAddress?: string; timeoutMs?: number } = {}) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(
      {
        host,
        port: 6379,
        timeout: o.timeoutMs ?? 3_000,
        ...(o.localAddress ? { localAddress: o.localAddress } : {}),
      },
      () => socket.write('PING\r\n'),
    );
    socket.setEncoding('utf8');
    socket.once('data', (data: string) => {
      resolve(data.split('\r\n')[0]!);
      socket.destroy();
    });
    socket.once('timeout', () => socket.destroy(new Error(`${host}:6379 timed out`)));
    socket.once('error', reject);
  });
}
const unreachable = async (host: string, o: { localAddress?: string } = {}): Promise<boolean> =>
  redisPing(host, { ...o, timeoutMs: 2_000 }).then(
    () => false,
    () => true,
  );

const ready = (pod: V1Pod): boolean =>
  !!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');

describe('the multi-node tier', () => {
  let tier: MultiNodeTier;
  let core: CoreV1Api;
  let ns: string;
  let redis: LocalImage;
  const servers = new Map<string, V1Pod>(); // node name -> its redis pod
  const [a, b, c] = layout.nodes;

  const serverPod = (name: string, nodeName: string, labels: Record<string, string> = {}) =>
    core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name, labels: { app: name, ...labels } },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': nodeName },
          containers: [
            {
              name: 'redis',
              image: redis.ref,
              imagePullPolicy: 'Never',
              command: [
                'redis-server',
                '--save',
                '',
                '--appendonly',
                'no',
                '--protected-mode',
                'no',
              ],
              readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
  const readyPod = (name: string, namespace = ns): Promise<V1Pod> =>
    eventually(
      async () => {
        const pod = await core.readNamespacedPod({ name, namespace });
        return ready(pod) && pod;
      },
      { timeoutMs: 120_000, description: `pod ${name} Ready` },
    );
  /** A pod on `nodeName` that runs `script` (sh) once; resolves with its log. */
  const oneShot = (name: string, nodeName: string, script: string): Promise<string> =>
    oneShotWith(name, nodeName, script, {});
  const oneShotWith = async (
    name: string,
    nodeName: string,
    script: string,
    o: { volumes?: V1Volume[]; volumeMounts?: V1VolumeMount[] },
  ): Promise<string> => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name },
        spec: {
          restartPolicy: 'Never',
          nodeSelector: { 'kubernetes.io/hostname': nodeName },
          containers: [
            {
              name: 'main',
              image: redis.ref,
              imagePullPolicy: 'Never',
              command: ['sh', '-c', script],
              ...(o.volumeMounts ? { volumeMounts: o.volumeMounts } : {}),
            },
          ],
          ...(o.volumes ? { volumes: o.volumes } : {}),
        },
      },
    });
    await eventually(
      async () =>
        ['Succeeded', 'Failed'].includes(
          (await core.readNamespacedPod({ name, namespace: ns })).status?.phase ?? '',
        ),
      { timeoutMs: 120_000, description: `pod ${name} finished` },
    );
    return core.readNamespacedPodLog({ name, namespace: ns });
  };
  const readyCondition = async (node: string): Promise<string | undefined> =>
    (await core.readNode({ name: node })).status?.conditions?.find((c) => c.type === 'Ready')
      ?.status;

  beforeAll(async () => {
    tier = await acquireNodeTier({ nodes: 3 });
    core = tier.kubeConfig.makeApiClient(CoreV1Api);
    redis = (await localImages('redis-7.0'))['redis-7.0']!;
    await tier.importImage(redis);
    ns = await tier.createNamespace('multi-node');
    for (const node of layout.nodes) await serverPod(`redis-${node.short}`, node.name);
    for (const node of layout.nodes) servers.set(node.name, await readyPod(`redis-${node.short}`));
  });
  afterAll(async () => {
    await tier?.release();
  });

  it('has three Ready nodes in three zones, each with its own address and hostname label', async () => {
    const nodes = (await core.listNode()).items;
    expect(nodes.map((n) => n.metadata?.name).sort()).toEqual(layout.nodes.map((n) => n.name));
    for (const node of layout.nodes) {
      const n = nodes.find((x) => x.metadata?.name === node.name)!;
      expect(n.metadata?.labels).toMatchObject({
        'topology.kubernetes.io/zone': node.zone,
        'kubernetes.io/hostname': node.name,
      });
      expect(n.status?.conditions?.find((x) => x.type === 'Ready')?.status).toBe('True');
      expect(n.status?.addresses).toContainEqual({ type: 'InternalIP', address: node.address });
    }
    expect(tier.nodes.map((n) => n.zone)).toEqual(['zone-a', 'zone-b', 'zone-c']);
  });

  it("runs one pod per node, each in its node's pod range, reachable from the host", async () => {
    for (const node of layout.nodes) {
      const pod = servers.get(node.name)!;
      expect(pod.spec?.nodeName).toBe(node.name);
      expect(pod.status?.podIP?.startsWith(node.podCidr.replace(/\.0\/24$/, '.'))).toBe(true);
      expect(await redisPing(pod.status!.podIP!)).toBe('+PONG');
    }
  });

  it('carries pod → pod traffic across nodes, and pod → ClusterIP → a pod on another node', async () => {
    const podC = servers.get(c!.name)!.status!.podIP!;
    await core.createNamespacedService({
      namespace: ns,
      body: {
        metadata: { name: 'redis-c' },
        spec: { selector: { app: 'redis-c' }, ports: [{ port: 6379, targetPort: 6379 as never }] },
      },
    });
    const clusterIp = (await core.readNamespacedService({ name: 'redis-c', namespace: ns })).spec!
      .clusterIP!;
    expect(clusterIp.startsWith('10.96.0.')).toBe(true);
    await eventually(async () => (await redisPing(clusterIp).catch(() => '')) === '+PONG', {
      timeoutMs: 30_000,
      description: 'host → ClusterIP (through the gateway) → pod on node c',
    });
    const log = await oneShot(
      'client-a',
      a!.name,
      `redis-cli -h ${podC} ping; for i in 1 2 3 4 5 6 7 8 9 10; do redis-cli -h ${clusterIp} ping && break; sleep 1; done`,
    );
    expect(log.trim().split('\n')).toEqual(['PONG', 'PONG']);
  });

  it('lets pods reach the API server through the kubernetes Service and backends on the host address', async () => {
    // a backend of the test process, where suites put theirs (tier.hostAddress)
    const backend = createServer((socket) => socket.end('+PONG\r\n'));
    await new Promise<void>((resolve) => backend.listen(0, tier.hostAddress, resolve));
    try {
      const { port } = backend.address() as AddressInfo;
      const log = await oneShot(
        'reach-out-c',
        c!.name,
        `bash -c 'exec 3<>/dev/tcp/10.96.0.1/443 && echo api-open'; redis-cli -h ${tier.hostAddress} -p ${port} ping`,
      );
      expect(log.trim().split('\n')).toEqual(['api-open', 'PONG']);
    } finally {
      backend.close();
    }
  });

  it("provisions a claim's volume on the node its pod was scheduled to", async () => {
    await core.createNamespacedPersistentVolumeClaim({
      namespace: ns,
      body: {
        metadata: { name: 'data-c' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    });
    const log = await oneShotWith(
      'volume-c',
      c!.name,
      'echo written > /data/file && cat /data/file',
      {
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-c' } }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
    );
    expect(log.trim()).toBe('written');
    const claim = await core.readNamespacedPersistentVolumeClaim({ name: 'data-c', namespace: ns });
    const pv = await core.readPersistentVolume({ name: claim.spec!.volumeName! });
    const path = pv.spec!.hostPath!.path;
    expect(path.startsWith(join(c!.dataDir, 'volumes') + '/')).toBe(true);
    expect(readFileSync(join(path, 'file'), 'utf8')).toBe('written\n');
    expect(
      pv.spec?.nodeAffinity?.required?.nodeSelectorTerms?.[0]?.matchExpressions?.[0]?.values,
    ).toEqual([c!.name]);
  });

  it('keeps the pod network on this machine: host forwarding off, no default route in nodes or pods', async () => {
    expect(readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim()).toBe('0');
    for (const netns of [...layout.nodes.map((n) => n.netns), layout.gatewayNetns]) {
      const { stdout } = await execFileAsync('ip', ['-n', netns, 'route', 'show', 'default']);
      expect(stdout.trim(), `default route in ${netns}`).toBe('');
    }
    // in a pod: the routing table (/proc/net/route), destination 00000000 = default
    const routes = await oneShot('routes-b', b!.name, 'cat /proc/net/route');
    const destinations = routes
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[1]);
    expect(destinations.length).toBeGreaterThan(0);
    expect(destinations).not.toContain('00000000');
  });

  it("serves logs and exec on every node, and keeps each node's pod logs to itself", async () => {
    for (const node of layout.nodes) {
      const name = `redis-${node.short}`;
      expect(await core.readNamespacedPodLog({ name, namespace: ns })).toContain(
        'Ready to accept connections',
      );
      const { stdout } = await execFileAsync(tier.binaries.kubectl, [
        `--kubeconfig=${tier.kubeconfigPath}`,
        '-n',
        ns,
        'exec',
        name,
        '--',
        'redis-cli',
        'ping',
      ]);
      expect(stdout.trim()).toBe('PONG');
      const logDirs = readdirSync(join(node.dataDir, 'var-log', 'pods')).filter((d) =>
        d.startsWith(`${ns}_`),
      );
      expect(logDirs.some((d) => d.startsWith(`${ns}_${name}_`))).toBe(true);
      for (const other of layout.nodes)
        if (other !== node)
          expect(logDirs.some((d) => d.startsWith(`${ns}_redis-${other.short}_`))).toBe(false);
    }
    const hostLogs = existsSync('/var/log/pods') ? readdirSync('/var/log/pods') : [];
    expect(hostLogs.filter((d) => d.startsWith(`${ns}_`))).toEqual([]);
  });

  it('stopNode: the node goes NotReady within 15 s and its pod stops answering; startNode brings both back', async () => {
    const pod = servers.get(b!.name)!;
    const started = Date.now();
    await tier.stopNode(b!.name, { waitNotReady: true });
    const notReadyMs = Date.now() - started;
    expect(notReadyMs).toBeLessThan(15_000);
    expect(await readyCondition(b!.name)).not.toBe('True');
    expect(await unreachable(pod.status!.podIP!)).toBe(true);
    // the other nodes are untouched
    expect(await redisPing(servers.get(a!.name)!.status!.podIP!)).toBe('+PONG');
    await tier.startNode(b!.name);
    expect(await readyCondition(b!.name)).toBe('True');
    await eventually(
      async () => (await redisPing(pod.status!.podIP!).catch(() => '')) === '+PONG',
      {
        timeoutMs: 30_000,
        description: 'the same pod answering again',
      },
    );
    const after = await core.readNamespacedPod({ name: 'redis-b', namespace: ns });
    expect(after.metadata?.uid).toBe(pod.metadata?.uid);
    expect(after.status?.containerStatuses?.[0]?.restartCount).toBe(0);
  });

  it('partitionNode: only the test client still reaches its pod; the node goes NotReady; healNode brings it back', async () => {
    const pod = servers.get(c!.name)!.status!.podIP!;
    const client = await tier.testClient('observer');
    expect(client.address).toMatch(/^10\.88\.76\.2\d\d$/);
    await tier.partitionNode(c!.name, { allow: [client] });
    expect(await unreachable(pod)).toBe(true);
    expect(await redisPing(pod, { localAddress: client.address })).toBe('+PONG');
    // other nodes' pods cannot reach it either
    const fromA = await oneShot(
      'partitioned-from-a',
      a!.name,
      `timeout 3 redis-cli -h ${pod} ping 2>&1 || echo unreachable`,
    );
    expect(fromA).not.toContain('PONG');
    expect(fromA).toContain('unreachable');
    await eventually(async () => (await readyCondition(c!.name)) !== 'True', {
      timeoutMs: 20_000,
      description: `${c!.name} NotReady`,
    });
    await tier.healNode(c!.name);
    expect(await readyCondition(c!.name)).toBe('True');
    expect(await redisPing(pod)).toBe('+PONG');
  });

  it('drainNode evicts with kubectl semantics: a PodDisruptionBudget makes it wait (429), then it completes', async () => {
    const labels = { set: 'pdb' };
    await serverPod('pdb-b1', b!.name, labels);
    await serverPod('pdb-b2', b!.name, labels);
    await serverPod('pdb-c1', c!.name, labels);
    for (const name of ['pdb-b1', 'pdb-b2', 'pdb-c1']) await readyPod(name);
    await tier.client.create({
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb', namespace: ns },
      spec: { minAvailable: 2, selector: { matchLabels: labels } },
    } as never);
    await eventually(
      async () => {
        const pdb = (await tier.client.read({
          apiVersion: 'policy/v1',
          kind: 'PodDisruptionBudget',
          metadata: { name: 'pdb', namespace: ns },
        })) as { status?: { disruptionsAllowed?: number; currentHealthy?: number } };
        return pdb.status?.currentHealthy === 3 && pdb.status.disruptionsAllowed === 1;
      },
      { timeoutMs: 30_000, description: 'the PDB allowing one disruption' },
    );
    // node b also runs redis-b (no PDB): it goes at once
    const drain = tier.drainNode(b!.name, { timeoutMs: 90_000 });
    drain.catch(() => undefined);
    // one pdb pod on b is evicted; the other is refused until a third one is healthy elsewhere
    await eventually(
      async () => {
        const left = (
          await core.listNamespacedPod({ namespace: ns, labelSelector: 'set=pdb' })
        ).items
          .filter((p) => p.spec?.nodeName === b!.name && !p.metadata?.deletionTimestamp)
          .map((p) => p.metadata?.name);
        return left.length === 1;
      },
      { timeoutMs: 30_000, description: 'one PDB pod evicted from node b' },
    );
    await new Promise((r) => setTimeout(r, 3_000));
    const stillOnB = (
      await core.listNamespacedPod({ namespace: ns, labelSelector: 'set=pdb' })
    ).items.filter((p) => p.spec?.nodeName === b!.name && !p.metadata?.deletionTimestamp);
    expect(stillOnB).toHaveLength(1);
    expect((await core.readNode({ name: b!.name })).spec?.unschedulable).toBe(true);
    await serverPod('pdb-a1', a!.name, labels);
    const result = await drain;
    expect(result.refusals).toBeGreaterThan(0);
    expect(result.evicted).toEqual(
      expect.arrayContaining([`${ns}/redis-b`, `${ns}/pdb-b1`, `${ns}/pdb-b2`]),
    );
    const onB = (await core.listNamespacedPod({ namespace: ns })).items.filter(
      (p) => p.spec?.nodeName === b!.name,
    );
    expect(onB).toEqual([]);
    await tier.uncordonNode(b!.name);
    expect((await core.readNode({ name: b!.name })).spec?.unschedulable).toBeFalsy();
  });

  it("does not let the single-node tier's cleanup see the multi-node tier's processes", async () => {
    const single = nodeTierLayout();
    const binaries = tier.binaries;
    const found = await leftovers({
      layout: single,
      shim: binaries.containerdShim,
      nft: binaries.nft,
      binaries: [
        binaries.kubelet,
        binaries.kubeScheduler,
        binaries.kubeProxy,
        binaries.containerd,
        binaries.containerdShim,
        binaries.provisioner,
      ],
    });
    // the single tier may be running (its own processes are listed then); none of ours may be
    const pids = found
      .map((f) => /^process (\d+)/.exec(f)?.[1])
      .filter(Boolean)
      .map(Number);
    expect(pids.filter((pid) => inCgroup(pid, layout.cgroupRoot))).toEqual([]);
    // and ours are there to be found by cgroup: 3 kubelets, 3 containerds, 4 kube-proxies, shims
    expect(
      (await multiNodeLeftovers()).filter((f) => f.startsWith('process')).length,
    ).toBeGreaterThan(10);
  });
});

describe('the multi-node tier is held by one process at a time, and reset for the next', () => {
  it(
    'waits for a holder, takes over from one killed outright, and undoes its faults',
    async () => {
      const entry = join(repoRoot(), 'libs/testing-node-tier/src/index.ts');
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--input-type=module',
          '-e',
          `const steward = await import(${JSON.stringify(entry)});
        const tier = await steward.acquireNodeTier({ nodes: 3 });
        await tier.stopNode('b');
        await tier.partitionNode('c');
        await tier.drainNode('a');
        await tier.markOutOfService('a');
        console.log('FAULTED');
        setInterval(() => undefined, 60_000);`,
        ],
        { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (output += d));
      child.stderr!.setEncoding('utf8').on('data', (d: string) => (output += d));
      try {
        // the child may queue behind other holders first (npm start holds it while it runs)
        await eventually(() => output.includes('FAULTED'), {
          timeoutMs: 25 * 60_000,
          description: `the child's faults (output so far: ${output})`,
        });
        expect(readFileSync(join(layout.runDir, 'holder'), 'utf8').trim()).toBe(String(child.pid));
        // held: another acquire waits
        const waiting = acquireNodeTier({ nodes: 3, holdTimeoutMs: 3_000 });
        await expect(waiting).rejects.toThrow(`held by pid ${child.pid}`);
      } finally {
        child.kill('SIGKILL');
      }
      // the holder is gone: the next acquire takes the tier over and resets it
      const tier = await acquireNodeTier({ nodes: 3 });
      try {
        const core = tier.kubeConfig.makeApiClient(CoreV1Api);
        for (const node of layout.nodes) {
          const n = await core.readNode({ name: node.name });
          expect(n.status?.conditions?.find((x) => x.type === 'Ready')?.status, node.name).toBe(
            'True',
          );
          expect(n.spec?.unschedulable ?? false, node.name).toBe(false);
          expect(n.spec?.taints ?? [], node.name).toEqual([]);
        }
        const state = JSON.parse(readFileSync(join(layout.runDir, 'state.json'), 'utf8')) as {
          nodeStates: Record<string, string>;
        };
        expect(Object.values(state.nodeStates)).toEqual(['ready', 'ready', 'ready']);
      } finally {
        await tier.release();
      }
      // the holds may queue behind other processes' (the tier is the machine's)
    },
    30 * 60_000,
  );
});

describe('the multi-node tier with NetworkPolicy (kube-network-policies on every node)', () => {
  let tier: MultiNodeTier;
  let core: CoreV1Api;
  let ns: string;
  let redis: LocalImage;

  beforeAll(async () => {
    tier = await acquireNodeTier({ nodes: 3, networkPolicy: true });
    core = tier.kubeConfig.makeApiClient(CoreV1Api);
    redis = (await localImages('redis-7.0'))['redis-7.0']!;
    await tier.importImage(redis);
    ns = await tier.createNamespace('multi-node-policy');
  });
  afterAll(async () => {
    // stopped while this file still holds it (nobody else can start it meanwhile): nothing of it
    // may be left on the host; then the hold is given back
    await stopMultiNodeTier();
    const left = await multiNodeLeftovers();
    await tier?.release();
    expect(left).toEqual([]);
  });

  it('refuses what a deny-all policy covers; lets through an allowed ipBlock and selected pods on the same node and another', async () => {
    await core.createNamespacedPod({
      namespace: ns,
      body: {
        metadata: { name: 'guarded', labels: { app: 'guarded' } },
        spec: {
          nodeSelector: { 'kubernetes.io/hostname': layout.nodes[1]!.name },
          containers: [
            {
              name: 'redis',
              image: redis.ref,
              imagePullPolicy: 'Never',
              command: [
                'redis-server',
                '--save',
                '',
                '--appendonly',
                'no',
                '--protected-mode',
                'no',
              ],
              readinessProbe: { tcpSocket: { port: 6379 }, periodSeconds: 1 },
            },
          ],
        },
      },
    });
    const pod = await eventually(
      async () => {
        const p = await core.readNamespacedPod({ name: 'guarded', namespace: ns });
        return ready(p) && p;
      },
      { timeoutMs: 120_000, description: 'pod guarded Ready' },
    );
    const ip = pod.status!.podIP!;
    expect(await redisPing(ip)).toBe('+PONG');
    const policy = (name: string, spec: object) => ({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name, namespace: ns },
      spec: { podSelector: {}, policyTypes: ['Ingress'], ...spec },
    });
    await tier.client.create(policy('deny', {}) as never);
    await eventually(async () => unreachable(ip), {
      timeoutMs: 20_000,
      description: 'deny-all enforced',
    });
    // the kubelet's probes (root on the node) are exempt: the pod stays Ready
    expect(ready(await core.readNamespacedPod({ name: 'guarded', namespace: ns }))).toBe(true);
    await tier.client.create(
      policy('allow-host', {
        // client-node's model names the field `_from` (JSON `from`): a plain `from` is dropped by
        // its serializer, and the rule would allow everything
        ingress: [{ _from: [{ ipBlock: { cidr: `${tier.hostAddress}/32` } }] }],
      }) as never,
    );
    await eventually(async () => (await redisPing(ip).catch(() => '')) === '+PONG', {
      timeoutMs: 20_000,
      description: 'the host let through by an ipBlock',
    });
    // a test client is another address: still refused
    const client = await tier.testClient('outsider');
    expect(await unreachable(ip, { localAddress: client.address })).toBe(true);

    // pods as clients, on the same node (bridged: br_netfilter brings it to the hooks) and on
    // another: only those a podSelector names get through
    await tier.client.create(
      policy('allow-clients', {
        ingress: [{ _from: [{ podSelector: { matchLabels: { role: 'client' } } }] }],
      }) as never,
    );
    const probe = async (
      name: string,
      node: string,
      labels: Record<string, string>,
      attempts: number,
    ) => {
      await core.createNamespacedPod({
        namespace: ns,
        body: {
          metadata: { name, labels },
          spec: {
            restartPolicy: 'Never',
            nodeSelector: { 'kubernetes.io/hostname': node },
            containers: [
              {
                name: 'main',
                image: redis.ref,
                imagePullPolicy: 'Never',
                // a new pod's first SYN may be judged before the agent knows its IP: retry
                command: [
                  'sh',
                  '-c',
                  `for i in $(seq ${attempts}); do timeout 2 redis-cli -h ${ip} ping 2>/dev/null | grep -q PONG && { echo PONG; exit 0; }; sleep 1; done; echo refused`,
                ],
              },
            ],
          },
        },
      });
      await eventually(
        async () =>
          ['Succeeded', 'Failed'].includes(
            (await core.readNamespacedPod({ name, namespace: ns })).status?.phase ?? '',
          ),
        { timeoutMs: 60_000, description: `pod ${name} finished` },
      );
      return (await core.readNamespacedPodLog({ name, namespace: ns })).trim();
    };
    const [b, a] = [layout.nodes[1]!.name, layout.nodes[0]!.name];
    expect(await probe('client-same-node', b, { role: 'client' }, 5)).toBe('PONG');
    expect(await probe('client-other-node', a, { role: 'client' }, 5)).toBe('PONG');
    expect(await probe('stranger-same-node', b, { role: 'stranger' }, 3)).toBe('refused');
    expect(await probe('stranger-other-node', a, { role: 'stranger' }, 3)).toBe('refused');
  });
});
