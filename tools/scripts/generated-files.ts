// What every generator of committed files (generate-crds.ts, generate-charts.ts) does the same way:
// compare the files it would write with the tree, report drift, and write or remove files.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface Drift {
  file: string;
  problem: 'missing' | 'stale' | 'orphaned';
}

/** Which files in the folders a generator writes to are its own leftovers (orphans). */
export interface OrphanRule {
  /** The folders (relative to the root) to look in for orphans, from those the files go to. */
  folders(dirs: readonly string[]): readonly string[];
  /** A file there, not expected any more, that this generator wrote (its marker, its extension). */
  isOrphan(name: string, text: string): boolean;
}

/**
 * Compares `expected` (relative path → text) with what is under `root`: missing and stale files,
 * and orphans — files in the generator's folders that carry its marker but are no longer generated
 * (a kind or chart renamed). Files without the marker (and folders) are not the generator's business.
 */
export async function findDrift(
  root: string,
  expected: Map<string, string>,
  orphans: OrphanRule,
): Promise<Drift[]> {
  const drift: Drift[] = [];
  for (const [file, text] of expected) {
    const path = join(root, file);
    if (!existsSync(path)) drift.push({ file, problem: 'missing' });
    else if ((await readFile(path, 'utf8')) !== text) drift.push({ file, problem: 'stale' });
  }
  for (const dir of new Set(orphans.folders([...expected.keys()].map(dirname)))) {
    if (!existsSync(join(root, dir))) continue;
    const entries = await readdir(join(root, dir), { withFileTypes: true });
    for (const name of entries
      .filter((e) => e.isFile())
      .map((e) => e.name)
      .sort()) {
      const file = join(dir, name);
      if (expected.has(file)) continue;
      if (orphans.isOrphan(name, await readFile(join(root, file), 'utf8')))
        drift.push({ file, problem: 'orphaned' });
    }
  }
  return drift;
}

/** Brings `root` in line with `expected`: writes missing and stale files, removes orphans. */
export async function writeFiles(
  root: string,
  expected: Map<string, string>,
  orphans: OrphanRule,
): Promise<Drift[]> {
  const drift = await findDrift(root, expected, orphans);
  for (const { file, problem } of drift) {
    const path = join(root, file);
    if (problem === 'orphaned') {
      await rm(path);
    } else {
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, expected.get(file)!);
    }
  }
  return drift;
}

/**
 * A generator's command line: `--check` reports drift and exits 1 (naming each file and the
 * command that fixes it), otherwise writes and says what it changed. `what` names the files in
 * messages, e.g. `4 CRDs`.
 */
export async function generateOrCheck(options: {
  root: string;
  expected: Map<string, string>;
  orphans: OrphanRule;
  check: boolean;
  what: string;
  generator: string;
  staleMessage: string;
}): Promise<number> {
  const { root, expected, orphans, what } = options;
  if (options.check) {
    const drift = await findDrift(root, expected, orphans);
    for (const { file, problem } of drift) process.stderr.write(`${problem}: ${file}\n`);
    if (drift.length) {
      process.stderr.write(`${options.staleMessage}; run: npx tsx ${options.generator}\n`);
      return 1;
    }
    process.stdout.write(`${what} up to date\n`);
    return 0;
  }
  const drift = await writeFiles(root, expected, orphans);
  for (const { file, problem } of drift) {
    process.stdout.write(`${problem === 'orphaned' ? 'removed' : 'wrote'} ${file}\n`);
  }
  process.stdout.write(`${what}, ${drift.length} changed\n`);
  return 0;
}
