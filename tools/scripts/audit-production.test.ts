import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  AllowListError,
  AuditUnavailableError,
  advisoriesOf,
  judge,
  parseAllowList,
  type AllowListEntry,
} from './audit-production.js';

/** An `npm audit --json` report (auditReportVersion 2) in the shape npm 10/11 print. */
function report(
  advisories: { name: string; severity: string; ghsa: string; title?: string }[],
): unknown {
  const vulnerabilities: Record<string, unknown> = {};
  for (const a of advisories) {
    vulnerabilities[a.name] = {
      name: a.name,
      severity: a.severity,
      isDirect: false,
      via: [
        {
          source: 1097677,
          name: a.name,
          dependency: a.name,
          title: a.title ?? `a flaw in ${a.name}`,
          url: `https://github.com/advisories/${a.ghsa}`,
          severity: a.severity,
          range: '<1.2.3',
        },
      ],
      effects: ['dependent'],
      range: '<1.2.3',
      nodes: [`node_modules/${a.name}`],
      fixAvailable: true,
    };
    // the package that depends on it: a transitive path, named by a string
    vulnerabilities['dependent'] = {
      name: 'dependent',
      severity: a.severity,
      via: [a.name],
      effects: [],
      nodes: ['node_modules/dependent'],
    };
  }
  return {
    auditReportVersion: 2,
    vulnerabilities,
    metadata: { vulnerabilities: {}, dependencies: { prod: 200 } },
  };
}

const critical = { name: 'minimist', severity: 'critical', ghsa: 'GHSA-xvch-5gv4-984h' };
const high = { name: 'undici', severity: 'high', ghsa: 'GHSA-c76h-2ccp-4975' };
const moderate = { name: 'ws', severity: 'moderate', ghsa: 'GHSA-3h5v-q93c-6h6q' };
const entry = (e: Partial<AllowListEntry>): AllowListEntry => ({
  advisory: critical.ghsa,
  package: critical.name,
  reason: 'only reached by the build, never at run time',
  reviewBy: '2027-03-01',
  ...e,
});
const today = '2026-12-07';

