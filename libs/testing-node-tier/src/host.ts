/**
 * What the node tier does to the host outside its own directories — the bridge and its routes,
 * the `kubepods` cgroups, kube-proxy's nft tables, mounts, shim processes — and the checks that it
 * can, and that it left nothing behind.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync, rmdirSync } from 'node:fs';
import { access, constants, mkdir, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cgroupDirsDeepestFirst, inCgroup, pidsInCgroups } from './cgroups.js';
import { multiNodeTierLayout, type NodeTierLayout } from './layout.js';

const execFileAsync = promisify(execFile);

/** Runs a command; rejects with its stderr in the message. */
export async function run(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { timeout: 60_000, encoding: 'utf8' });
    return stdout;
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`steward: ${command} ${args.join(' ')} failed${stderr ? `: ${stderr}` : ''}`, {
      cause: error,
    });
  }
}

const quietly = (command: string, args: string[]): Promise<string> =>
  run(command, args).catch(() => '');

/** Thrown when this machine cannot run the node tier; the message names every missing piece. */
export class NodeTierUnavailableError extends Error {
  constructor(readonly missing: string[]) {
    super(
      `steward: the node tier cannot run on this machine: ${missing.join('; ')}. ` +
        'It needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN, writable cgroups, overlayfs, and the ip command.',
    );
    this.name = 'NodeTierUnavailableError';
  }
}

const CAP_NET_ADMIN = 12n;
const CAP_SYS_ADMIN = 21n;

/** Every privilege or kernel feature the tier needs and this machine lacks (empty: it can run). */
export async function missingPrivileges(options: { multiNode?: boolean } = {}): Promise<string[]> {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) missing.push(`not root (uid ${process.getuid?.()})`);
  const capEff = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  const caps = BigInt(`0x${capEff ?? '0'}`);
  if (!((caps >> CAP_SYS_ADMIN) & 1n)) missing.push('no CAP_SYS_ADMIN (mounts, namespaces)');
  if (!((caps >> CAP_NET_ADMIN) & 1n)) missing.push('no CAP_NET_ADMIN (bridge, veth, routes)');
  if (!/\toverlay$/m.test(readFileSync('/proc/filesystems', 'utf8')))
    missing.push('no overlay filesystem in /proc/filesystems');
  const cgroup = cgroupV2() ? '/sys/fs/cgroup' : '/sys/fs/cgroup/memory';
  const probe = join(cgroup, `steward-probe-${process.pid}`);
  try {
    await mkdir(probe);
    await rmdir(probe);
  } catch {
    missing.push(`cgroups not writable (mkdir in ${cgroup} failed)`);
  }
  try {
    await access('/usr/sbin/ip', constants.X_OK);
  } catch {
    if (!(await quietly('sh', ['-c', 'command -v ip']))) missing.push('no ip command (iproute2)');
  }
  if (options.multiNode) {
    for (const command of ['unshare', 'nsenter', 'awk'])
      if (!(await quietly('sh', ['-c', `command -v ${command}`])))
        missing.push(`no ${command} command (util-linux)`);
    if (cgroupV2()) missing.push('a cgroup v2 host (the multi-node tier needs the v1 freezer)');
    else if (
      !existsSync('/sys/fs/cgroup/freezer/freezer.state') &&
      !existsSync('/sys/fs/cgroup/freezer/cgroup.procs')
    )
      missing.push('no cgroup v1 freezer hierarchy at /sys/fs/cgroup/freezer');
  }
  return missing;
}

/** True on a pure cgroup v2 host; false on v1 or hybrid (kubelet needs `failCgroupV1: false`). */
export function cgroupV2(): boolean {
  return existsSync('/sys/fs/cgroup/cgroup.controllers');
}

/**
 * The pod network's host side: a bridge of our own holding the host address, and the service range
 * routed to it so ClusterIP traffic never leaves through the host's default route. Pods get the
 * /24 and the service range only — no default route, and `net.ipv4.ip_forward` is left alone.
 */
export async function setUpBridge(layout: NodeTierLayout): Promise<void> {
  const prefix = layout.podCidr.split('/')[1];
  if (!(await quietly('ip', ['link', 'show', layout.bridge])))
    await run('ip', ['link', 'add', layout.bridge, 'type', 'bridge']);
  await run('ip', ['addr', 'replace', `${layout.hostAddress}/${prefix}`, 'dev', layout.bridge]);
  await run('ip', ['link', 'set', layout.bridge, 'up']);
  await run('ip', ['route', 'replace', layout.serviceCidr, 'dev', layout.bridge]);
}

