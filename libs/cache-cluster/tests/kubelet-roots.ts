import { execFileSync } from 'node:child_process';

/**
 * The root directories of the kubelets running on this machine (their `--root-dir`): where a
 * pod's emptyDir lives on the host. Read from the processes, not from this process's layout: the
 * tier may have been started by another process with other paths. Fails when none runs.
 */
export function kubeletRoots(): string[] {
  const roots = execFileSync('ps', ['-eo', 'args'])
    .toString()
    .split('\n')
    .map((line) => /--root-dir=(\S+)/.exec(line)?.[1])
    .filter((root): root is string => root !== undefined);
  if (roots.length === 0) throw new Error('no kubelet with --root-dir runs on this machine');
  return [...new Set(roots)];
}
