import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually, repoRoot } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acquireNodeTier, NodeTierUnavailableError, type NodeTier } from '../src/index.js';

const entry = join(repoRoot(), 'libs/testing-node-tier/src/index.ts');

/**
 * Runs `script` (an ES module body with `steward` = @steward/testing-node-tier) in a child node
 * process; `prefix` runs it through another command first (e.g. setpriv to drop capabilities).
 */
function nodeScript(script: string, prefix: string[] = []) {
  const source = `const steward = await import(${JSON.stringify(entry)});\n${script}`;
  const args = ['--import', 'tsx', '--input-type=module', '-e', source];
  const [command, ...rest] = [...prefix, process.execPath, ...args];
  return spawn(command!, rest, { cwd: repoRoot(), stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('the node tier is shared through leases', () => {
  let tier: NodeTier;
  beforeAll(async () => {
    tier = await acquireNodeTier();
  });
  afterAll(async () => {
    await tier?.release();
  });

  it('gives a second process the same tier, and drops the lease of a process killed outright', async () => {
    const child = nodeScript(`
      const tier = await steward.acquireNodeTier();
      console.log('LEASED ' + tier.server);
      setInterval(() => undefined, 60_000);`);
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    await eventually(() => output.includes('LEASED'), {
      timeoutMs: 120_000,
      description: `the child's lease (output so far: ${output})`,
    });
    expect(output).toContain(`LEASED ${tier.server}`);
    const lease = join(tier.layout.runDir, 'leases', String(child.pid));
    expect(existsSync(lease)).toBe(true);

    child.kill('SIGKILL');
    await eventually(() => !existsSync(lease), {
      timeoutMs: 30_000,
      description: `the supervisor to drop the dead process's lease ${lease}`,
    });
    // our own lease keeps the tier up
    const state = JSON.parse(readFileSync(join(tier.layout.runDir, 'state.json'), 'utf8')) as {
      phase: string;
      server: string;
    };
    expect(state).toMatchObject({ phase: 'ready', server: tier.server });
  });

  it('fails, naming what is missing, for a process without the privileges it needs', async () => {
    // root in a container without CAP_SYS_ADMIN and CAP_NET_ADMIN (an unprivileged CI runner):
    // the capabilities dropped from the bounding set, so the child's effective set lacks them
    const setpriv = spawnSync('sh', ['-c', 'command -v setpriv'], {
      encoding: 'utf8',
    }).stdout.trim();
    expect(setpriv, 'setpriv (util-linux) is needed to drop capabilities').not.toBe('');
    const child = nodeScript(
      `try { await steward.acquireNodeTier(); console.log('ACQUIRED'); }
       catch (e) { console.log(e.name + ': ' + e.message); }`,
      [setpriv, '--bounding-set=-sys_admin,-net_admin', '--'],
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    await new Promise((resolve) => child.on('exit', resolve));
    expect(output).not.toContain('ACQUIRED');
    expect(output).toContain(`${new NodeTierUnavailableError([]).name}:`);
    expect(output).toContain('no CAP_SYS_ADMIN');
    expect(output).toContain('no CAP_NET_ADMIN');
  });
});
