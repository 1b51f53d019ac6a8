/**
 * The node tier's supervisor: one process per machine that starts the control plane and a Ready
 * node, publishes them in `<runDir>/state.json`, and stops everything — leaving nothing on the
 * host — once no live test process holds a lease for `lingerMs`, or on SIGTERM/SIGINT. Started
 * detached by `acquireNodeTier()`; never imported by tests.
 *
 * Its children are ManagedProcesses: if the supervisor itself is killed outright, their watchdogs end
 * them, and the next supervisor's first step removes whatever they left on the host.
 */
import { KubeConfig, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import {
  freePort,
  ManagedProcess,
  mintCertificate,
  mintCertificateAuthority,
  mintServiceAccountKey,
  probeHttp as probe,
  readPem,
  type TlsMaterial,
} from '@steward/testing';
import { mkdir, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  resolvConf,
} from './configs.js';
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

async function waitFor(
  what: ManagedProcess | undefined,
  description: string,
  check: () => Promise<boolean>,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (what && !what.running)
      throw new Error(
        `${what.name} exited while starting; log ${what.logFile}:\n${what.logTail()}`,
      );
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${description}` +
          (what ? `; log ${what.logFile}:\n${what.logTail()}` : ''),
      );
    await sleep(200);
  }
}

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
    const ca = await mintCertificateAuthority(dir('pki'));
    const serving = await mintCertificate(ca, {
      name: 'apiserver',
      commonName: 'kube-apiserver',
      subjectAltNames: [
        `IP:${layout.hostAddress}`,
        `IP:${layout.apiServiceIp}`,
        'IP:127.0.0.1',
        'DNS:localhost',
        'DNS:kubernetes',
        'DNS:kubernetes.default',
        'DNS:kubernetes.default.svc',
      ],
    });
    const admin = await mintCertificate(ca, {
      name: 'admin',
      commonName: 'steward-admin',
      organizations: ['system:masters'],
    });
    // the Node authorizer and NodeRestriction key off exactly these names
    const node = await mintCertificate(ca, {
      name: 'node',
      commonName: `system:node:${layout.nodeName}`,
      organizations: ['system:nodes'],
    });
    const kubeletServing = await mintCertificate(ca, {
      name: 'kubelet-serving',
      commonName: layout.nodeName,
      subjectAltNames: [`IP:${layout.hostAddress}`, `DNS:${layout.nodeName}`],
    });
    const saKey = await mintServiceAccountKey(dir('pki'));
    return { ca, serving, admin, node, kubeletServing, saKey };
  });
  const adminTls: TlsMaterial = {
    ca: await readPem(pki.ca.certFile),
    cert: await readPem(pki.admin.certFile),
    key: await readPem(pki.admin.keyFile),
  };

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
  const etcdPort = await freePort();
  const etcdUrl = `http://127.0.0.1:${etcdPort}`;
  await step('starting etcd', async () => {
    const peer = `http://127.0.0.1:${await freePort()}`;
    const etcd = start('etcd', binaries.etcd, [
      '--name=steward-node-tier',
      `--data-dir=${dir('etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=steward-node-tier=${peer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ]);
    await waitFor(etcd, 'etcd /health', async () => {
      const { status, body } = await probe(`${etcdUrl}/health`);
      return status === 200 && /"health":\s*"true"/.test(body);
    });
  });
  const apiPort = await freePort();
  const server = `https://${layout.hostAddress}:${apiPort}`;
  await step('starting kube-apiserver', async () => {
    const apiserver = start('kube-apiserver', binaries.kubeApiserver, [
      `--etcd-servers=${etcdUrl}`,
      `--cert-dir=${dir('apiserver-certs')}`,
      `--tls-cert-file=${pki.serving.certFile}`,
      `--tls-private-key-file=${pki.serving.keyFile}`,
      `--client-ca-file=${pki.ca.certFile}`,
      `--secure-port=${apiPort}`,
      `--bind-address=${layout.hostAddress}`,
      `--advertise-address=${layout.hostAddress}`,
      `--service-cluster-ip-range=${layout.serviceCidr}`,
      '--allow-privileged=true',
      '--authorization-mode=Node,RBAC',
      // ServiceAccount admission stays on (the default): chart pods get real, bound tokens.
      // OwnerReferencesPermissionEnforcement as OpenShift has it: a controller pod may set
      // blockOwnerDeletion only with `update` on the owner's finalizers subresource.
      '--enable-admission-plugins=NodeRestriction,OwnerReferencesPermissionEnforcement',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${pki.saKey}`,
      `--service-account-signing-key-file=${pki.saKey}`,
      `--kubelet-client-certificate=${pki.admin.certFile}`,
      `--kubelet-client-key=${pki.admin.keyFile}`,
      `--kubelet-certificate-authority=${pki.ca.certFile}`,
      '--kubelet-preferred-address-types=InternalIP',
      '--v=1',
    ]);
    await waitFor(apiserver, 'kube-apiserver /readyz', async () => {
      return (await probe(`${server}/readyz`, adminTls)).status === 200;
    });
  });

  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const kubeconfig = async (file: string, user: string, cert: string, key: string) => {
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        {
          name: 'steward-node-tier',
          cluster: { server, 'certificate-authority-data': b64(adminTls.ca!) },
        },
      ],
      users: [
        {
          name: user,
          user: {
            'client-certificate-data': b64(await readPem(cert)),
            'client-key-data': b64(await readPem(key)),
          },
        },
      ],
      contexts: [{ name: 'steward-node-tier', context: { cluster: 'steward-node-tier', user } }],
      'current-context': 'steward-node-tier',
    });
    await writeFile(file, text, { mode: 0o600 });
    return file;
  };
  const adminKubeconfig = await kubeconfig(
    join(layout.runDir, 'admin.kubeconfig'),
    'steward-admin',
    pki.admin.certFile,
    pki.admin.keyFile,
  );
  const nodeKubeconfig = await kubeconfig(
    join(layout.runDir, 'node.kubeconfig'),
    `system:node:${layout.nodeName}`,
    pki.node.certFile,
    pki.node.keyFile,
  );
  const kc = new KubeConfig();
  kc.loadFromFile(adminKubeconfig);
  const client = KubernetesObjectApi.makeApiClient(kc);

  // ---- the workload controllers, the scheduler, kube-proxy, the volume provisioner
  await step('starting kube-controller-manager, kube-scheduler, provisioner', async () => {
    start('kube-controller-manager', binaries.kubeControllerManager, [
      `--kubeconfig=${adminKubeconfig}`,
      '--leader-elect=false',
      '--secure-port=0',
      `--controllers=${kubeControllers.join(',')}`,
      `--service-account-private-key-file=${pki.saKey}`,
      `--root-ca-file=${pki.ca.certFile}`,
      '--concurrent-gc-syncs=5',
      '--v=1',
    ]);
    start('kube-scheduler', binaries.kubeScheduler, [
      `--kubeconfig=${adminKubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
      '--v=1',
    ]);
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
    await waitFor(kubelet, `node ${layout.nodeName} Ready and untainted`, async () => {
      const node = (await client.read({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: layout.nodeName },
      })) as KubernetesObject & {
        spec?: { taints?: unknown[] };
        status?: { conditions?: { type: string; status: string }[] };
      };
      const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
      return ready && !node.spec?.taints?.length;
    });
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

  await step('creating the StorageClasses (default, expandable)', async () => {
    const classes = [
      { name: layout.storageClass, isDefault: true, allowVolumeExpansion: false },
      { name: layout.expandableStorageClass, isDefault: false, allowVolumeExpansion: true },
    ];
    for (const { name, isDefault, allowVolumeExpansion } of classes)
      await client.create({
        apiVersion: 'storage.k8s.io/v1',
        kind: 'StorageClass',
        metadata: {
          name,
          ...(isDefault
            ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } }
            : {}),
        },
        provisioner: layout.provisionerName,
        volumeBindingMode: 'WaitForFirstConsumer',
        reclaimPolicy: 'Delete',
        ...(allowVolumeExpansion ? { allowVolumeExpansion } : {}),
      } as KubernetesObject);
    // the default ServiceAccount of `default` appears once the controller-manager has started
    await waitFor(undefined, 'the default ServiceAccount', async () => {
      await client.read({
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: 'default', namespace: 'default' },
      });
      return true;
    });
  });

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

/** The kube-controller-manager controllers a chart's workloads need (and nothing that needs a cloud). */
const kubeControllers = [
  'statefulset-controller',
  'replicaset-controller',
  'deployment-controller',
  'job-controller',
  'cronjob-controller',
  'ttl-after-finished-controller',
  'disruption-controller',
  'garbage-collector-controller',
  'namespace-controller',
  'endpoints-controller',
  'endpointslice-controller',
  'endpointslice-mirroring-controller',
  'persistentvolume-binder-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
  'pod-garbage-collector-controller',
  'node-lifecycle-controller',
  'serviceaccount-controller',
  'serviceaccount-token-controller',
  'root-ca-certificate-publisher-controller',
];

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
  let idleSince: number | undefined;
  for (;;) {
    await sleep(1_000);
    if (stopping) return;
    if ((await liveLeases()) > 0) {
      idleSince = undefined;
      continue;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince >= config.lingerMs) {
      log(`no lease for ${config.lingerMs} ms`);
      await stopTier(config, 0);
      return;
    }
  }
}

await main().catch((error: unknown) => {
  log(
    `supervisor error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
  );
  process.exit(1);
});
