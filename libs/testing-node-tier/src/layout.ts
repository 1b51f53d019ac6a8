import type { LocalImage, NodeTierBinaries } from './binaries.js';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the machine's one node tier keeps its state, and the host-global names it owns. One tier per
 * machine: the bridge, the kubelet's ports and the `kubepods` cgroups are host-global, so every test
 * process shares the one tier (a namespace each) through leases in `runDir`.
 */
export interface NodeTierLayout {
  /** Sockets, pid and lease files, the tier's state file; wiped when the tier stops. */
  readonly runDir: string;
  /** containerd's image store: kept between runs so a warm start imports nothing. */
  readonly containerdRoot: string;
  /** etcd, kubelet root, PKI, volumes, CNI IPAM: made anew at each start. */
  readonly dataDir: string;
  /** Every component's log, kept after the tier stops for post-mortems. */
  readonly logDir: string;
  readonly nodeName: string;
  readonly bridge: string;
  /** The bridge's address: the node's InternalIP, where pods reach this machine. */
  readonly hostAddress: string;
  readonly podCidr: string;
  readonly serviceCidr: string;
  /** The `kubernetes` Service's ClusterIP (the service range's first address). */
  readonly apiServiceIp: string;
  readonly storageClass: string;
  /** The same volumes on a class with `allowVolumeExpansion` (the provisioner resizes them). */
  readonly expandableStorageClass: string;
  readonly provisionerName: string;
}

/** The layout under `${STEWARD_CACHE:-~/.cache/steward}/node-tier` and `/run/steward-node-tier`. */
export function nodeTierLayout(env: NodeJS.ProcessEnv = process.env): NodeTierLayout {
  const cache = env['STEWARD_CACHE'] ?? join(homedir(), '.cache', 'steward');
  const base = join(cache, 'node-tier');
  return {
    runDir: env['STEWARD_NODE_TIER_RUN_DIR'] ?? '/run/steward-node-tier',
    containerdRoot: join(base, 'containerd'),
    dataDir: join(base, 'data'),
    logDir: join(base, 'logs'),
    nodeName: 'steward-node',
    bridge: 'steward0',
    hostAddress: '10.88.77.1',
    podCidr: '10.88.77.0/24',
    serviceCidr: '10.0.0.0/24',
    apiServiceIp: '10.0.0.1',
    storageClass: 'steward-local',
    expandableStorageClass: 'steward-local-expandable',
    provisionerName: 'steward.dev/local-path',
  };
}

/** What the supervisor publishes in `<runDir>/state.json` for the tests that lease the tier. */
export interface NodeTierState {
  readonly phase: 'starting' | 'ready' | 'failed' | 'stopping';
  /** The supervisor's pid: the tier lives as long as this process. */
  readonly pid: number;
  /** While starting: the step under way; when failed: what failed and where its log is. */
  readonly message?: string;
  /** `https://<hostAddress>:<port>` */
  readonly server?: string;
  /** The admin kubeconfig (system:masters). */
  readonly kubeconfigPath?: string;
  /** The kubelet's own kubeconfig (system:node:<name>, under the Node authorizer). */
  readonly nodeKubeconfigPath?: string;
  readonly containerdSocket?: string;
  readonly startedAt?: string;
  /** Milliseconds from the supervisor's start to a Ready node. */
  readonly startMs?: number;
  /** The components' pids by name (containerd, etcd, kube-apiserver, kubelet, ...), for benchmarks. */
  readonly pids?: Record<string, number>;
}

export const stateFile = (layout: NodeTierLayout): string => join(layout.runDir, 'state.json');
export const leaseDir = (layout: NodeTierLayout): string => join(layout.runDir, 'leases');
export const startLockFile = (layout: NodeTierLayout): string => join(layout.runDir, 'start.lock');

/** What `acquireNodeTier()` hands the supervisor, as JSON in `STEWARD_NODE_TIER_CONFIG`. */
export interface SupervisorConfig {
  binaries: NodeTierBinaries;
  sandboxImage: LocalImage;
  /** How long the tier stays up with no lease, so that suites run one after another share it. */
  lingerMs: number;
}

/** One node of the multi-node tier. */
export interface MultiNode {
  /** `steward-node-a` … */
  readonly name: string;
  /** `a`, `b`, `c`: the suffix of its netns, cgroup and directory names. */
  readonly short: string;
  /** `zone-a` …: its `topology.kubernetes.io/zone` label. */
  readonly zone: string;
  /** Its address on the fabric (InternalIP, kubelet, kube-proxy healthz). */
  readonly address: string;
  /** Its pods' /24; the first address is the node's pod bridge (`cbr0`). */
  readonly podCidr: string;
  readonly podGateway: string;
  /** Its network namespace (`/run/netns/<netns>`). */
  readonly netns: string;
  /** Its cgroup, relative to each hierarchy's root (kubelet's `cgroupRoot`). */
  readonly cgroup: string;
  /** Kubelet root, CNI conf and IPAM, its private /var/log and /var/lib/cni: made anew at each start. */
  readonly dataDir: string;
  /** containerd's state, sockets, runc root, its private /run/containerd. */
  readonly runDir: string;
  /** containerd's image store: kept between runs (each node imports the images it is given). */
  readonly containerdRoot: string;
  /** Its persistent mount namespace (a bind-mounted nsfs file). */
  readonly mountNamespace: string;
}