/** Mount points under `dirs`, deepest first. */
function mountsUnder(dirs: string[]): string[] {
  const mounts = readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1]?.replace(/\\040/g, ' '))
    .filter((m): m is string => !!m && dirs.some((d) => m === d || m.startsWith(`${d}/`)));
  return [...new Set(mounts)].sort((a, b) => b.length - a.length);
}

/**
 * Pids whose executable is `exe`, except the multi-node tier's (everything of it lives under its
 * cgroup root): the single tier never kills or reports the other tier's processes.
 */
function processesOf(exe: string): number[] {
  const foreign = multiNodeTierLayout().cgroupRoot;
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/exe`) === exe && !inCgroup(Number(entry), foreign))
        pids.push(Number(entry));
    } catch {
      // gone, or a kernel thread
    }
  }
  return pids;
}

/** The `kubepods` cgroup directories of every hierarchy (v1: one per controller). */
function podCgroupRoots(): string[] {
  if (cgroupV2()) return ['/sys/fs/cgroup/kubepods'].filter((d) => existsSync(d));
  return readdirSync('/sys/fs/cgroup')
    .map((h) => join('/sys/fs/cgroup', h, 'kubepods'))
    .filter((d) => existsSync(d));
}

export interface HostCleanupTargets {
  layout: NodeTierLayout;
  /** containerd's shim binary: shims left by a crashed containerd are found by it. */
  shim: string;
  nft: string;
}

/**
 * Removes whatever a tier left on the host — after a clean stop (the kubelet already tore the pods
 * down) or a crash (then this is all there is): container processes and shims, mounts under the
 * tier's directories, the `kubepods` cgroups, kube-proxy's nft tables, the bridge and its route.
 * Idempotent; never touches what is not the tier's.
 */
export async function cleanUpHost({ layout, shim, nft }: HostCleanupTargets): Promise<void> {
  const kill = (pid: number): void => {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  for (const pid of pidsInCgroups(podCgroupRoots())) kill(pid);
  for (const pid of processesOf(shim)) kill(pid);
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const mount of mountsUnder([layout.runDir, layout.dataDir, layout.containerdRoot]))
    if (!(await quietly('umount', [mount])) && mountsUnder([mount]).includes(mount))
      await quietly('umount', ['-l', mount]);
  for (const root of podCgroupRoots())
    for (const dir of cgroupDirsDeepestFirst(root)) {
      try {
        rmdirSync(dir);
      } catch {
        // still busy: reported by leftovers()
      }
    }
  for (const family of ['ip', 'ip6']) await quietly(nft, ['delete', 'table', family, 'kube-proxy']);
  await quietly('ip', ['link', 'delete', layout.bridge]);
  await quietly('ip', ['route', 'delete', layout.serviceCidr]);
  // containerd v2 puts shim sockets under a compiled-in /run/containerd/s; drop the dirs if empty.
  // Not /run/containerd itself while the multi-node tier runs: its nodes' mount namespaces have
  // their own /run/containerd bound over it, and removing a directory detaches the mounts on it in
  // every other mount namespace (their shims' sockets would vanish).
  const multiNodeTierUp = existsSync(join(multiNodeTierLayout().runDir, 'state.json'));
  for (const dir of ['/run/containerd/s', ...(multiNodeTierUp ? [] : ['/run/containerd'])]) {
    try {
      rmdirSync(dir);
    } catch {
      // not empty (another containerd) or absent
    }
  }
}

/**
 * What of the tier is still on the host: processes of its binaries, mounts under its directories,
 * `kubepods` cgroups, nft tables, the bridge. Empty after a clean stop.
 */
export async function leftovers(
  targets: HostCleanupTargets & { binaries: string[] },
): Promise<string[]> {
  const { layout, nft } = targets;
  const found: string[] = [];
  for (const exe of targets.binaries)
    for (const pid of processesOf(exe)) found.push(`process ${pid} (${exe})`);
  for (const mount of mountsUnder([layout.runDir, layout.dataDir, layout.containerdRoot]))
    found.push(`mount ${mount}`);
  for (const root of podCgroupRoots()) found.push(`cgroup ${root}`);
  for (const family of ['ip', 'ip6'])
    if (await quietly(nft, ['list', 'table', family, 'kube-proxy']))
      found.push(`nft table ${family} kube-proxy`);
  if (await quietly('ip', ['link', 'show', layout.bridge])) found.push(`link ${layout.bridge}`);
  return found;
}

/**
 * Whether `pid` is a live process: signal 0 reaches it and it is not a zombie (an exited child
 * whose parent has not reaped it yet — e.g. a supervisor started by a process now blocked in a
 * synchronous call — still answers signal 0).
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}
