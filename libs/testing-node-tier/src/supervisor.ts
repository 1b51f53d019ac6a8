/**
 * The node tier's supervisor: one process per machine that starts the control plane and a Ready
 * node, publishes them in `<runDir>/state.json`, and stops everything — leaving nothing on the
 * host — once no live test process holds a lease for `lingerMs`, or on SIGTERM/SIGINT. Started
 * detached by `acquireNodeTier()`; never imported by tests.
 *
 * Its children are ManagedProcesses: if the supervisor itself is killed outright, their watchdogs end
 * them, and the next supervisor's first step removes whatever they left on the host.
 */
import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { freePort, ManagedProcess, probeHttp as probe } from '@steward/testing';
import { mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { lingerWhileHeld } from './linger.js';
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  resolvConf,
} from './configs.js';
import {
  adminTlsOf,
  createStorageClasses,
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
import { cgroupV2, cleanUpHost, processAlive, run, setUpBridge } from './host.js';
import {
  leaseDir,
  nodeTierLayout,
  startLockFile,
  stateFile,
  type NodeTierState,
  type SupervisorConfig,
} from './layout.js';

const layout = nodeTierLayout();
const processes: ManagedProcess[] = [];
const t0 = Date.now();
let phase: NodeTierState['phase'] = 'starting';
let published: Omit<NodeTierState, 'phase' | 'pid'> = {};

function log(message: string): void {
  process.stdout.write(`${new Date().toISOString()} [${Date.now() - t0} ms] ${message}\n`);
}

async function publish(
  next: NodeTierState['phase'],
  extra: Partial<NodeTierState> = {},
): Promise<void> {
  phase = next;
  published = { ...published, ...extra };
  const state: NodeTierState = { phase, pid: process.pid, ...published };
  const tmp = `${stateFile(layout)}.${process.pid}`;
  await writeFile(tmp, JSON.stringify(state, null, 2));
  await rename(tmp, stateFile(layout));
}

async function step<T>(name: string, action: () => Promise<T>): Promise<T> {
  await publish(phase, { message: name });
  log(`${name}...`);
  return action();
}

function start(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv) {
  const p = ManagedProcess.start(
    name,
    command,
    args,
    join(layout.logDir, `${name}.log`),
    env ? { env } : {},
  );
  processes.push(p);
  return p;
}
const starter = { start };

async function startTier(config: SupervisorConfig): Promise<void> {
  const { binaries } = config;
  const cleanup = { layout, shim: binaries.containerdShim, nft: binaries.nft };
  await step('removing what an earlier tier left on the host', async () => {
    await cleanUpHost(cleanup);
    await rm(layout.dataDir, { recursive: true, force: true });
  });
  const dir = (...parts: string[]): string => join(layout.dataDir, ...parts);
  for (const d of [dir('pki'), dir('etc', 'cni'), dir('etc', 'manifests'), dir('volumes')])
    await mkdir(d, { recursive: true });
  await mkdir(layout.containerdRoot, { recursive: true });

  // ---- certificates: the API server, an admin, the node's identity, the kubelet's serving cert
  const pki = await step('minting certificates', async () => {
    const controlPlane = await mintControlPlanePki(dir('pki'), layout);
    const node = await mintNodeIdentity(controlPlane.ca, layout.nodeName, layout.hostAddress);
    return { ...controlPlane, ...node };
  });
  const adminTls = await adminTlsOf(pki);

  // ---- pod network
  await step('creating the pod network bridge', async () => {
    await setUpBridge(layout);
    await writeFile(dir('etc', 'cni', '10-steward.conflist'), cniConfig(layout, dir('cni-ipam')));
    await writeFile(dir('etc', 'resolv.conf'), resolvConf);
  });

  // ---- containerd, and the sandbox image
  const containerdSocket = join(layout.runDir, 'containerd.sock');
  const ctr = (...args: string[]): Promise<string> =>
    run(binaries.ctr, ['--address', containerdSocket, '--namespace', 'k8s.io', ...args]);
  await step('starting containerd', async () => {
    await writeFile(
      dir('etc', 'containerd.toml'),
      containerdConfig({
        root: layout.containerdRoot,
        state: join(layout.runDir, 'containerd'),
        socket: containerdSocket,
        runc: binaries.runc,
        runcRoot: join(layout.runDir, 'runc'),
        cniBinDir: binaries.cniBinDir,
        cniConfDir: dir('etc', 'cni'),
        sandboxImage: config.sandboxImage.ref,
      }),
    );
    const containerd = start('containerd', binaries.containerd, [
      '--config',
      dir('etc', 'containerd.toml'),
    ]);
    await waitFor(containerd, 'containerd', async () => !!(await ctr('version')));
    // a crash of the previous tier can leave containers behind in the kept store
    for (const id of (await ctr('containers', 'ls', '-q')).split('\n').filter(Boolean)) {
      await ctr('tasks', 'kill', '-s', 'SIGKILL', id).catch(() => '');
      await ctr('tasks', 'delete', '-f', id).catch(() => '');
      await ctr('containers', 'delete', id).catch(() => '');
    }
    const images = (await ctr('images', 'ls', '-q')).split('\n');
    if (!images.includes(config.sandboxImage.ref))
      await ctr('images', 'import', config.sandboxImage.archive);
  });

  // ---- etcd and kube-apiserver (on the bridge address: pods reach it through the ClusterIP)
  const etcdUrl = await step('starting etcd', () => startEtcd(starter, binaries, dir('etcd')));
  const server = await step('starting kube-apiserver', () =>
    startApiserver(starter, binaries, {
      layout,
      etcdUrl,
      certDir: dir('apiserver-certs'),
      pki,
      adminTls,
    }),
  );

  const adminKubeconfig = await writeKubeconfig(join(layout.runDir, 'admin.kubeconfig'), {
    server,
    caPem: adminTls.ca!,
    user: 'steward-admin',
    certFile: pki.admin.certFile,
    keyFile: pki.admin.keyFile,
  });
  const nodeKubeconfig = await writeKubeconfig(join(layout.runDir, 'node.kubeconfig'), {
    server,
    caPem: adminTls.ca!,
    user: `system:node:${layout.nodeName}`,
    certFile: pki.node.certFile,
    keyFile: pki.node.keyFile,
  });
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfig);
  const client = KubernetesObjectApi.makeApiClient(kc);

  // ---- the workload controllers, the scheduler, kube-proxy, the volume provisioner
  await step('starting kube-controller-manager, kube-scheduler, provisioner', async () => {
    await startControllerManager(starter, binaries, { kubeconfig: adminKubeconfig, pki });
    await startScheduler(starter, binaries, adminKubeconfig);
    start('provisioner', binaries.provisioner, [
      `--kubeconfig=${adminKubeconfig}`,
      `--provisioner-name=${layout.provisionerName}`,
      `--base-dir=${dir('volumes')}`,
      `--node-name=${layout.nodeName}`,
    ]);
  });

  // ---- the kubelet, as system:node:<name>
  await step('starting the kubelet and waiting for the node to be Ready', async () => {
    await writeFile(
      dir('etc', 'kubelet.json'),
      kubeletConfig(layout, {
        containerdSocket,
        caFile: pki.ca.certFile,
        servingCert: pki.kubeletServing.certFile,
        servingKey: pki.kubeletServing.keyFile,
        resolvConf: dir('etc', 'resolv.conf'),
        staticPodDir: dir('etc', 'manifests'),
        volumePluginDir: dir('kubelet-plugins'),
        cgroupV1: !cgroupV2(),
      }),
    );
    const kubelet = start('kubelet', binaries.kubelet, [
      `--config=${dir('etc', 'kubelet.json')}`,
      `--kubeconfig=${nodeKubeconfig}`,
      `--root-dir=${dir('kubelet')}`,
      `--cert-dir=${dir('kubelet-pki')}`,
      `--hostname-override=${layout.nodeName}`,
      `--node-ip=${layout.hostAddress}`,
      '--v=1',
    ]);
    await waitFor(kubelet, `node ${layout.nodeName} Ready and untainted`, () =>
      nodeReady(client, layout.nodeName),
    );
  });

  // ---- kube-proxy (nftables): ClusterIPs from the host, and from pods to the API server; it
  // needs its Node object, so it starts once the kubelet has registered it
  await step('starting kube-proxy', async () => {
    const proxyPorts = { healthz: await freePort(), metrics: await freePort() };
    await writeFile(
      dir('etc', 'kube-proxy.json'),
      kubeProxyConfig(layout, adminKubeconfig, proxyPorts),
    );
    const nftDir = join(binaries.nft, '..');
    const kubeProxy = start(
      'kube-proxy',
      binaries.kubeProxy,
      [`--config=${dir('etc', 'kube-proxy.json')}`, '--v=1'],
      { ...process.env, PATH: `${nftDir}:${process.env['PATH'] ?? '/usr/bin:/bin'}` },
    );
    await waitFor(kubeProxy, 'kube-proxy /healthz', async () => {
      return (await probe(`http://127.0.0.1:${proxyPorts.healthz}/healthz`)).status === 200;
    });
  });

  await step('creating the StorageClasses (default, expandable)', () =>
    createStorageClasses(client, layout),
  );

  await publish('ready', {
    message: `node ${layout.nodeName} Ready`,
    server,
    kubeconfigPath: adminKubeconfig,
    nodeKubeconfigPath: nodeKubeconfig,
    containerdSocket,
    startedAt: new Date(t0).toISOString(),
    startMs: Date.now() - t0,
    pids: Object.fromEntries(processes.map((p) => [p.name, p.pid ?? 0])),
  });
  log(`tier ready in ${Date.now() - t0} ms: ${server}`);
}

