/**
 * The multi-node tier's network and mount namespaces (docs/design/multi-node-tier.md §2, §3.2):
 *
 * - a fabric bridge in a namespace of its own (pure L2, no addresses, no nft rules);
 * - the host on it through one veth (`stwm0`, the API server's address, test-client aliases), with
 *   routes to each node's pod /24 and the service range via the gateway — and nothing else: the
 *   host's `ip_forward` is never touched, so the host stays an endpoint;
 * - a gateway namespace with forwarding on, for a kube-proxy that gives the host the ClusterIPs;
 * - per node a namespace with `eth0` on the fabric, forwarding on, routes to the other nodes' pod
 *   ranges, and a persistent mount namespace (private `/var/log`, `/run/containerd`,
 *   `/var/lib/cni`) that its containerd, kubelet, kube-proxy and agent all join with `nsenter`.
 *
 * No namespace has a default route: nothing of the tier can reach past this machine.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { joinCgroupScript } from './cgroups.js';
import { run } from './host.js';
import type { MultiNode, MultiNodeTierLayout } from './layout.js';

const quietly = (command: string, args: string[]): Promise<string> =>
  run(command, args).catch(() => '');

/** Runs `ip [-n <netns>] -batch <file>` with these lines (one process instead of one per line). */
async function ipBatch(netns: string | undefined, lines: string[]): Promise<void> {
  const file = join('/tmp', `steward-ip-batch-${process.pid}-${Date.now()}`);
  await writeFile(file, `${lines.join('\n')}\n`);
  try {
    await run('ip', [...(netns ? ['-n', netns] : []), '-batch', file]);
  } finally {
    await rm(file, { force: true });
  }
}

/** `sysctl -w` inside a network namespace, through its /proc/sys (per netns). */
async function netnsSysctl(netns: string, key: string, value: string): Promise<void> {
  await run('ip', ['netns', 'exec', netns, 'sh', '-c', `echo ${value} > /proc/sys/${key}`]);
}

const prefixOf = (cidr: string): string => cidr.split('/')[1]!;

/** Creates the fabric, the gateway, the host's veth with its routes, and every node's namespace. */
export async function setUpNetwork(layout: MultiNodeTierLayout): Promise<void> {
  const fabric = layout.fabricNetns;
  const fabricPrefix = prefixOf(layout.fabricCidr);
  const all = [fabric, layout.gatewayNetns, ...layout.nodes.map((n) => n.netns)];
  for (const ns of all) await run('ip', ['netns', 'add', ns]);
  // the fabric: a bridge, and a veth to the gateway and to each node (the peer moved into it)
  await ipBatch(fabric, [
    'link set lo up',
    'link add br0 type bridge',
    'link set br0 up',
    `link add vgw type veth peer name eth0 netns ${layout.gatewayNetns}`,
    'link set vgw master br0 up',
    ...layout.nodes.flatMap((node) => [
      `link add v${node.short} type veth peer name eth0 netns ${node.netns}`,
      `link set v${node.short} master br0 up`,
    ]),
  ]);
  // the host's end
  await ipBatch(undefined, [
    `link add ${layout.hostLink} type veth peer name vh netns ${fabric}`,
    `addr add ${layout.hostAddress}/${fabricPrefix} dev ${layout.hostLink}`,
    `link set ${layout.hostLink} up`,
  ]);
  await ipBatch(fabric, ['link set vh master br0 up']);
  await ipBatch(layout.gatewayNetns, [
    'link set lo up',
    `addr add ${layout.gatewayAddress}/${fabricPrefix} dev eth0`,
    'link set eth0 up',
    ...layout.nodes.map((node) => `route add ${node.podCidr} via ${node.address}`),
  ]);
  for (const node of layout.nodes)
    await ipBatch(node.netns, [
      'link set lo up',
      `addr add ${node.address}/${fabricPrefix} dev eth0`,
      'link set eth0 up',
      // the pod bridge: the CNI plugin would make it too, but the routes and kube-proxy want it now
      'link add cbr0 type bridge',
      `addr add ${node.podGateway}/${prefixOf(node.podCidr)} dev cbr0`,
      'link set cbr0 up',
      ...layout.nodes
        .filter((other) => other !== node)
        .map((other) => `route add ${other.podCidr} via ${other.address}`),
    ]);
  await ipBatch(undefined, [
    ...layout.nodes.map((node) => `route add ${node.podCidr} via ${node.address}`),
    `route add ${layout.serviceCidr} via ${layout.gatewayAddress}`,
  ]);
  for (const ns of [layout.gatewayNetns, ...layout.nodes.map((n) => n.netns)])
    await netnsSysctl(ns, 'net/ipv4/ip_forward', '1');
}