describe('npm audit gate (production dependencies)', () => {
  it('reads one advisory per package from the report, not the transitive paths', () => {
    expect(advisoriesOf(report([critical]))).toEqual([
      {
        id: 'GHSA-xvch-5gv4-984h',
        url: 'https://github.com/advisories/GHSA-xvch-5gv4-984h',
        package: 'minimist',
        severity: 'critical',
        title: 'a flaw in minimist',
        range: '<1.2.3',
      },
    ]);
  });

  it.each([
    [
      'the endpoint refusing the request (what npm prints for a 405)',
      {
        message:
          '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
        statusCode: 405,
        error: { summary: '', detail: '' },
      },
      /405 Method Not Allowed.*NOT checked/,
    ],
    [
      'an offline error',
      { error: { code: 'ENOAUDIT', summary: 'Your configured registry does not support audit' } },
      /ENOAUDIT; Your configured registry does not support audit/,
    ],
    ['no output at all', null, /no report in the output/],
    ['an older report format', { advisories: {}, metadata: {} }, /no report in the output/],
  ])('fails, saying nothing was checked, on %s', (_, output, message) => {
    expect(() => advisoriesOf(output)).toThrow(AuditUnavailableError);
    expect(() => advisoriesOf(output)).toThrow(message);
  });

  it('fails on high and critical advisories, not on lower ones', () => {
    const verdict = judge(advisoriesOf(report([critical, high, moderate])), [], today);
    expect(verdict.failures).toEqual([
      expect.stringMatching(/^critical GHSA-xvch-5gv4-984h in minimist .* not in the allow-list$/),
      expect.stringMatching(/^high GHSA-c76h-2ccp-4975 in undici .* not in the allow-list$/),
    ]);
    expect(verdict.below).toEqual([expect.stringMatching(/^moderate GHSA-3h5v-q93c-6h6q in ws/)]);
  });

  it('passes a clean report', () => {
    expect(judge(advisoriesOf(report([])), [], today)).toEqual({
      failures: [],
      allowed: [],
      stale: [],
      below: [],
    });
  });

  it.each([
    ['its GHSA id', critical.ghsa],
    ['its URL', `https://github.com/advisories/${critical.ghsa}`],
    ['its GHSA id in another case', critical.ghsa.toUpperCase()],
  ])('lets an allow-listed advisory through, named by %s', (_, advisory) => {
    const verdict = judge(advisoriesOf(report([critical])), [entry({ advisory })], today);
    expect(verdict.failures).toEqual([]);
    expect(verdict.allowed).toEqual([
      expect.stringMatching(/allowed until 2027-03-01: only reached by the build/),
    ]);
  });

  it('does not let an entry for another package through', () => {
    const verdict = judge(
      advisoriesOf(report([critical])),
      [entry({ package: 'not-minimist' })],
      today,
    );
    expect(verdict.failures).toHaveLength(1);
    expect(verdict.stale).toEqual([
      `${critical.ghsa} in not-minimist is no longer reported: remove it from the allow-list`,
    ]);
  });

  it('fails an allowed advisory once its review-by date has passed', () => {
    const verdict = judge(
      advisoriesOf(report([critical])),
      [entry({ reviewBy: '2026-12-06' })],
      today,
    );
    expect(verdict.failures).toEqual([
      expect.stringMatching(/allowed until review on 2026-12-06, which has passed/),
    ]);
  });

  it('reports entries whose advisory is no longer reported as stale, without failing', () => {
    const verdict = judge(advisoriesOf(report([])), [entry({})], today);
    expect(verdict.failures).toEqual([]);
    expect(verdict.stale).toEqual([
      'GHSA-xvch-5gv4-984h in minimist is no longer reported: remove it from the allow-list',
    ]);
  });

  it.each([
    ['no reason', { reason: '' }, /no reason — say why/],
    ['a blank reason', { reason: '   ' }, /no reason/],
    ['no package', { package: undefined }, /no package/],
    ['no advisory', { advisory: '' }, /no advisory/],
    ['no review-by date', { reviewBy: undefined }, /reviewBy must be a date YYYY-MM-DD/],
    ['a review-by date that is no date', { reviewBy: 'next spring' }, /reviewBy must be a date/],
    ['a misspelt key', { reviewby: '2027-01-01' }, /unknown key\(s\) reviewby/],
  ])('refuses an allow-list entry with %s', (_, change, message) => {
    const text = JSON.stringify({ entries: [{ ...entry({}), ...change }] });
    expect(() => parseAllowList(text)).toThrow(AllowListError);
    expect(() => parseAllowList(text)).toThrow(message);
  });

  it('accepts the repository’s own allow-list', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(
      join(import.meta.dirname, '..', '..', 'audit-allowlist.json'),
      'utf8',
    );
    expect(Array.isArray(parseAllowList(text))).toBe(true);
  });

  it('as a command: exit 1 with the reason on a failing report or no report, 0 on a clean one; --if-unreachable warn says NOT CHECKED', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const run = async (output: unknown, ...options: string[]) => {
      const file = join(dir, 'report.json');
      writeFileSync(file, JSON.stringify(output));
      return promisify(execFile)(process.execPath, [
        '--import',
        'tsx',
        join(import.meta.dirname, 'audit-production.ts'),
        '--report',
        file,
        ...options,
      ]).then(
        ({ stdout }) => ({ code: 0, stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
      );
    };
    const failed = await run(report([critical]));
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/audit: FAIL critical GHSA-xvch-5gv4-984h in minimist/);
    const unavailable = await run({ message: '405 Method Not Allowed', statusCode: 405 });
    expect(unavailable.code).toBe(1);
    expect(unavailable.stdout).toMatch(/could not ask the registry's audit endpoint: 405/);
    // npm test on a machine without the audit API: said, not failed; a finding still fails.
    const warned = await run(
      { message: '405 Method Not Allowed', statusCode: 405 },
      '--if-unreachable',
      'warn',
    );
    expect(warned.code).toBe(0);
    expect(warned.stdout).toMatch(/audit: NOT CHECKED \(warning, not a pass\)/);
    expect((await run(report([critical]), '--if-unreachable', 'warn')).code).toBe(1);
    const clean = await run(report([moderate]));
    expect(clean.code).toBe(0);
    expect(clean.stdout).toMatch(/no high or critical advisory/);
  }, 60_000);
});