/**
 * The multi-node tier: a second, separate tier instance (own run and cache dirs, addresses, netns
 * and cgroup names), so it can run next to the machine's single-node tier. Held by one test
 * process at a time (node faults affect every pod on it). See docs/multi-node-tier.md.
 */
export interface MultiNodeTierLayout extends NodeTierLayout {
  readonly nodes: readonly MultiNode[];
  /** The host's end of the fabric (`hostAddress` lives on it, with the test clients' aliases). */
  readonly hostLink: string;
  /** The fabric: node, gateway, host and test-client addresses. */
  readonly fabricCidr: string;
  /** The namespace holding the fabric bridge (pure L2). */
  readonly fabricNetns: string;
  /** The gateway namespace: a kube-proxy that gives the host the ClusterIPs (never faulted). */
  readonly gatewayNetns: string;
  readonly gatewayAddress: string;
  /** Test clients: /32 aliases on `hostLink`, from this range (`testClient()`). */
  readonly testClientAddresses: readonly string[];
  /** Every node daemon, container and the shared processes live under this cgroup. */
  readonly cgroupRoot: string;
  /** The supervisor's control socket (HTTP over a unix socket: stop/start/partition/heal/...). */
  readonly controlSocket: string;
}

/** The multi-node layout under `${STEWARD_CACHE:-~/.cache/steward}/node-tier-3` and `/run/steward-node-tier-3`. */
export function multiNodeTierLayout(env: NodeJS.ProcessEnv = process.env): MultiNodeTierLayout {
  const cache = env['STEWARD_CACHE'] ?? join(homedir(), '.cache', 'steward');
  const base = join(cache, 'node-tier-3');
  const runDir = env['STEWARD_MULTI_NODE_TIER_RUN_DIR'] ?? '/run/steward-node-tier-3';
  const dataDir = join(base, 'data');
  const cgroupRoot = 'steward-node-tier-3';
  const nodes = ['a', 'b', 'c'].map((short, i): MultiNode => {
    const subnet = `10.89.${i + 1}`;
    return {
      name: `steward-node-${short}`,
      short,
      zone: `zone-${short}`,
      address: `10.88.76.${11 + i}`,
      podCidr: `${subnet}.0/24`,
      podGateway: `${subnet}.1`,
      netns: `stwm-${short}`,
      cgroup: `${cgroupRoot}/${short}`,
      dataDir: join(dataDir, 'nodes', short),
      runDir: join(runDir, 'nodes', short),
      containerdRoot: join(base, `containerd-${short}`),
      mountNamespace: join(runDir, 'ns', `${short}.mnt`),
    };
  });
  return {
    runDir,
    containerdRoot: nodes[0]!.containerdRoot,
    dataDir,
    logDir: join(base, 'logs'),
    nodeName: nodes[0]!.name,
    bridge: 'stwm0',
    hostAddress: '10.88.76.1',
    podCidr: '10.89.0.0/16',
    serviceCidr: '10.96.0.0/24',
    apiServiceIp: '10.96.0.1',
    storageClass: 'steward-local',
    expandableStorageClass: 'steward-local-expandable',
    provisionerName: 'steward.dev/local-path',
    nodes,
    hostLink: 'stwm0',
    fabricCidr: '10.88.76.0/24',
    fabricNetns: 'stwm-fabric',
    gatewayNetns: 'stwm-gw',
    gatewayAddress: '10.88.76.2',
    testClientAddresses: Array.from({ length: 20 }, (_, i) => `10.88.76.${201 + i}`),
    cgroupRoot,
    controlSocket: join(runDir, 'control.sock'),
  };
}

/** The node states the multi-node supervisor records (and `reset` returns to `ready`). */
export type MultiNodeState = 'ready' | 'stopped' | 'partitioned';

/** What the multi-node supervisor publishes in `<runDir>/state.json`, on top of the single tier's. */
export interface MultiNodeTierState extends NodeTierState {
  /** containerd socket per node name. */
  readonly containerdSockets?: Record<string, string>;
  readonly nodeStates?: Record<string, MultiNodeState>;
  /** The pid of the test process holding the tier (exclusive). */
  readonly holder?: number;
  readonly networkPolicy?: boolean;
}

/** What `acquireNodeTier({ nodes: 3 })` hands the multi-node supervisor. */
export interface MultiSupervisorConfig extends SupervisorConfig {
  /** Run kube-network-policies on every node. */
  networkPolicy: boolean;
}
