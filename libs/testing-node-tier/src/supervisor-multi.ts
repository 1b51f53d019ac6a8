/**
 * The multi-node tier's supervisor (docs/design/multi-node-tier.md, docs/multi-node-tier.md): one
 * control plane and scheduler, three nodes — each a containerd, kubelet and kube-proxy (and, with
 * network policies, a kube-network-policies agent) in the node's own network and mount namespaces
 * and cgroup — on a fabric bridge of their own, plus a gateway kube-proxy that gives the host the
 * ClusterIPs. It publishes `<runDir>/state.json`, serves node faults on `<runDir>/control.sock`,
 * and stops — leaving nothing on the host — once its holder is gone for `lingerMs`, or on
 * SIGTERM/SIGINT. Started detached by `acquireNodeTier({ nodes: 3 })`; never imported by tests.
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy } from '@kubernetes/client-node';
import {
  ManagedProcess,
  mintCertificate,
  probeHttp as probe,
  type TlsMaterial,
} from '@steward/testing';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lingerWhileHeld } from './linger.js';
import { createCgroup, destroyCgroup, freeze, joinCgroupScript, thaw } from './cgroups.js';
import {
  multiNodeCniConfig,
  multiNodeKubeletConfig,
  multiNodeKubeProxyConfig,
  containerdConfig,
  resolvConf,
} from './configs.js';
import {
  adminTlsOf,
  createStorageClasses,
  kubeControllers,
  mintControlPlanePki,
  mintNodeIdentity,
  nodeReady,
  startApiserver,
  startControllerManager,
  startEtcd,
  startScheduler,
  waitFor,
  writeKubeconfig,
} from './control-plane-steps.js';
import { cgroupV2, processAlive, run } from './host.js';
import {
  multiNodeTierLayout,
  nodeTierLayout,
  startLockFile,
  stateFile,
  type MultiNode,
  type MultiNodeState,
  type MultiNodeTierState,
  type MultiSupervisorConfig,
} from './layout.js';
import {
  addTestClient,
  gatewayCommand,
  heal,
  nodeCommand,
  partition,
  setUplink,
  setUpMountNamespace,
  setUpNetwork,
  tearDownNetwork,
} from './netns.js';

const layout = multiNodeTierLayout();
const t0 = Date.now();
/** Shared processes (control plane, scheduler, provisioner, gateway kube-proxy), in start order. */
const processes: ManagedProcess[] = [];
/** Per node: its daemons by role. */
const nodeProcesses = new Map<string, Map<string, ManagedProcess>>();
const nodeStates: Record<string, MultiNodeState> = {};
const testClients = new Map<string, string>();
let phase: MultiNodeTierState['phase'] = 'starting';
let published: Omit<MultiNodeTierState, 'phase' | 'pid'> = {};
let networkPolicy = false;
/** The cgroup of the tier's shared processes (pids hierarchy only: it is there to be found by). */
const sharedCgroup = `${layout.cgroupRoot}/shared`;
const holderFile = join(layout.runDir, 'holder');

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} [${Date.now() - t0} ms] ${message}\n`);
}

async function publish(
  next: MultiNodeTierState['phase'],
  extra: Partial<MultiNodeTierState> = {},
): Promise<void> {
  phase = next;
  published = { ...published, ...extra, nodeStates: { ...nodeStates }, networkPolicy };
  const state: MultiNodeTierState = { phase, pid: process.pid, ...published };
  const tmp = `${stateFile(layout)}.${process.pid}`;
  await writeFile(tmp, JSON.stringify(state, null, 2));
  await rename(tmp, stateFile(layout));
}

async function step<T>(name: string, action: () => Promise<T>): Promise<T> {
  await publish(phase, { message: name });
  log(`${name}...`);
  return action();
}

const logFile = (name: string): string => join(layout.logDir, `${name}.log`);

/** A shared process, in the tier's `shared` cgroup (pids hierarchy) so scoping finds it. */
function startShared(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv) {
  const script = `${joinCgroupScript(sharedCgroup, ['pids'])} && exec "$@"`;
  const p = ManagedProcess.start(
    name,
    'sh',
    ['-c', script, 'sh', command, ...args],
    logFile(name),
    env ? { env } : {},
  );
  processes.push(p);
  return p;
}
const starter = { start: startShared };

function startOnNode(
  node: MultiNode,
  role: string,
  argv: string[],
  env?: NodeJS.ProcessEnv,
): ManagedProcess {
  const { command, args } = nodeCommand(node, argv);
  const p = ManagedProcess.start(
    `${role}-${node.short}`,
    command,
    args,
    logFile(`${role}-${node.short}`),
    env ? { env } : {},
  );
  let roles = nodeProcesses.get(node.name);
  if (!roles) nodeProcesses.set(node.name, (roles = new Map()));
  roles.set(role, p);
  return p;
}

const nodeByName = (name: string): MultiNode => {
  const node = layout.nodes.find((n) => n.name === name || n.short === name);
  if (!node)
    throw new Error(
      `steward: no node ${name} (nodes: ${layout.nodes.map((n) => n.name).join(', ')})`,
    );
  return node;
};

interface Context {
  config: MultiSupervisorConfig;
  client: KubernetesObjectApi;
  adminKubeconfig: string;
  kubeletArgs: Map<string, string[]>;
  knpEnv: NodeJS.ProcessEnv;
  server: string;
}
let ctx: Context | undefined;

/** Everything an earlier multi-node tier left: processes (by cgroup), mounts, namespaces, cgroups. */
async function cleanUp(): Promise<void> {
  await destroyCgroup(layout.cgroupRoot);
  await tearDownNetwork(layout);
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((m) =>
      [layout.runDir, layout.dataDir, ...layout.nodes.map((n) => n.containerdRoot)].some(
        (d) => m === d || m.startsWith(`${d}/`),
      ),
    )
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) await run('umount', ['-l', m]).catch(() => '');
}

/**
 * Several kubelets and containerds exhaust the default 128 inotify instances (kind's known issue):
 * raised to 512 for the machine (host-global; logged, and put back when the tier stops).
 */
let inotifyRaisedFrom: string | undefined;
async function raiseInotifyLimit(): Promise<void> {
  const file = '/proc/sys/fs/inotify/max_user_instances';
  const current = (await readFile(file, 'utf8')).trim();
  if (Number(current) < 512) {
    await writeFile(file, '512');
    inotifyRaisedFrom = current;
    log(`raised fs.inotify.max_user_instances from ${current} to 512 (restored at stop)`);
  }
}

async function startTier(config: MultiSupervisorConfig): Promise<void> {
  const { binaries } = config;
  networkPolicy = config.networkPolicy;
  await step('removing what an earlier multi-node tier left on the host', async () => {
    await cleanUp();
    await rm(layout.dataDir, { recursive: true, force: true });
  });
  await raiseInotifyLimit();
  const dir = (...parts: string[]): string => join(layout.dataDir, ...parts);
  for (const d of [dir('pki'), dir('etc')]) await mkdir(d, { recursive: true });
  await writeFile(dir('etc', 'resolv.conf'), resolvConf);
  await step('creating cgroups', async () => {
    await createCgroup(sharedCgroup, ['pids']);
    for (const node of layout.nodes) await createCgroup(`${node.cgroup}/system`);
  });

  const pki = await step('minting certificates', async () => {
    const controlPlane = await mintControlPlanePki(dir('pki'), layout);
    const nodes = new Map<string, Awaited<ReturnType<typeof mintNodeIdentity>>>();
    for (const node of layout.nodes)
      nodes.set(
        node.name,
        await mintNodeIdentity(controlPlane.ca, node.name, node.address, `node-${node.short}`),
      );
    // the NetworkPolicy agents' identity (ClusterRole steward:kube-network-policies)
    const knp = await mintCertificate(controlPlane.ca, {
      name: 'kube-network-policies',
      commonName: 'steward:kube-network-policies',
    });
    return { ...controlPlane, nodes, knp };
  });
  const adminTls: TlsMaterial = await adminTlsOf(pki);

  await step('creating the fabric, the gateway and the node namespaces', async () => {
    await setUpNetwork(layout);
    const single = nodeTierLayout();
    for (const node of layout.nodes) {
      for (const d of [
        'etc/cni',
        'cni-ipam',
        'kubelet',
        'kubelet-pki',
        'kubelet-plugins',
        'manifests',
        'volumes',
      ])
        await mkdir(join(node.dataDir, d), { recursive: true });
      await mkdir(node.runDir, { recursive: true });
      await mkdir(node.containerdRoot, { recursive: true });
      await setUpMountNamespace(layout, node, [
        single.runDir,
        single.dataDir,
        single.containerdRoot,
      ]);
      await writeFile(
        join(node.dataDir, 'etc', 'cni', '10-steward-multi.conflist'),
        multiNodeCniConfig(layout, node, join(node.dataDir, 'cni-ipam')),
      );
    }
  });

  // ---- containerd ×3, started before the control plane and waited for after it
  const containerdSocket = (node: MultiNode): string => join(node.runDir, 'containerd.sock');
  const ctr = (node: MultiNode, ...args: string[]): Promise<string> =>
    run(binaries.ctr, ['--address', containerdSocket(node), '--namespace', 'k8s.io', ...args]);
  await step('starting containerd on every node', async () => {
    for (const node of layout.nodes) {
      const file = join(node.dataDir, 'etc', 'containerd.toml');
      await writeFile(
        file,
        containerdConfig({
          root: node.containerdRoot,
          state: join(node.runDir, 'containerd'),
          socket: containerdSocket(node),
          runc: binaries.runc,
          runcRoot: join(node.runDir, 'runc'),
          cniBinDir: binaries.cniBinDir,
          cniConfDir: join(node.dataDir, 'etc', 'cni'),
          sandboxImage: config.sandboxImage.ref,
        }),
      );
      startOnNode(node, 'containerd', [binaries.containerd, '--config', file]);
    }
  });
  const containerdsReady = Promise.all(
    layout.nodes.map(async (node) => {
      await waitFor(
        nodeProcesses.get(node.name)!.get('containerd'),
        `containerd on ${node.name}`,
        async () => !!(await ctr(node, 'version')),
      );
      for (const id of (await ctr(node, 'containers', 'ls', '-q')).split('\n').filter(Boolean)) {
        await ctr(node, 'tasks', 'kill', '-s', 'SIGKILL', id).catch(() => '');
        await ctr(node, 'tasks', 'delete', '-f', id).catch(() => '');
        await ctr(node, 'containers', 'delete', id).catch(() => '');
      }
      if (!(await ctr(node, 'images', 'ls', '-q')).split('\n').includes(config.sandboxImage.ref))
        await ctr(node, 'images', 'import', config.sandboxImage.archive);
    }),
  );
  containerdsReady.catch(() => undefined);

  const etcdUrl = await step('starting etcd', () => startEtcd(starter, binaries, dir('etcd')));
  const server = await step('starting kube-apiserver', () =>
    startApiserver(starter, binaries, {
      layout,
      etcdUrl,
      certDir: dir('apiserver-certs'),
      pki,
      adminTls,
      // pods on a NotReady/unreachable node are evicted after 30 s, not 300 s
      extraArgs: [
        '--default-not-ready-toleration-seconds=30',
        '--default-unreachable-toleration-seconds=30',
      ],
    }),
  );
  const kubeconfigFor = (file: string, user: string, certFile: string, keyFile: string) =>
    writeKubeconfig(join(layout.runDir, file), {
      server,
      caPem: adminTls.ca!,
      user,
      certFile,
      keyFile,
    });
  const adminKubeconfig = await kubeconfigFor(
    'admin.kubeconfig',
    'steward-admin',
    pki.admin.certFile,
    pki.admin.keyFile,
  );
  const nodeKubeconfigs = new Map<string, string>();
  for (const node of layout.nodes) {
    const id = pki.nodes.get(node.name)!;
    nodeKubeconfigs.set(
      node.name,
      await kubeconfigFor(
        `node-${node.short}.kubeconfig`,
        `system:node:${node.name}`,
        id.node.certFile,
        id.node.keyFile,
      ),
    );
  }
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfig);
  const client = KubernetesObjectApi.makeApiClient(kc);

  await step('starting kube-controller-manager, kube-scheduler, provisioner', async () => {
    await startControllerManager(starter, binaries, {
      kubeconfig: adminKubeconfig,
      pki,
      // pods on a lost node are evicted (absent from the single tier)
      controllers: [...kubeControllers, 'taint-eviction-controller'],
      // a stopped or partitioned node is NotReady within ~10 s (default 50 s)
      extraArgs: ['--node-monitor-grace-period=10s', '--node-monitor-period=1s'],
    });
    await startScheduler(starter, binaries, adminKubeconfig);
    startShared('provisioner', binaries.provisioner, [
      `--kubeconfig=${adminKubeconfig}`,
      `--provisioner-name=${layout.provisionerName}`,
      ...layout.nodes.flatMap((n) => ['--node', `${n.name}=${join(n.dataDir, 'volumes')}`]),
    ]);
  });

  await step('waiting for containerd on every node', () => containerdsReady);

  const kubeletArgs = new Map<string, string[]>();
  await step('starting the kubelets and waiting for the nodes to be Ready', async () => {
    for (const node of layout.nodes) {
      const id = pki.nodes.get(node.name)!;
      const file = join(node.dataDir, 'etc', 'kubelet.json');
      await writeFile(
        file,
        multiNodeKubeletConfig(layout, node, {
          containerdSocket: containerdSocket(node),
          caFile: pki.ca.certFile,
          servingCert: id.kubeletServing.certFile,
          servingKey: id.kubeletServing.keyFile,
          resolvConf: dir('etc', 'resolv.conf'),
          staticPodDir: join(node.dataDir, 'manifests'),
          volumePluginDir: join(node.dataDir, 'kubelet-plugins'),
          cgroupV1: !cgroupV2(),
        }),
      );
      const argv = [
        binaries.kubelet,
        `--config=${file}`,
        `--kubeconfig=${nodeKubeconfigs.get(node.name)!}`,
        `--root-dir=${join(node.dataDir, 'kubelet')}`,
        `--cert-dir=${join(node.dataDir, 'kubelet-pki')}`,
        `--hostname-override=${node.name}`,
        `--node-ip=${node.address}`,
        `--node-labels=topology.kubernetes.io/zone=${node.zone}`,
        '--v=1',
      ];
      kubeletArgs.set(node.name, argv);
      startOnNode(node, 'kubelet', argv);
      nodeStates[node.name] = 'ready';
    }
    await Promise.all(
      layout.nodes.map((node) =>
        waitFor(
          nodeProcesses.get(node.name)!.get('kubelet'),
          `node ${node.name} Ready and untainted`,
          () => nodeReady(client, node.name),
        ),
      ),
    );
  });

  const nftPath = {
    ...process.env,
    PATH: `${join(binaries.nft, '..')}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
  };
  await step('starting kube-proxy on every node and the gateway', async () => {
    for (const node of layout.nodes) {
      const file = join(node.dataDir, 'etc', 'kube-proxy.json');
      await writeFile(
        file,
        multiNodeKubeProxyConfig(layout, adminKubeconfig, node.name, node.address),
      );
      startOnNode(node, 'kube-proxy', [binaries.kubeProxy, `--config=${file}`, '--v=1'], nftPath);
    }
    // the gateway: the host's way to ClusterIPs (replies come back through it: masqueradeAll)
    const file = dir('etc', 'kube-proxy-gateway.json');
    await writeFile(
      file,
      multiNodeKubeProxyConfig(
        layout,
        adminKubeconfig,
        layout.nodes[0]!.name,
        layout.gatewayAddress,
        {
          masqueradeAll: true,
        },
      ),
    );
    const { command, args } = gatewayCommand(layout, sharedCgroup, [
      binaries.kubeProxy,
      `--config=${file}`,
      '--v=1',
    ]);
    processes.push(
      ManagedProcess.start('kube-proxy-gateway', command, args, logFile('kube-proxy-gateway'), {
        env: nftPath,
      }),
    );
    await Promise.all(
      [
        ...layout.nodes.map(
          (n) => [n.address, nodeProcesses.get(n.name)!.get('kube-proxy')] as const,
        ),
        [layout.gatewayAddress, processes.at(-1)] as const,
      ].map(([address, p]) =>
        waitFor(
          p,
          `kube-proxy /healthz on ${address}`,
          async () => (await probe(`http://${address}:10256/healthz`)).status === 200,
        ),
      ),
    );
  });

  await step("creating the StorageClasses and the NetworkPolicy agents' role", async () => {
    await createStorageClasses(client, layout);
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'steward:kube-network-policies' },
      rules: [
        { apiGroups: [''], resources: ['pods', 'namespaces'], verbs: ['list', 'watch'] },
        {
          apiGroups: ['networking.k8s.io'],
          resources: ['networkpolicies'],
          verbs: ['list', 'watch'],
        },
      ],
    } as never);
    await client.create({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'steward:kube-network-policies' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'steward:kube-network-policies',
      },
      subjects: [
        {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'User',
          name: 'steward:kube-network-policies',
        },
      ],
    } as never);
  });

  ctx = {
    config,
    client,
    adminKubeconfig,
    kubeletArgs,
    server,
    knpEnv: {
      ...process.env,
      STEWARD_KNP_SERVER: server,
      STEWARD_KNP_CA: pki.ca.certFile,
      STEWARD_KNP_CERT: pki.knp.certFile,
      STEWARD_KNP_KEY: pki.knp.keyFile,
    },
  };
  if (networkPolicy) await step('starting the NetworkPolicy agents', () => setNetworkPolicy(true));

  await startControlServer();
  await publish('ready', {
    message: `nodes ${layout.nodes.map((n) => n.name).join(', ')} Ready`,
    server,
    kubeconfigPath: adminKubeconfig,
    nodeKubeconfigPath: nodeKubeconfigs.get(layout.nodes[0]!.name)!,
    containerdSocket: containerdSocket(layout.nodes[0]!),
    containerdSockets: Object.fromEntries(layout.nodes.map((n) => [n.name, containerdSocket(n)])),
    startedAt: new Date(t0).toISOString(),
    startMs: Date.now() - t0,
    pids: Object.fromEntries([
      ...processes.map((p) => [p.name, p.pid ?? 0] as const),
      ...[...nodeProcesses.values()].flatMap((roles) =>
        [...roles.values()].map((p) => [p.name, p.pid ?? 0] as const),
      ),
    ]),
  });
  log(`tier ready in ${Date.now() - t0} ms: ${server}`);
}

