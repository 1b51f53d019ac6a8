// Sums vitest JSON reports into per-tier counts and one closing line,
// "tests: N passed, N failed, N skipped". As a command (`tsx summarize-tests.ts <dir>`) it prints
// every failed test (file, name, the first line of its error) and then the counts, last, because a
// CI log is often read from its tail; it exits 1 when a test failed or when no test ran at all.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

export type Tier = 'unit' | 'integration' | 'e2e';
export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** The part of vitest's JSON report this reads. */
export interface VitestReport {
  testResults?: {
    name: string;
    status?: string;
    message?: string;
    assertionResults?: { status: string; fullName?: string; failureMessages?: string[] }[];
  }[];
}

/** e2e: files under an `e2e/` folder; integration: `*.int.test.ts`; everything else is unit. */
export function tierOf(file: string): Tier {
  if (/(^|\/)e2e\//.test(file)) return 'e2e';
  if (/\.int\.test\.ts$/.test(file)) return 'integration';
  return 'unit';
}

export function summarize(reports: VitestReport[]): Record<Tier | 'total', Counts> {
  const zero = (): Counts => ({ passed: 0, failed: 0, skipped: 0 });
  const result = { unit: zero(), integration: zero(), e2e: zero(), total: zero() };
  for (const report of reports) {
    for (const suite of report.testResults ?? []) {
      const counts = [result[tierOf(suite.name)], result.total];
      const tests = suite.assertionResults ?? [];
      // A file that failed before any test ran (syntax error, failing beforeAll) counts as a failure.
      if (suite.status === 'failed' && tests.every((t) => t.status !== 'failed')) {
        for (const c of counts) c.failed++;
      }
      for (const test of tests) {
        const key =
          test.status === 'passed' ? 'passed' : test.status === 'failed' ? 'failed' : 'skipped';
        for (const c of counts) c[key]++;
      }
    }
  }
  return result;
}

/** One line per failed test, or per file that failed before its tests ran, in report order. */
export function failures(reports: VitestReport[], root = ''): string[] {
  const lines: string[] = [];
  const firstLine = (text: string | undefined): string =>
    (text ?? '')
      .split('\n')
      .find((l) => l.trim() !== '')
      ?.trim()
      .slice(0, 300) ?? '';
  for (const report of reports) {
    for (const suite of report.testResults ?? []) {
      const file = root && suite.name.startsWith(root) ? suite.name.slice(root.length) : suite.name;
      const tests = suite.assertionResults ?? [];
      if (suite.status === 'failed' && tests.every((t) => t.status !== 'failed')) {
        lines.push(
          `${file}: ${firstLine(suite.message) || 'the file failed before its tests ran'}`,
        );
      }
      for (const test of tests.filter((t) => t.status === 'failed')) {
        const message = firstLine(test.failureMessages?.[0]);
        lines.push(`${file} > ${test.fullName ?? '(unnamed)'}${message ? `: ${message}` : ''}`);
      }
    }
  }
  return lines;
}

export function format(counts: Counts): string {
  return `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
}

function main(dir: string): number {
  let files: string[] = [];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    // no report directory: no tests ran, reported below
  }
  const reports = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as VitestReport);
  const summary = summarize(reports);
  const failed = failures(reports, `${process.cwd()}/`);
  if (failed.length > 0) {
    process.stdout.write(`failed (${failed.length}):\n`);
    for (const line of failed) process.stdout.write(`  ${line}\n`);
  }
  for (const tier of ['unit', 'integration', 'e2e'] as const) {
    process.stdout.write(`${tier.padEnd(12)} ${format(summary[tier])}\n`);
  }
  process.stdout.write(`tests: ${format(summary.total)}\n`);
  return summary.total.failed > 0 || summary.total.passed === 0 ? 1 : 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exit(main(process.argv[2] ?? 'reports/vitest'));
}
