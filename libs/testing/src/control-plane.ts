import { KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { controlPlaneBinaries, type ControlPlaneBinaries } from './binaries.js';
import {
  mintCertificate,
  mintCertificateAuthority,
  mintServiceAccountKey,
  readPem,
  type CertificateAuthority,
} from './certificates.js';
import { installCRDs, type InstalledCRD } from './crds.js';
import { freePort } from './free-port.js';
import { probe, type TlsMaterial } from './https-probe.js';
import { ManagedProcess } from './managed-process.js';

export interface ControlPlaneOptions {
  /**
   * CRD files or directories of them, installed and Established before `startControlPlane`
   * returns — and before the controller-manager starts, so its garbage collector knows the kinds
   * at once instead of after its 30 s discovery refresh.
   */
  crds?: string[];
  /**
   * Also run kube-controller-manager with the garbage-collector and namespace controllers, so
   * ownerReference cascades and namespace deletion behave as in a real cluster. Default false.
   */
  controllerManager?: boolean;
  /** Keep the temporary directory (data, certificates, logs) after `stop()`. Default false. */
  keepDataDir?: boolean;
  /** How long to wait for each component to become ready. Default 120 s. */
  readyTimeoutMs?: number;
  /**
   * Extra kube-apiserver flags, e.g. `--watch-cache=false` and `--etcd-compaction-interval=2s`
   * so that a watch from an old resourceVersion meets a real 410 Gone.
   */
  apiServerArgs?: string[];
}

/** A running etcd + kube-apiserver (+ kube-controller-manager) on loopback, owned by one test suite. */
export interface ControlPlane {
  /** `https://127.0.0.1:<port>` */
  readonly server: string;
  /** A kubeconfig file for the admin user (group system:masters). */
  readonly kubeconfigPath: string;
  /** The admin user's KubeConfig, loaded from `kubeconfigPath`. */
  readonly kubeConfig: KubeConfig;
  /** A ready generic client for any kind, as the admin user. */
  readonly client: KubernetesObjectApi;
  /** Temporary directory with etcd data, certificates and the components' logs. */
  readonly dataDir: string;
  readonly binaries: ControlPlaneBinaries;
  /**
   * A KubeConfig for another user, authenticated by a client certificate signed by this control
   * plane's CA; what the user may do is decided by RBAC alone.
   */
  kubeConfigFor(user: { name: string; groups?: string[] }): Promise<KubeConfig>;
  /** Installs CRDs after start; resolves when they are Established. */
  installCRDs(...paths: string[]): Promise<InstalledCRD[]>;
  /**
   * Stops kube-apiserver alone (etcd keeps the data); clients see connection errors until
   * `startApiServer()` brings it back on the same port. For fault-injection tests. By default it
   * is killed at once, like a crash; `graceMs` gives it that long to shut down after SIGTERM.
   */
  stopApiServer(options?: { graceMs?: number }): Promise<void>;
  /** Starts kube-apiserver again after `stopApiServer()`; resolves when `/readyz` answers 200. */
  startApiServer(): Promise<void>;
  /** `stopApiServer()` then `startApiServer()`. */
  restartApiServer(): Promise<void>;
  /** Stops every process (controller-manager, API server, etcd) and removes the data directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

const maxStartAttempts = 3;

/**
 * Starts a real control plane as plain processes on free loopback ports, with freshly minted
 * certificates, RBAC authorization and the OwnerReferencesPermissionEnforcement admission plugin
 * (as OpenShift runs it), and returns once `/readyz` answers 200. Two suites can run
 * side by side; nothing outlives `stop()`, the test process, or a SIGINT.
 */
export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const binaries = await controlPlaneBinaries();
  const readyTimeoutMs = options.readyTimeoutMs ?? 120_000;
  const dataDir = await mkdtemp(join(tmpdir(), 'steward-cp-'));
  const processes: ManagedProcess[] = [];
  const stopAll = async (): Promise<void> => {
    for (const p of [...processes].reverse()) await p.stop();
    processes.length = 0;
  };

  try {
    const ca = await mintCertificateAuthority(dataDir);
    const serving = await mintCertificate(ca, {
      name: 'apiserver',
      commonName: 'kube-apiserver',
      subjectAltNames: ['IP:127.0.0.1', 'DNS:localhost'],
    });
    const admin = await mintCertificate(ca, {
      name: 'admin',
      commonName: 'steward-admin',
      organizations: ['system:masters'],
    });
    const saKey = await mintServiceAccountKey(dataDir);
    const adminTls: TlsMaterial = {
      ca: await readPem(ca.certFile),
      cert: await readPem(admin.certFile),
      key: await readPem(admin.keyFile),
    };

    let server = '';
    let apiServerConfig: Parameters<typeof startApiServer>[4] | undefined;
    for (let attempt = 1; ; attempt++) {
      try {
        const etcdUrl = await startEtcd(binaries, dataDir, processes, readyTimeoutMs);
        apiServerConfig = {
          etcdUrl,
          caFile: ca.certFile,
          serving,
          saKey,
          adminTls,
          extraArgs: options.apiServerArgs ?? [],
        };
        server = await startApiServer(
          binaries,
          dataDir,
          processes,
          readyTimeoutMs,
          apiServerConfig,
        );
        break;
      } catch (error) {
        await stopAll();
        if (!(error instanceof PortInUseError) || attempt >= maxStartAttempts) throw error;
      }
    }

    const kubeconfigPath = join(dataDir, 'kubeconfig');
    await writeFile(kubeconfigPath, kubeconfigYaml(server, adminTls, 'steward-admin'), {
      mode: 0o600,
    });
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(kubeconfigPath);
    const client = KubernetesObjectApi.makeApiClient(kubeConfig);

    if (options.crds?.length) await installCRDs(kubeConfig, ...options.crds);

    if (options.controllerManager) {
      processes.push(
        ManagedProcess.start(
          'kube-controller-manager',
          binaries.kubeControllerManager,
          [
            `--kubeconfig=${kubeconfigPath}`,
            '--leader-elect=false',
            '--secure-port=0',
            '--controllers=garbage-collector-controller,namespace-controller',
            '--concurrent-gc-syncs=5',
            '--v=1',
          ],
          join(dataDir, 'kube-controller-manager.log'),
        ),
      );
    }

    const apiServerPort = Number(new URL(server).port);
    const stopApiServer = async (options: { graceMs?: number } = {}): Promise<void> => {
      const apiserver = processes.find((p) => p.name === 'kube-apiserver' && p.running);
      if (!apiserver) return;
      await apiserver.stop(options.graceMs ?? 0);
      processes.splice(processes.indexOf(apiserver), 1);
    };
    const startApiServerAgain = async (): Promise<void> => {
      if (processes.some((p) => p.name === 'kube-apiserver' && p.running)) return;
      await startApiServer(
        binaries,
        dataDir,
        processes,
        readyTimeoutMs,
        apiServerConfig!,
        apiServerPort,
      );
    };

    let stopped = false;
    const stop = async (): Promise<void> => {
      if (stopped) return;
      stopped = true;
      await stopAll();
      if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    };

    return {
      server,
      kubeconfigPath,
      kubeConfig,
      client,
      dataDir,
      binaries,
      kubeConfigFor: (user) => userKubeConfig(ca, server, user),
      installCRDs: (...paths) => installCRDs(kubeConfig, ...paths),
      stopApiServer,
      startApiServer: startApiServerAgain,
      restartApiServer: async () => {
        await stopApiServer();
        await startApiServerAgain();
      },
      stop,
      [Symbol.asyncDispose]: stop,
    };
  } catch (error) {
    await stopAll();
    if (!options.keepDataDir) await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

class PortInUseError extends Error {}

function failedToStart(process: ManagedProcess, reason: string): Error {
  const tail = process.logTail();
  const message = `steward: ${process.name} ${reason}; log ${process.logFile}:\n${tail}`;
  return /address already in use/i.test(tail) ? new PortInUseError(message) : new Error(message);
}

async function waitReady(
  process: ManagedProcess,
  timeoutMs: number,
  check: () => Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!process.running) throw failedToStart(process, 'exited during start-up');
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw failedToStart(process, `was not ready after ${timeoutMs} ms`);
    await sleep(100);
  }
}

async function startEtcd(
  binaries: ControlPlaneBinaries,
  dataDir: string,
  processes: ManagedProcess[],
  timeoutMs: number,
): Promise<string> {
  const clientPort = await freePort();
  const peerPort = await freePort();
  const clientUrl = `http://127.0.0.1:${clientPort}`;
  const peerUrl = `http://127.0.0.1:${peerPort}`;
  const etcd = ManagedProcess.start(
    'etcd',
    binaries.etcd,
    [
      `--name=steward`,
      `--data-dir=${join(dataDir, `etcd-${clientPort}`)}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=steward=${peerUrl}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ],
    join(dataDir, 'etcd.log'),
  );
  processes.push(etcd);
  await waitReady(etcd, timeoutMs, async () => {
    const { status, body } = await probe(`${clientUrl}/health`);
    return status === 200 && /"health":\s*"true"/.test(body);
  });
  return clientUrl;
}

async function startApiServer(
  binaries: ControlPlaneBinaries,
  dataDir: string,
  processes: ManagedProcess[],
  timeoutMs: number,
  config: {
    etcdUrl: string;
    caFile: string;
    serving: { certFile: string; keyFile: string };
    saKey: string;
    adminTls: TlsMaterial;
    extraArgs?: string[];
  },
  fixedPort?: number,
): Promise<string> {
  const port = fixedPort ?? (await freePort());
  const server = `https://127.0.0.1:${port}`;
  const apiserver = ManagedProcess.start(
    'kube-apiserver',
    binaries.kubeApiserver,
    [
      `--etcd-servers=${config.etcdUrl}`,
      `--cert-dir=${join(dataDir, 'apiserver-certs')}`,
      `--tls-cert-file=${config.serving.certFile}`,
      `--tls-private-key-file=${config.serving.keyFile}`,
      `--client-ca-file=${config.caFile}`,
      `--secure-port=${port}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      // OpenShift's default: setting blockOwnerDeletion on an ownerReference needs `update` on the
      // owner's finalizers subresource, and changing ownerReferences needs `delete` on the object,
      // so the charts' RBAC is proven with it on.
      '--enable-admission-plugins=OwnerReferencesPermissionEnforcement',
      '--authorization-mode=RBAC',
      `--service-account-issuer=${server}/`,
      `--service-account-key-file=${config.saKey}`,
      `--service-account-signing-key-file=${config.saKey}`,
      '--v=1',
      ...(config.extraArgs ?? []),
    ],
    join(dataDir, 'kube-apiserver.log'),
  );
  processes.push(apiserver);
  await waitReady(apiserver, timeoutMs, async () => {
    const { status } = await probe(`${server}/readyz`, config.adminTls);
    return status === 200;
  });
  return server;
}

async function userKubeConfig(
  ca: CertificateAuthority,
  server: string,
  user: { name: string; groups?: string[] },
): Promise<KubeConfig> {
  const pair = await mintCertificate(ca, {
    name: `user-${user.name.replace(/[^a-zA-Z0-9_.-]/g, '_')}-${Date.now()}`,
    commonName: user.name,
    organizations: user.groups ?? [],
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(
    kubeconfigYaml(
      server,
      {
        ca: await readPem(ca.certFile),
        cert: await readPem(pair.certFile),
        key: await readPem(pair.keyFile),
      },
      user.name,
    ),
  );
  return kubeConfig;
}

function kubeconfigYaml(server: string, tls: TlsMaterial, user: string): string {
  const b64 = (s: string | undefined): string => Buffer.from(s ?? '').toString('base64');
  return JSON.stringify(
    {
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [
        { name: 'steward', cluster: { server, 'certificate-authority-data': b64(tls.ca) } },
      ],
      users: [
        {
          name: user,
          user: { 'client-certificate-data': b64(tls.cert), 'client-key-data': b64(tls.key) },
        },
      ],
      contexts: [{ name: 'steward', context: { cluster: 'steward', user, namespace: 'default' } }],
      'current-context': 'steward',
    },
    null,
    2,
  );
}