// ---- node faults ---------------------------------------------------------------------------------

async function waitNodeReady(node: MultiNode, timeoutMs = 120_000): Promise<void> {
  await waitFor(
    nodeProcesses.get(node.name)?.get('kubelet'),
    `node ${node.name} Ready`,
    () => nodeReady(ctx!.client, node.name, false),
    timeoutMs,
  );
}

async function nodeCondition(node: MultiNode): Promise<string | undefined> {
  const n = (await ctx!.client.read({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name },
  })) as {
    status?: { conditions?: { type: string; status: string }[] };
  };
  return n.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/** Kubelet SIGKILLed, then everything of the node frozen (daemons, shims, containers): a hung machine. */
async function stopNode(
  node: MultiNode,
  o: { unplug?: boolean; waitNotReady?: boolean },
): Promise<void> {
  if (nodeStates[node.name] === 'stopped') return;
  const kubelet = nodeProcesses.get(node.name)?.get('kubelet');
  if (kubelet?.running) {
    kubelet.signal('SIGKILL');
    await kubelet.exited;
  }
  await freeze(node.cgroup);
  if (o.unplug) await setUplink(node, false);
  nodeStates[node.name] = 'stopped';
  await publish(phase);
  log(`node ${node.name} stopped${o.unplug ? ' and unplugged' : ''}`);
  if (o.waitNotReady)
    await waitFor(
      undefined,
      `node ${node.name} NotReady`,
      async () => (await nodeCondition(node)) !== 'True',
      120_000,
    );
}

