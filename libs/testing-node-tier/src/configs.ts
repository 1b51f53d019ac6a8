/**
 * The node components' configuration files, as pure functions of the layout and paths, so that
 * each setting carries the reason it is there.
 */
import type { MultiNode, MultiNodeTierLayout, NodeTierLayout } from './layout.js';

export interface ContainerdPaths {
  root: string;
  state: string;
  socket: string;
  runc: string;
  runcRoot: string;
  cniBinDir: string;
  cniConfDir: string;
  sandboxImage: string;
}

export function containerdConfig(p: ContainerdPaths): string {
  const q = (s: string): string => `'${s}'`;
  return `version = 3
root = ${q(p.root)}
state = ${q(p.state)}
[grpc]
  address = ${q(p.socket)}
[ttrpc]
  address = ${q(`${p.socket}.ttrpc`)}
[plugins]
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    # no registry: the sandbox image is our own, imported and pinned so image GC never drops it
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = ${q(p.sandboxImage)}
  [plugins.'io.containerd.cri.v1.runtime']
    disable_apparmor = true
    # machines without CAP_SYS_RESOURCE: without this, runc fails every sandbox with
    # "nsexec: failed to update /proc/self/oom_score_adj: Permission denied"
    restrict_oom_score_adj = true
    # pod network namespaces are bind-mounted under state, not /var/run/netns
    netns_mounts_under_state_dir = true
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = ${q(p.runc)}
          Root = ${q(p.runcRoot)}
          SystemdCgroup = false
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = [${q(p.cniBinDir)}]
      conf_dir = ${q(p.cniConfDir)}
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = '127.0.0.1'
  [plugins.'io.containerd.nri.v1.nri']
    disable = true
`;
}

/**
 * A bridge with host-local IPAM: `isGateway: false` and `ipMasq: false` keep the plugin from turning
 * on forwarding or NAT, so pods reach this machine and each other and nothing else. The service
 * range is routed via the host so pods reach ClusterIPs whose endpoint is the host (the API server).
 */
export function cniConfig(layout: NodeTierLayout, ipamDir: string): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'steward',
      plugins: [
        {
          type: 'bridge',
          bridge: layout.bridge,
          isGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: layout.podCidr, gateway: layout.hostAddress }]],
            routes: [{ dst: layout.serviceCidr, gw: layout.hostAddress }],
            dataDir: ipamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}

export interface KubeletPaths {
  containerdSocket: string;
  caFile: string;
  servingCert: string;
  servingKey: string;
  resolvConf: string;
  staticPodDir: string;
  volumePluginDir: string;
  cgroupV1: boolean;
}

export function kubeletConfig(layout: NodeTierLayout, p: KubeletPaths): string {
  return JSON.stringify(
    {
      apiVersion: 'kubelet.config.k8s.io/v1beta1',
      kind: 'KubeletConfiguration',
      // kubelet >= 1.35 refuses cgroup v1 hosts unless told otherwise
      ...(p.cgroupV1 ? { failCgroupV1: false } : {}),
      cgroupDriver: 'cgroupfs',
      containerRuntimeEndpoint: `unix://${p.containerdSocket}`,
      address: layout.hostAddress,
      port: 10250,
      readOnlyPort: 0,
      healthzBindAddress: '127.0.0.1',
      healthzPort: 10248,
      tlsCertFile: p.servingCert,
      tlsPrivateKeyFile: p.servingKey,
      authentication: {
        anonymous: { enabled: false },
        webhook: { enabled: true },
        x509: { clientCAFile: p.caFile },
      },
      authorization: { mode: 'Webhook' },
      failSwapOn: false,
      // pods never ask the host's upstream resolver: there is no cluster DNS, names are not used
      resolvConf: p.resolvConf,
      staticPodPath: p.staticPodDir,
      // its default (/usr/libexec/kubernetes/...) would be created on the host
      volumePluginDir: p.volumePluginDir,
      // images cannot be pulled again (no registry): never garbage-collect them
      imageGCHighThresholdPercent: 100,
      imageGCLowThresholdPercent: 99,
      // a busy shared disk must not evict test pods
      evictionHard: {
        'memory.available': '100Mi',
        'nodefs.available': '1%',
        'imagefs.available': '1%',
        'nodefs.inodesFree': '1%',
      },
      enableControllerAttachDetach: false,
      serializeImagePulls: false,
      nodeStatusReportFrequency: '10s',
      syncFrequency: '10s',
      // pods that end are cleaned up promptly so namespaces delete fast
      shutdownGracePeriod: '0s',
    },
    null,
    2,
  );
}

