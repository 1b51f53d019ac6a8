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
