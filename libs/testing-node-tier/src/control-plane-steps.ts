/**
 * The control-plane steps both supervisors run (the single-node tier's and the multi-node tier's):
 * certificates, etcd, kube-apiserver, kubeconfigs, kube-controller-manager, kube-scheduler, the
 * StorageClasses. Each takes what differs between the tiers (addresses, directories, extra flags)
 * as arguments; the processes are started through the caller's `Starter`, which owns them.
 */
import type { KubernetesObject, KubernetesObjectApi } from '@kubernetes/client-node';
import {
  freePort,
  mintCertificate,
  mintCertificateAuthority,
  mintServiceAccountKey,
  probeHttp as probe,
  readPem,
  type ManagedProcess,
  type TlsMaterial,
} from '@steward/testing';
import { writeFile } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NodeTierBinaries } from './binaries.js';
import type { NodeTierLayout } from './layout.js';

/** Starts and tracks the tier's processes (the supervisor's own list: stopped in reverse order). */
export interface Starter {
  start(name: string, command: string, args: string[], env?: NodeJS.ProcessEnv): ManagedProcess;
}

/** Polls `check` every 200 ms until it is true; fails early, with its log, if `what` exits. */
export async function waitFor(
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

type Minted = Awaited<ReturnType<typeof mintCertificate>>;
type Authority = Awaited<ReturnType<typeof mintCertificateAuthority>>;

export interface ControlPlanePki {
  ca: Authority;
  serving: Minted;
  admin: Minted;
  saKey: string;
}

/** The CA, the API server's serving certificate (on the host address and the `kubernetes` ClusterIP), an admin (system:masters), the service-account key. */
export async function mintControlPlanePki(
  pkiDir: string,
  layout: Pick<NodeTierLayout, 'hostAddress' | 'apiServiceIp'>,
): Promise<ControlPlanePki> {
  const ca = await mintCertificateAuthority(pkiDir);
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
  const saKey = await mintServiceAccountKey(pkiDir);
  return { ca, serving, admin, saKey };
}

/** A node's identity (system:node:<name> in system:nodes: what the Node authorizer and NodeRestriction key off) and its kubelet's serving certificate. */
export async function mintNodeIdentity(
  ca: Authority,
  nodeName: string,
  address: string,
  fileName = 'node',
): Promise<{ node: Minted; kubeletServing: Minted }> {
  const node = await mintCertificate(ca, {
    name: fileName,
    commonName: `system:node:${nodeName}`,
    organizations: ['system:nodes'],
  });
  const kubeletServing = await mintCertificate(ca, {
    name: fileName === 'node' ? 'kubelet-serving' : `${fileName}-serving`,
    commonName: nodeName,
    subjectAltNames: [`IP:${address}`, `DNS:${nodeName}`],
  });
  return { node, kubeletServing };
}

export async function adminTlsOf(pki: ControlPlanePki): Promise<TlsMaterial> {
  return {
    ca: await readPem(pki.ca.certFile),
    cert: await readPem(pki.admin.certFile),
    key: await readPem(pki.admin.keyFile),
  };
}

/** etcd on free loopback ports; resolves with its client URL once healthy. */
export async function startEtcd(
  starter: Starter,
  binaries: NodeTierBinaries,
  dataDir: string,
): Promise<string> {
  const etcdUrl = `http://127.0.0.1:${await freePort()}`;
  const peer = `http://127.0.0.1:${await freePort()}`;
  const etcd = starter.start('etcd', binaries.etcd, [
    '--name=steward-node-tier',
    `--data-dir=${dataDir}`,
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
  return etcdUrl;
}

/** kube-apiserver on the host address (never 0.0.0.0); resolves with its URL once ready. */
export async function startApiserver(
  starter: Starter,
  binaries: NodeTierBinaries,
  o: {
    layout: Pick<NodeTierLayout, 'hostAddress' | 'serviceCidr'>;
    etcdUrl: string;
    certDir: string;
    pki: ControlPlanePki;
    adminTls: TlsMaterial;
    extraArgs?: string[];
  },
): Promise<string> {
  const { layout, pki } = o;
  const apiPort = await freePort();
  const server = `https://${layout.hostAddress}:${apiPort}`;
  const apiserver = starter.start('kube-apiserver', binaries.kubeApiserver, [
    `--etcd-servers=${o.etcdUrl}`,
    `--cert-dir=${o.certDir}`,
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
    ...(o.extraArgs ?? []),
  ]);
  await waitFor(apiserver, 'kube-apiserver /readyz', async () => {
    return (await probe(`${server}/readyz`, o.adminTls)).status === 200;
  });
  return server;
}

/** Writes a kubeconfig with embedded client certificate; returns its path. */
export async function writeKubeconfig(
  file: string,
  o: { server: string; caPem: string; user: string; certFile: string; keyFile: string },
): Promise<string> {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const text = JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'steward-node-tier',
        cluster: { server: o.server, 'certificate-authority-data': b64(o.caPem) },
      },
    ],
    users: [
      {
        name: o.user,
        user: {
          'client-certificate-data': b64(await readPem(o.certFile)),
          'client-key-data': b64(await readPem(o.keyFile)),
        },
      },
    ],
    contexts: [
      { name: 'steward-node-tier', context: { cluster: 'steward-node-tier', user: o.user } },
    ],
    'current-context': 'steward-node-tier',
  });
  await writeFile(file, text, { mode: 0o600 });
  return file;
}

/** The kube-controller-manager controllers a chart's workloads need (and nothing that needs a cloud). */
export const kubeControllers = [
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

export async function startControllerManager(
  starter: Starter,
  binaries: NodeTierBinaries,
  o: {
    kubeconfig: string;
    pki: ControlPlanePki;
    controllers?: string[];
    extraArgs?: string[];
  },
): Promise<ManagedProcess> {
  return starter.start('kube-controller-manager', binaries.kubeControllerManager, [
    `--kubeconfig=${o.kubeconfig}`,
    '--leader-elect=false',
    '--secure-port=0',
    `--controllers=${(o.controllers ?? kubeControllers).join(',')}`,
    `--service-account-private-key-file=${o.pki.saKey}`,
    `--root-ca-file=${o.pki.ca.certFile}`,
    '--concurrent-gc-syncs=5',
    '--v=1',
    ...(o.extraArgs ?? []),
  ]);
}

export async function startScheduler(
  starter: Starter,
  binaries: NodeTierBinaries,
  kubeconfig: string,
): Promise<ManagedProcess> {
  return starter.start('kube-scheduler', binaries.kubeScheduler, [
    `--kubeconfig=${kubeconfig}`,
    '--leader-elect=false',
    '--bind-address=127.0.0.1',
    `--secure-port=${await freePort()}`,
    '--v=1',
  ]);
}

/** The default StorageClass and an expandable one (the provisioner's), then waits for `default/default`'s ServiceAccount. */
export async function createStorageClasses(
  client: KubernetesObjectApi,
  layout: Pick<NodeTierLayout, 'storageClass' | 'expandableStorageClass' | 'provisionerName'>,
): Promise<void> {
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
}

/** Whether the node is Ready (and, with `untainted`, has no taints). */
export async function nodeReady(
  client: KubernetesObjectApi,
  name: string,
  untainted = true,
): Promise<boolean> {
  const node = (await client.read({
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
  })) as KubernetesObject & {
    spec?: { taints?: unknown[] };
    status?: { conditions?: { type: string; status: string }[] };
  };
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
  return ready && (!untainted || !node.spec?.taints?.length);
}