/** Thawed, plugged in, the kubelet started again with the same arguments (root dir kept); waits Ready. */
async function startNode(node: MultiNode): Promise<void> {
  thaw(node.cgroup);
  await setUplink(node, true);
  const kubelet = nodeProcesses.get(node.name)?.get('kubelet');
  if (!kubelet?.running) startOnNode(node, 'kubelet', ctx!.kubeletArgs.get(node.name)!);
  if (nodeStates[node.name] === 'partitioned') await heal(ctx!.config.binaries.nft, node);
  nodeStates[node.name] = 'ready';
  await publish(phase);
  await waitNodeReady(node);
  log(`node ${node.name} started`);
}

async function partitionNode(node: MultiNode, allow: string[]): Promise<void> {
  await partition(ctx!.config.binaries.nft, node, allow);
  nodeStates[node.name] = 'partitioned';
  await publish(phase);
  log(`node ${node.name} partitioned (allowed: ${allow.join(', ') || 'none'})`);
}

async function healNode(node: MultiNode): Promise<void> {
  await heal(ctx!.config.binaries.nft, node);
  if (nodeStates[node.name] === 'partitioned') nodeStates[node.name] = 'ready';
  await publish(phase);
  await waitNodeReady(node);
  log(`node ${node.name} healed`);
}