/**
 * The node's persistent mount namespace: a copy of the host's mounts, minus the single tier's
 * (so that tier's unmounts are not held up here), with private `/var/log` (the kubelet's pod logs
 * are hard-coded there, and its GC deletes pod log dirs it does not know), `/run/containerd` (the
 * shims' compiled-in socket dir) and `/var/lib/cni` (libcni's result cache).
 */
export async function setUpMountNamespace(
  layout: MultiNodeTierLayout,
  node: MultiNode,
  foreignDirs: string[],
): Promise<void> {
  const nsDir = join(layout.runDir, 'ns');
  await mkdir(nsDir, { recursive: true });
  if (!mountPoints().includes(nsDir)) {
    // unshare(1): the file must not be on a shared mount; a private bind of the dir makes sure
    await run('mount', ['--bind', nsDir, nsDir]);
    await run('mount', ['--make-private', nsDir]);
  }
  await writeFile(node.mountNamespace, '');
  await run('unshare', [`--mount=${node.mountNamespace}`, '--propagation', 'private', 'true']);
  const binds: [string, string][] = [
    [join(node.dataDir, 'var-log'), '/var/log'],
    [join(node.runDir, 'run-containerd'), '/run/containerd'],
    [join(node.dataDir, 'cni-cache'), '/var/lib/cni'],
  ];
  for (const [from, to] of binds) {
    await mkdir(from, { recursive: true });
    await mkdir(to, { recursive: true });
  }
  const foreign = foreignDirs.map((d) => `'${d}'`).join(' ');
  const script = [
    // the single tier's mounts (container rootfs, pod netns, volumes), deepest first
    `for d in ${foreign}; do awk -v d="$d" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts; done | sort -r | while read -r m; do umount -l "$m" 2>/dev/null || true; done`,
    ...binds.map(([from, to]) => `mount --bind '${from}' '${to}'`),
  ].join(' && ');
  await run('nsenter', [`--mount=${node.mountNamespace}`, 'sh', '-c', script]);
}

/** The mount points of this (the host's) mount namespace. */
function mountPoints(): string[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter(Boolean);
}

/**
 * `sh -c` arguments that run `argv` as a node daemon: the shell joins the node's `system` cgroup,
 * then execs `nsenter` into the node's network and mount namespaces, which execs the daemon —
 * the pid stays the same throughout, so a ManagedProcess owns the daemon itself. (Not
 * `ip netns exec`: it remounts /sys, and /sys/fs/cgroup vanishes.)
 */
export function nodeCommand(node: MultiNode, argv: string[]): { command: string; args: string[] } {
  const script = `${joinCgroupScript(`${node.cgroup}/system`)} && exec nsenter --net=/run/netns/${node.netns} --mount=${node.mountNamespace} -- "$@"`;
  return { command: 'sh', args: ['-c', script, 'sh', ...argv] };
}

/** The same for the gateway: its network namespace, the host's mounts, `cgroup` in the pids hierarchy. */
export function gatewayCommand(
  layout: MultiNodeTierLayout,
  cgroup: string,
  argv: string[],
): { command: string; args: string[] } {
  const script = `${joinCgroupScript(cgroup, ['pids'])} && exec nsenter --net=/run/netns/${layout.gatewayNetns} -- "$@"`;
  return { command: 'sh', args: ['-c', script, 'sh', ...argv] };
}

