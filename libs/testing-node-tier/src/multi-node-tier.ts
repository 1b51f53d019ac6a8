/**
 * `acquireNodeTier({ nodes: 3 })`: the machine's multi-node tier — one control plane, three real
 * nodes in three zones, each in its own network and mount namespaces and cgroup — held by one test
 * process at a time (node faults affect every pod on it), and reset to three Ready, healed,
 * uncordoned nodes each time it is acquired. See docs/multi-node-tier.md.
 */
import { CoreV1Api, KubeConfig, KubernetesObjectApi } from '@kubernetes/client-node';
import { repoRoot } from '@steward/testing';
import { spawn } from 'node:child_process';
import {
  closeSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { localImages, nodeTierBinaries, type NodeTierBinaries } from './binaries.js';
import { cgroupDirs, pidsUnder } from './cgroups.js';
import {
  clearOutOfService,
  control,
  drainNode,
  markOutOfService,
  uncordonNode,
  type DrainOptions,
  type DrainResult,
} from './faults.js';
import { missingPrivileges, NodeTierUnavailableError, processAlive, run } from './host.js';
import {
  multiNodeTierLayout,
  startLockFile,
  stateFile,
  type MultiNodeTierLayout,
  type MultiNodeTierState,
  type MultiSupervisorConfig,
} from './layout.js';
import { defaultLingerMs } from './linger.js';
import { networkLeftovers } from './netns.js';
import type { NodeTier, NodeTierOptions } from './node-tier.js';

export interface MultiNodeTierOptions extends NodeTierOptions {
  nodes: 3;
  /** Run kube-network-policies on every node (NetworkPolicy enforced). Default false. */
  networkPolicy?: boolean;
  /** How long to wait for another test process to give the tier back. Default 30 minutes. */
  holdTimeoutMs?: number;
}

/** A named address on the host: connect from it (`localAddress`) to get through a partition. */
export interface TestClient {
  readonly name: string;
  readonly address: string;
}

export interface TierNode {
  readonly name: string;
  readonly zone: string;
  /** Its InternalIP on the fabric. */
  readonly address: string;
  readonly podCidr: string;
}

/** The multi-node tier, held exclusively. `nodeName` is the first node's. */
export interface MultiNodeTier extends NodeTier {
  readonly layout: MultiNodeTierLayout;
  readonly nodes: readonly TierNode[];
  /**
   * Kubelet SIGKILLed and every process of the node frozen (containers too): a hung machine — it
   * goes NotReady (≈ 10 s), its pods stop answering. `unplug` also takes its link down (a machine
   * powered off: no ARP answer). `waitNotReady` resolves once the API server says so.
   */
  stopNode(node: string, o?: { unplug?: boolean; waitNotReady?: boolean }): Promise<void>;
  /** Thawed, plugged, the kubelet started again (same root dir); resolves once Ready. */
  startNode(node: string): Promise<void>;
  /**
   * Cuts the node off the fabric both ways — API server, other nodes, the host, the gateway —
   * except for the given test clients; its pods keep running and keep talking to each other.
   */
  partitionNode(node: string, o?: { allow?: readonly TestClient[] }): Promise<void>;
  /** Removes the partition; resolves once the node is Ready again. */
  healNode(node: string): Promise<void>;
  /** kubectl's drain: cordon, evict (PDBs honoured, 429 retried), wait until the pods are gone. */
  drainNode(node: string, o?: DrainOptions): Promise<DrainResult>;
  uncordonNode(node: string): Promise<void>;
  /** A test client: an address of its own on the host (same name, same address). */
  testClient(name: string): Promise<TestClient>;
  /** The `node.kubernetes.io/out-of-service` taint (force-deletes a lost node's terminating pods). */
  markOutOfService(node: string): Promise<void>;
}

const holderFileOf = (layout: MultiNodeTierLayout): string => join(layout.runDir, 'holder');

/** Joins (exclusively) or starts the multi-node tier; see `acquireNodeTier`. */
export async function acquireMultiNodeTier(options: MultiNodeTierOptions): Promise<MultiNodeTier> {
  const missing = await missingPrivileges({ multiNode: true });
  if (missing.length) throw new NodeTierUnavailableError(missing);
  const layout = multiNodeTierLayout();
  const binaries = await nodeTierBinaries();
  const { pause } = await localImages('pause');
  mkdirSync(layout.runDir, { recursive: true });
  mkdirSync(layout.logDir, { recursive: true });
  const release = await takeHold(layout, options.holdTimeoutMs ?? 30 * 60_000);
  try {
    const config: MultiSupervisorConfig = {
      binaries,
      sandboxImage: pause!,
      lingerMs: options.lingerMs ?? defaultLingerMs(),
      networkPolicy: options.networkPolicy ?? false,
    };
    let state: MultiNodeTierState;
    for (let attempt = 1; ; attempt++) {
      state = await readyState(layout, config, options.readyTimeoutMs ?? 5 * 60_000);
      try {
        await control(layout.controlSocket, '/reset', { networkPolicy: config.networkPolicy });
        break;
      } catch (error) {
        // a tier being stopped (by a `stop`, or by its earlier holder checking the host) as this
        // process took the hold: wait until it is gone, then start a new one
        const now = await readState(layout);
        if (attempt >= 3 || (now?.pid === state.pid && now.phase === 'ready')) throw error;
        const deadline = Date.now() + 120_000;
        while (processAlive(state.pid) && Date.now() < deadline) await sleep(250);
      }
    }
    const tier = await handle(layout, binaries, state, release);
    // an earlier holder that died may have left the taint
    for (const node of layout.nodes) await clearOutOfService(tier.kubeConfig, node.name);
    await finishTerminatingNamespaces(tier.kubeConfig);
    return tier;
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * The namespaces an earlier holder released are still being deleted (their pods' grace periods,
 * or pods a fault held up): their pods are deleted at once (grace 0), so they cannot get in this
 * holder's way (a drain would wait for them), and this waits up to 60 s for the namespaces to go.
 */
async function finishTerminatingNamespaces(kubeConfig: KubeConfig): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const terminating = (await core.listNamespace()).items
    .filter((ns) => ns.status?.phase === 'Terminating')
    .map((ns) => ns.metadata!.name!);
  if (!terminating.length) return;
  for (const namespace of terminating) {
    const pods = await core.listNamespacedPod({ namespace }).catch(() => ({ items: [] }));
    await Promise.all(
      pods.items.map((pod) =>
        core
          .deleteNamespacedPod({ name: pod.metadata!.name!, namespace, gracePeriodSeconds: 0 })
          .catch(() => undefined),
      ),
    );
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const left = (await core.listNamespace()).items
      .map((ns) => ns.metadata!.name!)
      .filter((name) => terminating.includes(name));
    if (!left.length) return;
    if (Date.now() > deadline) {
      process.stderr.write(
        `node-tier-3: namespaces of an earlier holder still terminating after 60 s: ${left.join(', ')}\n`,
      );
      return;
    }
    await sleep(500);
  }
}

/** The exclusive hold: a `wx` file with this pid; a dead holder's is taken over; a live one waited for. */
async function takeHold(layout: MultiNodeTierLayout, timeoutMs: number): Promise<() => void> {
  const file = holderFileOf(layout);
  const deadline = Date.now() + timeoutMs;
  let said = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const holder = Number(readFileSafe(file));
      if (!holder || !processAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (holder === process.pid)
        throw new Error(
          'steward: this process already holds the multi-node tier (release it first)',
        );
      if (Date.now() > deadline)
        throw new Error(
          `steward: the multi-node tier is held by pid ${holder} (${timeoutMs} ms waited)`,
        );
      if (!said)
        process.stderr.write(
          `node-tier: waiting for pid ${holder} to release the multi-node tier\n`,
        );
      said = true;
      await sleep(1_000);
    }
  }
  const drop = (): void => {
    if (readFileSafe(file).trim() === String(process.pid)) rmSync(file, { force: true });
  };
  process.once('exit', drop);
  return () => {
    process.removeListener('exit', drop);
    drop();
  };
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

async function readState(layout: MultiNodeTierLayout): Promise<MultiNodeTierState | undefined> {
  try {
    const state = JSON.parse(await readFile(stateFile(layout), 'utf8')) as MultiNodeTierState;
    return processAlive(state.pid) ? state : undefined;
  } catch {
    return undefined;
  }
}

async function readyState(
  layout: MultiNodeTierLayout,
  config: MultiSupervisorConfig,
  timeoutMs: number,
): Promise<MultiNodeTierState> {
  const deadline = Date.now() + timeoutMs;
  let lastMessage = '';
  for (;;) {
    const state = await readState(layout);
    if (state?.phase === 'ready') return state;
    if (state?.phase === 'failed')
      throw new Error(
        `${state.message ?? 'steward: multi-node tier failed'}; logs in ${layout.logDir}`,
      );
    if (!state) await startSupervisor(layout, config);
    else if (state.message && state.message !== lastMessage) {
      lastMessage = state.message;
      process.stderr.write(`node-tier-3: ${state.message}\n`);
    }
    if (Date.now() > deadline)
      throw new Error(
        `steward: the multi-node tier was not Ready after ${timeoutMs} ms (last step: ${lastMessage || 'none'}); logs in ${layout.logDir}`,
      );
    await sleep(250);
  }
}

async function startSupervisor(
  layout: MultiNodeTierLayout,
  config: MultiSupervisorConfig,
): Promise<void> {
  const lock = startLockFile(layout);
  try {
    writeFileSync(lock, String(process.pid), { flag: 'wx' });
  } catch {
    const holder = Number(await readFile(lock, 'utf8').catch(() => '0'));
    if (!holder || !processAlive(holder)) await unlink(lock).catch(() => {});
    return;
  }
  const log = openSync(join(layout.logDir, 'supervisor.log'), 'a');
  try {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'supervisor-multi.ts')],
      {
        cwd: repoRoot(),
        detached: true,
        stdio: ['ignore', log, log],
        env: { ...process.env, STEWARD_NODE_TIER_CONFIG: JSON.stringify(config) },
      },
    );
    child.unref();
    writeFileSync(lock, String(child.pid));
  } finally {
    closeSync(log);
  }
  process.stderr.write(`node-tier-3: starting the multi-node tier (logs in ${layout.logDir})\n`);
}