async function testClient(name: string): Promise<string> {
  let address = testClients.get(name);
  if (!address) {
    address = layout.testClientAddresses[testClients.size];
    if (!address)
      throw new Error(
        `steward: no test-client address left (${layout.testClientAddresses.length} in all)`,
      );
    testClients.set(name, address);
  }
  await addTestClient(layout, address);
  return address;
}

/** The NetworkPolicy agents on (one per node, in its namespaces) or off (their tables go too). */
async function setNetworkPolicy(on: boolean): Promise<void> {
  networkPolicy = on;
  for (const node of layout.nodes) {
    const agent = nodeProcesses.get(node.name)?.get('network-policies');
    if (on && !agent?.running) {
      const p = startOnNode(
        node,
        'network-policies',
        [
          ctx!.config.binaries.kubeNetworkPolicies,
          `--hostname-override=${node.name}`,
          '--nfqueue-id=100',
          `--metrics-bind-address=${node.address}:9080`,
          // kernels >= 6.12 do not need the DNS workaround (and there is no cluster DNS)
          '--netfilter-bug-1766-fix=false',
          '--v=1',
        ],
        ctx!.knpEnv,
      );
      await waitFor(
        p,
        `kube-network-policies on ${node.name}`,
        async () => (await probe(`http://${node.address}:9080/metrics`)).status === 200,
      );
      // the first sync installs the table: wait for it, so that a policy applied next is enforced
      await waitFor(
        p,
        `kube-network-policies' table on ${node.name}`,
        async () =>
          !!(await run('ip', [
            'netns',
            'exec',
            node.netns,
            ctx!.config.binaries.nft,
            'list',
            'table',
            'inet',
            'kube-network-policies',
          ])),
      );
    } else if (!on && agent?.running) {
      // it removes its table only on SIGINT
      agent.signal('SIGINT');
      await Promise.race([agent.exited, sleep(10_000)]);
      await agent.stop(1_000);
      await run('ip', [
        'netns',
        'exec',
        node.netns,
        ctx!.config.binaries.nft,
        'delete',
        'table',
        'inet',
        'kube-network-policies',
      ]).catch(() => '');
    }
  }
  await publish(phase);
}