export function kubeProxyConfig(
  layout: NodeTierLayout,
  kubeconfig: string,
  ports: { healthz: number; metrics: number },
): string {
  return JSON.stringify(
    {
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'nftables',
      clientConnection: { kubeconfig },
      hostnameOverride: layout.nodeName,
      // the node's IP (kube-proxy would otherwise guess loopback)
      bindAddress: layout.hostAddress,
      clusterCIDR: layout.podCidr,
      healthzBindAddress: `127.0.0.1:${ports.healthz}`,
      metricsBindAddress: `127.0.0.1:${ports.metrics}`,
      // NodePorts only on the bridge address, never on an outside interface
      nodePortAddresses: [`${layout.hostAddress}/32`],
      // leave the host's conntrack sysctls alone
      conntrack: { maxPerCore: 0, min: 0 },
    },
    null,
    2,
  );
}

export const resolvConf =
  '# no cluster DNS; pods never query the host upstream\nnameserver 127.0.0.1\n';

// ---- the multi-node tier (docs/design/multi-node-tier.md §2.3, §2.5, §3.3) -----------------------

/**
 * A node's pod network: its own bridge `cbr0` inside the node's namespace, the node's /24.
 * `isGateway` puts the /24's first address on the bridge (and sets forwarding — in the node's
 * namespace only). Pods get routes to the pod supernet, the service range and the fabric, through
 * their node — and no default route.
 */
export function multiNodeCniConfig(
  layout: MultiNodeTierLayout,
  node: MultiNode,
  ipamDir: string,
): string {
  return JSON.stringify(
    {
      cniVersion: '1.0.0',
      name: 'steward-multi',
      plugins: [
        {
          type: 'bridge',
          bridge: 'cbr0',
          isGateway: true,
          isDefaultGateway: false,
          ipMasq: false,
          hairpinMode: true,
          ipam: {
            type: 'host-local',
            ranges: [[{ subnet: node.podCidr, gateway: node.podGateway }]],
            routes: [layout.podCidr, layout.serviceCidr, layout.fabricCidr].map((dst) => ({
              dst,
              gw: node.podGateway,
            })),
            dataDir: ipamDir,
          },
        },
      ],
    },
    null,
    2,
  );
}

/**
 * The single tier's kubelet settings, plus: the node's own cgroup root (two kubelets sharing
 * `/kubepods` delete each other's pods), its fabric address, and a short lease so a stopped or
 * partitioned node goes NotReady within the controller-manager's (short) grace period.
 */
export function multiNodeKubeletConfig(
  layout: MultiNodeTierLayout,
  node: MultiNode,
  p: KubeletPaths,
): string {
  const config = JSON.parse(kubeletConfig(layout, p)) as Record<string, unknown>;
  return JSON.stringify(
    {
      ...config,
      cgroupRoot: `/${node.cgroup}`,
      address: node.address,
      nodeLeaseDurationSeconds: 10,
      nodeStatusUpdateFrequency: '4s',
      nodeStatusReportFrequency: '10s',
    },
    null,
    2,
  );
}

/** kube-proxy on a node: in the node's namespace, on the node's address. */
export function multiNodeKubeProxyConfig(
  layout: MultiNodeTierLayout,
  kubeconfig: string,
  nodeName: string,
  address: string,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify(
    {
      apiVersion: 'kubeproxy.config.k8s.io/v1alpha1',
      kind: 'KubeProxyConfiguration',
      mode: 'nftables',
      clientConnection: { kubeconfig },
      hostnameOverride: nodeName,
      bindAddress: address,
      clusterCIDR: layout.podCidr,
      // each node namespace has its own ports: the host probes them at the node's address
      healthzBindAddress: `${address}:10256`,
      metricsBindAddress: `${address}:10249`,
      nodePortAddresses: [`${address}/32`],
      // conntrack sysctls are per netns but not all writable there; leave them alone
      conntrack: { maxPerCore: 0, min: 0 },
      ...extra,
    },
    null,
    2,
  );
}