async function handle(
  layout: MultiNodeTierLayout,
  binaries: NodeTierBinaries,
  state: MultiNodeTierState,
  drop: () => void,
): Promise<MultiNodeTier> {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(state.kubeconfigPath!);
  const client = KubernetesObjectApi.makeApiClient(kubeConfig);
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespaces: string[] = [];
  const sockets = state.containerdSockets ?? {};
  const ctr = (socket: string, ...args: string[]): Promise<string> =>
    run(binaries.ctr, ['--address', socket, '--namespace', 'k8s.io', ...args]);
  const nodeName = (node: string): string =>
    layout.nodes.find((n) => n.name === node || n.short === node)?.name ??
    (() => {
      throw new Error(`steward: no node ${node} in the multi-node tier`);
    })();
  const outOfService = new Set<string>();
  let released = false;
  const release = async (): Promise<void> => {
    if (released) return;
    released = true;
    await Promise.all(
      namespaces.map((name) =>
        core.deleteNamespace({ name, propagationPolicy: 'Background' }).catch(() => undefined),
      ),
    );
    for (const node of outOfService)
      await clearOutOfService(kubeConfig, node).catch(() => undefined);
    drop();
  };
  return {
    server: state.server!,
    kubeconfigPath: state.kubeconfigPath!,
    kubeConfig,
    client,
    nodeKubeconfigPath: state.nodeKubeconfigPath!,
    hostAddress: layout.hostAddress,
    nodeName: layout.nodeName,
    storageClass: layout.storageClass,
    expandableStorageClass: layout.expandableStorageClass,
    layout,
    binaries,
    nodes: layout.nodes.map(({ name, zone, address, podCidr }) => ({
      name,
      zone,
      address,
      podCidr,
    })),
    importImage: async (image) => {
      const want = await archiveDigest(image.archive);
      await Promise.all(
        Object.values(sockets).map(async (socket) => {
          const present = (await ctr(socket, 'images', 'ls'))
            .split('\n')
            .map((line) => line.trim().split(/\s+/))
            .find((cols) => cols[0] === image.ref);
          if (present?.[2] !== want) await ctr(socket, 'images', 'import', image.archive);
        }),
      );
    },
    containerTask: async (containerId, action) => {
      const id = containerId.replace(/^containerd:\/\//, '');
      const current = (await readState(layout))?.nodeStates ?? {};
      for (const [node, socket] of Object.entries(sockets)) {
        // a stopped node's containerd is frozen: asking it would hang
        if (current[node] === 'stopped') continue;
        if (!(await ctr(socket, 'tasks', 'ls', '-q')).split('\n').includes(id)) continue;
        if (action === 'kill') await ctr(socket, 'tasks', 'kill', '--signal', 'SIGKILL', id);
        else await ctr(socket, 'tasks', action, id);
        return;
      }
      throw new Error(`steward: no running task ${id} on a node that is not stopped`);
    },
    createNamespace: async (prefix) => {
      const name = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 7)}`.slice(
        0,
        63,
      );
      await core.createNamespace({ body: { metadata: { name } } });
      namespaces.push(name);
      return name;
    },
    stopNode: async (node, o = {}) => {
      await control(layout.controlSocket, '/stop', { node: nodeName(node), ...o });
    },
    startNode: async (node) => {
      await control(layout.controlSocket, '/start', { node: nodeName(node) });
    },
    partitionNode: async (node, o = {}) => {
      await control(layout.controlSocket, '/partition', {
        node: nodeName(node),
        allow: (o.allow ?? []).map((c) => c.address),
      });
    },
    healNode: async (node) => {
      await control(layout.controlSocket, '/heal', { node: nodeName(node) });
    },
    drainNode: (node, o) => drainNode(kubeConfig, client, nodeName(node), o),
    uncordonNode: (node) => uncordonNode(client, nodeName(node)),
    testClient: async (name) => {
      const { address } = await control<{ address: string }>(layout.controlSocket, '/client', {
        name,
      });
      return { name, address };
    },
    markOutOfService: async (node) => {
      outOfService.add(nodeName(node));
      await markOutOfService(kubeConfig, nodeName(node));
    },
    release,
    [Symbol.asyncDispose]: release,
  };
}

/** The manifest digest an OCI image archive's index.json names (what `ctr images ls` shows). */
async function archiveDigest(archive: string): Promise<string | undefined> {
  const index = await run('tar', ['-xOf', archive, '--occurrence=1', 'index.json']);
  return (JSON.parse(index) as { manifests?: { digest?: string }[] }).manifests?.[0]?.digest;
}

/** Stops the multi-node tier now (held or not); resolves once its supervisor has cleaned up and exited. */
export async function stopMultiNodeTier(): Promise<void> {
  const layout = multiNodeTierLayout();
  const state = await readState(layout);
  if (!state) return;
  process.kill(state.pid, 'SIGTERM');
  const deadline = Date.now() + 120_000;
  while (processAlive(state.pid)) {
    if (Date.now() > deadline)
      throw new Error(`steward: the multi-node tier (pid ${state.pid}) did not stop within 120 s`);
    await sleep(250);
  }
}

/**
 * What of the multi-node tier is on the host: processes under its cgroup root (every process of
 * it lives there), its cgroups, namespaces, the host link, mounts under its directories. Empty once
 * it has stopped.
 */
export async function multiNodeLeftovers(): Promise<string[]> {
  const layout = multiNodeTierLayout();
  const found: string[] = [];
  for (const pid of pidsUnder(layout.cgroupRoot)) {
    let exe = '?';
    try {
      exe = readlinkSync(`/proc/${pid}/exe`);
    } catch {
      // gone meanwhile
    }
    found.push(`process ${pid} (${exe})`);
  }
  for (const dir of cgroupDirs(layout.cgroupRoot)) found.push(`cgroup ${dir}`);
  found.push(...(await networkLeftovers(layout)));
  const dirs = [layout.runDir, layout.dataDir, ...layout.nodes.map((n) => n.containerdRoot)];
  for (const m of readFileSync('/proc/self/mounts', 'utf8').split('\n')) {
    const point = m.split(' ')[1] ?? '';
    if (
      dirs.some((d) => point === d || point.startsWith(`${d}/`)) &&
      !found.includes(`mount ${point}`)
    )
      found.push(`mount ${point}`);
  }
  return found;
}
