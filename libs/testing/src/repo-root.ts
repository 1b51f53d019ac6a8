import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The monorepo's root: the nearest ancestor of this file that holds `nx.json`. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'nx.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error('steward: cannot find the repository root (no nx.json above libs/testing)');
    dir = parent;
  }
}
