/**
 * cgroup v1 subtrees for the multi-node tier's nodes: one per node in every mounted hierarchy (the
 * kubelet's `cgroupRoot`, the node daemons in its `system` child), so that one freezer write hangs
 * a whole node and cleanup finds every process of the tier by cgroup, never by executable.
 */
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const base = '/sys/fs/cgroup';

/**
 * The mounted v1 hierarchies a node subtree goes in: every controller the kubelet checks
 * (`cpu`, `cpuacct`, `cpuset`, `memory`, `pids`, `systemd`, `hugetlb` when mounted) and `freezer`,
 * `devices`, `blkio`. The empty cgroup2 (`unified`) is left alone.
 */
export function hierarchies(): string[] {
  return readdirSync(base).filter(
    (h) => h !== 'unified' && existsSync(join(base, h, 'cgroup.procs')) && !h.includes(','),
  );
}

/** `cgroup` (relative, e.g. `steward-node-tier-3/a/system`) made in every hierarchy (or those of `only`), parents first; cpuset levels get their parent's cpus and mems (v1 cpusets start empty). */
export async function createCgroup(cgroup: string, only?: readonly string[]): Promise<void> {
  const parts = cgroup.split('/').filter(Boolean);
  for (const h of hierarchies().filter((h) => !only || only.includes(h)))
    for (let i = 1; i <= parts.length; i++) {
      const dir = join(base, h, ...parts.slice(0, i));
      await mkdir(dir, { recursive: true });
      if (h === 'cpuset') {
        const parent = join(dir, '..');
        for (const file of ['cpuset.cpus', 'cpuset.mems'])
          if (!(await readFile(join(dir, file), 'utf8')).trim())
            await writeFile(join(dir, file), await readFile(join(parent, file), 'utf8'));
      }
    }
}

/**
 * A `sh -c` prelude that moves the shell into `cgroup` in every hierarchy, or in those of `only`
 * (the exec'd daemon then starts there, and everything it forks stays there).
 */
export function joinCgroupScript(cgroup: string, only?: readonly string[]): string {
  return hierarchies()
    .filter((h) => !only || only.includes(h))
    .map((h) => `echo $$ > ${join(base, h, cgroup, 'cgroup.procs')}`)
    .join(' && ');
}

const freezerState = (cgroup: string): string => join(base, 'freezer', cgroup, 'freezer.state');

/** Freezes every process under `cgroup` (hierarchical: children too); resolves once FROZEN. */
export async function freeze(cgroup: string): Promise<void> {
  await writeFile(freezerState(cgroup), 'FROZEN');
  for (let i = 0; i < 100; i++) {
    if ((await readFile(freezerState(cgroup), 'utf8')).trim() === 'FROZEN') return;
    await sleep(50);
  }
  throw new Error(`steward: cgroup ${cgroup} did not freeze within 5 s`);
}

/** Thaws `cgroup` (a no-op when it is not frozen or does not exist). */
export function thaw(cgroup: string): void {
  if (existsSync(freezerState(cgroup))) writeFileSync(freezerState(cgroup), 'THAWED');
}

export function isFrozen(cgroup: string): boolean {
  try {
    return readFileSync(freezerState(cgroup), 'utf8').trim() !== 'THAWED';
  } catch {
    return false;
  }
}

/** Directories of `root` (absolute), deepest first. */
export function cgroupDirsDeepestFirst(root: string): string[] {
  const dirs: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) walk(join(dir, entry.name));
    dirs.push(dir);
  };
  walk(root);
  return dirs;
}

/** Pids in the cgroup directories under `roots` (absolute), any depth. */
export function pidsInCgroups(roots: string[]): number[] {
  const pids = new Set<number>();
  for (const root of roots)
    for (const dir of cgroupDirsDeepestFirst(root)) {
      try {
        for (const line of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
          if (line.trim()) pids.add(Number(line));
      } catch {
        // removed meanwhile
      }
    }
  return [...pids];
}

/**
 * `cgroup` (relative) in every hierarchy where it exists — the cgroup2 `unified` one too: the
 * kubelet mirrors its `kubepods` tree there.
 */
export function cgroupDirs(cgroup: string): string[] {
  return readdirSync(base)
    .map((h) => join(base, h, cgroup))
    .filter((d) => existsSync(d));
}

/** Pids anywhere under `cgroup` (relative), read from the pids hierarchy. */
export function pidsUnder(cgroup: string): number[] {
  return pidsInCgroups([join(base, 'pids', cgroup)].filter((d) => existsSync(d)));
}

/** Whether `pid` lives under `cgroup` (relative) in the pids hierarchy. */
export function inCgroup(pid: number, cgroup: string): boolean {
  try {
    const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
      .split('\n')
      .find((l) => /^\d+:pids:/.test(l));
    const path = line?.split(':')[2] ?? '';
    return path === `/${cgroup}` || path.startsWith(`/${cgroup}/`);
  } catch {
    return false;
  }
}

/**
 * Thaws `cgroup`, SIGKILLs every process under it until none is left (a frozen task cannot die),
 * then removes its directories in every hierarchy, deepest first. Returns what could not be removed.
 */
export async function destroyCgroup(cgroup: string): Promise<string[]> {
  thaw(cgroup);
  for (let i = 0; i < 50; i++) {
    const pids = pidsUnder(cgroup);
    if (!pids.length) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    await sleep(100);
  }
  const left: string[] = [];
  for (const root of cgroupDirs(cgroup))
    for (const dir of cgroupDirsDeepestFirst(root)) {
      try {
        rmdirSync(dir);
      } catch {
        left.push(dir);
      }
    }
  return left;
}