const partitionTable = 'steward-partition';

/**
 * Cuts the node off the fabric, both ways, for its own processes and its pods, except for the
 * given addresses (test clients). ARP is untouched (L2 stays up) and the drop comes before
 * conntrack, so established connections hang rather than reset, as in a real partition.
 */
export async function partition(
  nft: string,
  node: MultiNode,
  allow: readonly string[],
): Promise<void> {
  const set = allow.length ? `elements = { ${allow.join(', ')} }` : '';
  const rules = `table inet ${partitionTable} {
  set allowed { type ipv4_addr; ${set} }
  chain pre { type filter hook prerouting priority -310; iifname "eth0" ip saddr @allowed accept; iifname "eth0" drop; }
  chain post { type filter hook postrouting priority 500; oifname "eth0" ip daddr @allowed accept; oifname "eth0" drop; }
}
`;
  await heal(nft, node);
  const file = join('/tmp', `steward-partition-${process.pid}-${node.short}.nft`);
  await writeFile(file, rules);
  try {
    await run('ip', ['netns', 'exec', node.netns, nft, '-f', file]);
  } finally {
    await rm(file, { force: true });
  }
}

/** Removes the partition (a no-op when there is none). */
export async function heal(nft: string, node: MultiNode): Promise<void> {
  await quietly('ip', [
    'netns',
    'exec',
    node.netns,
    nft,
    'delete',
    'table',
    'inet',
    partitionTable,
  ]);
}

/** `eth0` of the node down (a powered-off machine: peers get no ARP answer) or up. */
export async function setUplink(node: MultiNode, up: boolean): Promise<void> {
  await run('ip', ['-n', node.netns, 'link', 'set', 'eth0', up ? 'up' : 'down']);
}

/** A test client's address on the host's fabric link (idempotent). */
export async function addTestClient(layout: MultiNodeTierLayout, address: string): Promise<void> {
  await run('ip', ['addr', 'replace', `${address}/32`, 'dev', layout.hostLink]);
}

/**
 * Removes the namespaces (the host's veth, its routes and aliases go with the fabric's end), after
 * releasing the node mount namespaces (which frees their overlay, tmpfs and pod-netns mounts).
 * Idempotent. Processes must be gone first (destroyCgroup).
 */
export async function tearDownNetwork(layout: MultiNodeTierLayout): Promise<void> {
  for (const node of layout.nodes) await quietly('umount', [node.mountNamespace]);
  const nsDir = join(layout.runDir, 'ns');
  if (mountPoints().includes(nsDir)) await quietly('umount', [nsDir]);
  for (const ns of [layout.fabricNetns, layout.gatewayNetns, ...layout.nodes.map((n) => n.netns)])
    if (existsSync(`/run/netns/${ns}`)) await quietly('ip', ['netns', 'del', ns]);
  await quietly('ip', ['link', 'del', layout.hostLink]);
  for (const node of layout.nodes) await quietly('ip', ['route', 'del', node.podCidr]);
  await quietly('ip', ['route', 'del', layout.serviceCidr, 'via', layout.gatewayAddress]);
}

/** What of the tier's network is still on the host. */
export async function networkLeftovers(layout: MultiNodeTierLayout): Promise<string[]> {
  const found: string[] = [];
  for (const ns of [layout.fabricNetns, layout.gatewayNetns, ...layout.nodes.map((n) => n.netns)])
    if (existsSync(`/run/netns/${ns}`)) found.push(`netns ${ns}`);
  if (await quietly('ip', ['link', 'show', layout.hostLink])) found.push(`link ${layout.hostLink}`);
  const nsDir = join(layout.runDir, 'ns');
  for (const m of mountPoints())
    if (m === nsDir || m.startsWith(`${nsDir}/`)) found.push(`mount ${m}`);
  return found;
}
