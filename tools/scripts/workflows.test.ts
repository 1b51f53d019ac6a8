import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The GitHub Actions workflows: actionlint (tools/actionlint/check.sh, in the lint stage of `npm
 * test` and in ci.yml) passes them and fails a broken one; every action is pinned by commit.
 */
const root = join(import.meta.dirname, '..', '..');
const workflows = join(root, '.github', 'workflows');
const check = join(root, 'tools', 'actionlint', 'check.sh');

async function actionlint(dir: string): Promise<{ code: number; output: string }> {
  return promisify(execFile)('bash', [check, dir]).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      output: e.stdout + e.stderr,
    }),
  );
}

describe('GitHub Actions workflows', () => {
  it('pass actionlint', async () => {
    const result = await actionlint(workflows);
    expect(result.output).toMatch(/actionlint: \d+ workflow\(s\) clean/);
    expect(result.code).toBe(0);
  }, 60_000);

  it.each([
    [
      'an unknown permission value',
      'permissions:\n  contents: raed\n',
      'steps:\n      - run: echo hi\n',
      /"raed" is invalid as permission of scope "contents"/,
    ],
    [
      'a job that needs a job that does not exist',
      '',
      'needs: [build]\n    steps:\n      - run: echo hi\n',
      /needs job "build" which does not exist/,
    ],
    [
      'an expression on an unknown context',
      '',
      'steps:\n      - run: echo "${{ githb.ref }}"\n',
      /undefined variable "githb"/,
    ],
    ['a run script ShellCheck refuses', '', 'steps:\n      - run: echo $UNQUOTED\n', /SC2086/],
  ])(
    'fail actionlint with %s',
    async (_, top, job, finding) => {
      const dir = mkdtempSync(join(tmpdir(), 'actionlint-'));
      writeFileSync(
        join(dir, 'broken.yml'),
        `name: broken\non: push\n${top}jobs:\n  test:\n    runs-on: ubuntu-24.04\n    ${job}`,
      );
      const result = await actionlint(dir);
      expect(result.output).toMatch(finding);
      expect(result.output).toMatch(/actionlint: findings above/);
      expect(result.code).toBe(1);
    },
    60_000,
  );

  it('pin every action by a full commit SHA, with the tag it is in a comment', () => {
    const files = readdirSync(workflows).filter((f) => /\.ya?ml$/.test(f));
    expect(files).toEqual(expect.arrayContaining(['ci.yml', 'release.yml']));
    const uses = files.flatMap((f) =>
      readFileSync(join(workflows, f), 'utf8')
        .split('\n')
        .filter((line) => /^\s*(-\s+)?uses:/.test(line))
        .map((line) => `${f}: ${line.trim()}`),
    );
    expect(uses.length).toBeGreaterThan(10);
    for (const line of uses)
      expect(line, line).toMatch(/uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+(\.\d+)*$/);
  });

  it('grant no permission by default in the release workflow; each job asks for its own', () => {
    const release = readFileSync(join(workflows, 'release.yml'), 'utf8');
    expect(release).toMatch(/^permissions: \{\}$/m);
    // write scopes only where a job pushes, signs or attests
    const writes = [...release.matchAll(/^ {6}([a-z-]+): write/gm)].map((m) => m[1]);
    expect(new Set(writes)).toEqual(new Set(['packages', 'id-token', 'attestations']));
    expect(release).not.toMatch(/contents: write|write-all/);
  });
});