let stopping: Promise<void> | undefined;

/**
 * Stops the tier: no new pods (controller-manager and scheduler first), the pods torn down by the
 * kubelet (CNI releases addresses, volumes unmount), then every process in reverse start order,
 * then whatever is left on the host.
 */
function stopTier(config: SupervisorConfig, exitCode: number): Promise<void> {
  stopping ??= (async () => {
    if (phase !== 'failed') await publish('stopping', { message: 'stopping' }).catch(() => {});
    log('stopping');
    const byName = (name: string) => processes.find((p) => p.name === name && p.running);
    for (const name of ['kube-controller-manager', 'kube-scheduler', 'provisioner'])
      await byName(name)?.stop(5_000);
    const kubelet = byName('kubelet');
    const containerd = byName('containerd');
    const socket = join(layout.runDir, 'containerd.sock');
    const tasks = async (): Promise<string[]> =>
      (await run(config.binaries.ctr, ['--address', socket, '-n', 'k8s.io', 'tasks', 'ls', '-q']))
        .split('\n')
        .filter(Boolean);
    if (kubelet && byName('kube-apiserver') && containerd && published.kubeconfigPath) {
      const kc = new KubeConfig();
      kc.loadFromFile(published.kubeconfigPath);
      await deleteAllPods(kc).catch((e: unknown) => log(`deleting pods: ${String(e)}`));
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await tasks().catch(() => [])).length) await sleep(250);
    }
    for (const p of [...processes].reverse())
      await p.stop(p.name === 'kube-apiserver' ? 5_000 : 10_000);
    await cleanUpHost({ layout, shim: config.binaries.containerdShim, nft: config.binaries.nft });
    await rm(layout.dataDir, { recursive: true, force: true }).catch(() => {});
    await rm(stateFile(layout), { force: true });
    log(`stopped after ${Date.now() - t0} ms`);
    process.exit(exitCode);
  })();
  return stopping;
}

