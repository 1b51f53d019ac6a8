import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the app’s wiring', () => {
  it('touches the tsyringe container only in main.ts (DESIGN: one place wires the process)', async () => {
    const files = (await readdir(import.meta.dirname)).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
    );
    const touching = [];
    for (const file of files) {
      const text = await readFile(join(import.meta.dirname, file), 'utf8');
      if (
        /\bcontainer\b.*from 'tsyringe'|from 'tsyringe'.*\bcontainer\b/s.test(
          text.match(/import[^;]*from 'tsyringe'/g)?.join('\n') ?? '',
        )
      ) {
        touching.push(file);
      }
    }
    expect(touching).toEqual(['main.ts']);
  });
});