/** Every node back: thawed, plugged, healed, kubelet running, uncordoned; agents as asked; all Ready. */
async function reset(o: { networkPolicy?: boolean }): Promise<void> {
  for (const node of layout.nodes) {
    if (nodeStates[node.name] !== 'ready' || !nodeProcesses.get(node.name)?.get('kubelet')?.running)
      await startNode(node);
    await heal(ctx!.config.binaries.nft, node);
    await ctx!.client
      .patch(
        {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: node.name },
          spec: { unschedulable: null },
        } as never,
        undefined,
        undefined,
        undefined,
        undefined,
        PatchStrategy.MergePatch,
      )
      .catch((e: unknown) => log(`uncordoning ${node.name}: ${String(e)}`));
  }
  if ((o.networkPolicy ?? false) !== networkPolicy)
    await setNetworkPolicy(o.networkPolicy ?? false);
  await Promise.all(layout.nodes.map((n) => waitNodeReady(n)));
}

let controlServer: ReturnType<typeof createServer> | undefined;
let queue: Promise<unknown> = Promise.resolve();

async function startControlServer(): Promise<void> {
  await rm(layout.controlSocket, { force: true });
  controlServer = createServer((req, res) => {
    // one request at a time: faults on one tier must not interleave
    queue = queue.then(() => handle(req, res)).catch(() => undefined);
  });
  await new Promise<void>((resolve) => controlServer!.listen(layout.controlSocket, resolve));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = (chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {}) as {
    node?: string;
    unplug?: boolean;
    waitNotReady?: boolean;
    allow?: string[];
    name?: string;
    networkPolicy?: boolean;
  };
  try {
    if (phase !== 'ready') throw new Error(`the tier is ${phase}`);
    let result: unknown = {};
    const node = (): MultiNode => nodeByName(body.node ?? '');
    switch (req.url) {
      case '/stop':
        await stopNode(node(), body);
        break;
      case '/start':
        await startNode(node());
        break;
      case '/partition':
        await partitionNode(node(), body.allow ?? []);
        break;
      case '/heal':
        await healNode(node());
        break;
      case '/client':
        result = { address: await testClient(body.name ?? 'client') };
        break;
      case '/reset':
        await reset(body);
        break;
      default:
        res.writeHead(404).end(JSON.stringify({ error: `no such request ${req.url}` }));
        return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${req.url}: ${message}`);
    res
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: message }));
  }
}

// ---- stop ------------------------------------------------------------------------------------------

let stopping: Promise<void> | undefined;

function stopTier(config: MultiSupervisorConfig, exitCode: number): Promise<void> {
  stopping ??= (async () => {
    if (phase !== 'failed') await publish('stopping', { message: 'stopping' }).catch(() => {});
    log('stopping');
    controlServer?.close();
    for (const node of layout.nodes) {
      thaw(node.cgroup);
      await heal(config.binaries.nft, node).catch(() => undefined);
    }
    const shared = (name: string) => processes.find((p) => p.name === name && p.running);
    for (const name of ['kube-controller-manager', 'kube-scheduler', 'provisioner'])
      await shared(name)?.stop(5_000);
    if (shared('kube-apiserver') && published.kubeconfigPath) {
      const kc = new KubeConfig();
      kc.loadFromFile(published.kubeconfigPath);
      await deleteAllPods(kc).catch((e: unknown) => log(`deleting pods: ${String(e)}`));
      const deadline = Date.now() + 20_000;
      const busy = async (): Promise<boolean> => {
        for (const node of layout.nodes) {
          if (!nodeProcesses.get(node.name)?.get('kubelet')?.running) continue;
          const tasks = await run(config.binaries.ctr, [
            '--address',
            join(node.runDir, 'containerd.sock'),
            '-n',
            'k8s.io',
            'tasks',
            'ls',
            '-q',
          ]).catch(() => '');
          if (tasks.trim()) return true;
        }
        return false;
      };
      while (Date.now() < deadline && (await busy())) await sleep(250);
    }
    for (const roles of nodeProcesses.values())
      for (const p of [...roles.values()].reverse()) await p.stop(5_000);
    for (const p of [...processes].reverse())
      await p.stop(p.name === 'kube-apiserver' ? 5_000 : 10_000);
    await cleanUp();
    if (inotifyRaisedFrom)
      await writeFile('/proc/sys/fs/inotify/max_user_instances', inotifyRaisedFrom).catch(() => {});
    await rm(layout.dataDir, { recursive: true, force: true }).catch(() => {});
    await rm(layout.controlSocket, { force: true });
    // the holder file is the holder's: a test may stop the tier while it holds it (and check the host)
    await rm(stateFile(layout), { force: true });
    log(`stopped after ${Date.now() - t0} ms`);
    process.exit(exitCode);
  })();
  return stopping;
}

async function deleteAllPods(kc: KubeConfig): Promise<void> {
  const core = kc.makeApiClient(CoreV1Api);
  const pods = await core.listPodForAllNamespaces();
  await Promise.all(
    pods.items.map((pod) =>
      core
        .deleteNamespacedPod({
          name: pod.metadata!.name!,
          namespace: pod.metadata!.namespace!,
          gracePeriodSeconds: 0,
        })
        .catch(() => undefined),
    ),
  );
}

/** The holder (one test process at a time): alive, or the tier is idle. */
function holderAlive(): boolean {
  try {
    return processAlive(Number(readFileSync(holderFile, 'utf8').trim()));
  } catch {
    return false;
  }
}

async function main(): Promise<void> {
  const raw = process.env['STEWARD_NODE_TIER_CONFIG'];
  if (!raw) throw new Error('steward: STEWARD_NODE_TIER_CONFIG is not set');
  const config = JSON.parse(raw) as MultiSupervisorConfig;
  await mkdir(layout.logDir, { recursive: true });
  await mkdir(layout.runDir, { recursive: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => void stopTier(config, 0));
  await publish('starting', { message: 'starting' });
  await unlink(startLockFile(layout)).catch(() => {});
  try {
    await startTier(config);
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
    log(`failed: ${message}`);
    await publish('failed', {
      message: `multi-node tier failed to start: ${error instanceof Error ? error.message : String(error)}`,
    });
    await sleep(3_000);
    await stopTier(config, 1);
    return;
  }
  await lingerWhileHeld({
    held: holderAlive,
    stopping: () => stopping !== undefined,
    lingerMs: config.lingerMs,
    idle: async () => {
      log(`no holder for ${config.lingerMs} ms`);
      await stopTier(config, 0);
    },
  });
}

await main().catch((error: unknown) => {
  log(
    `supervisor error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