async function deleteAllPods(kc: KubeConfig): Promise<void> {
  const { CoreV1Api } = await import('@kubernetes/client-node');
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

async function liveLeases(): Promise<number> {
  let live = 0;
  for (const name of await readdir(leaseDir(layout)).catch(() => [] as string[])) {
    const pid = Number(name);
    if (processAlive(pid)) live++;
    else await unlink(join(leaseDir(layout), name)).catch(() => {});
  }
  return live;
}

async function main(): Promise<void> {
  const raw = process.env['STEWARD_NODE_TIER_CONFIG'];
  if (!raw) throw new Error('steward: STEWARD_NODE_TIER_CONFIG is not set');
  const config = JSON.parse(raw) as SupervisorConfig;
  await mkdir(leaseDir(layout), { recursive: true });
  await mkdir(layout.logDir, { recursive: true });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => void stopTier(config, 0));
  await publish('starting', { message: 'starting' });
  await unlink(startLockFile(layout)).catch(() => {});
  try {
    await startTier(config);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`failed: ${message}`);
    await publish('failed', { message: `node tier failed to start: ${message}` });
    // the failure stays readable for the waiting acquirers for a moment, then everything goes
    await sleep(3_000);
    await stopTier(config, 1);
    return;
  }
  await lingerWhileHeld({
    held: async () => (await liveLeases()) > 0,
    stopping: () => stopping !== undefined,
    lingerMs: config.lingerMs,
    idle: async () => {
      log(`no lease for ${config.lingerMs} ms`);
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
