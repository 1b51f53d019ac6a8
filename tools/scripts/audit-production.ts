/**
 * `npm audit --omit=dev` as a gate: fails on any high or critical advisory against a production
 * dependency (what the controller images ship) unless audit-allowlist.json at the repository root
 * allows it, with a reason and a review-by date. Entries without a reason (or package, advisory or
 * date) are refused; an entry past its review-by date fails; an entry whose advisory npm no longer
 * reports is listed as stale. When the registry's audit endpoint cannot be asked, it fails saying
 * so: production dependencies not checked is never a pass — with `--if-unreachable warn` (npm test
 * on machines whose registry mirror has no audit API) it says NOT CHECKED and exits 0.
 *
 * Usage: audit-production.ts [--report <npm audit --json output>] [--allowlist <file>]
 *                            [--if-unreachable fail|warn]
 *   --report          judge a saved report instead of running `npm audit --omit=dev --json`
 *   --allowlist       default: <repository>/audit-allowlist.json
 *   --if-unreachable  default fail
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** One advisory npm reports against a package of the production tree. */
export interface Advisory {
  /** GHSA id, e.g. GHSA-xvch-5gv4-984h (from the advisory URL), else the URL. */
  readonly id: string;
  readonly url: string;
  readonly package: string;
  readonly severity: 'info' | 'low' | 'moderate' | 'high' | 'critical';
  readonly title: string;
  /** The installed versions it affects, e.g. `<0.2.4`. */
  readonly range: string;
}

export interface AllowListEntry {
  /** The GHSA id or the advisory's URL. */
  readonly advisory: string;
  readonly package: string;
  /** Why it does not affect Steward, or why it must ship anyway. */
  readonly reason: string;
  /** YYYY-MM-DD: after this date the entry fails until someone looks again. */
  readonly reviewBy: string;
}

/** The audit endpoint did not answer with a report: nothing was checked. */
export class AuditUnavailableError extends Error {
  override name = 'AuditUnavailableError';
}

/** The allow-list file is not what this gate accepts; the message lists every problem. */
export class AllowListError extends Error {
  override name = 'AllowListError';
}

const severities = ['info', 'low', 'moderate', 'high', 'critical'] as const;
const failing = new Set<Advisory['severity']>(['high', 'critical']);

const ghsaOf = (s: string): string | undefined =>
  /GHSA(-[23456789cfghjmpqrvwx]{4}){3}/i.exec(s)?.[0];
/** How an advisory is named in the allow-list and in messages: its GHSA id, else its URL. */
const advisoryKey = (s: string): string => (ghsaOf(s) ?? s).toLowerCase();

/**
 * The advisories of an `npm audit --json` report (auditReportVersion 2), one per advisory and
 * package. Throws {@link AuditUnavailableError} when the output is npm's error object (the
 * endpoint unreachable, refused, or answering something else) rather than a report.
 */
export function advisoriesOf(report: unknown): Advisory[] {
  const r = report as {
    auditReportVersion?: unknown;
    vulnerabilities?: unknown;
    message?: unknown;
    error?: { summary?: unknown; detail?: unknown; code?: unknown };
  } | null;
  if (!r || typeof r !== 'object' || r.auditReportVersion !== 2 || !isRecord(r.vulnerabilities)) {
    const why =
      [r?.message, r?.error?.code, r?.error?.summary, r?.error?.detail]
        .filter((s) => typeof s === 'string' && s.trim())
        .join('; ') || `no report in the output (${JSON.stringify(report)?.slice(0, 200)})`;
    throw new AuditUnavailableError(
      `npm audit could not ask the registry's audit endpoint: ${why}. The production dependencies were NOT checked; ` +
        'run where the npm registry audit API (POST /-/npm/v1/security/advisories/bulk) is reachable',
    );
  }
  const seen = new Map<string, Advisory>();
  for (const vulnerability of Object.values(r.vulnerabilities)) {
    const via = (vulnerability as { via?: unknown }).via;
    if (!Array.isArray(via)) continue;
    for (const v of via) {
      // a string names another vulnerable package (a transitive path); its own entry holds the advisory
      if (!isRecord(v)) continue;
      const url = String(v['url'] ?? v['source'] ?? '');
      const advisory: Advisory = {
        id: ghsaOf(url) ?? url,
        url,
        package: String(v['name'] ?? ''),
        severity: (severities as readonly string[]).includes(String(v['severity']))
          ? (v['severity'] as Advisory['severity'])
          : 'critical', // an unknown severity is treated as the worst
        title: String(v['title'] ?? ''),
        range: String(v['range'] ?? ''),
      };
      seen.set(`${advisoryKey(url)} ${advisory.package}`, advisory);
    }
  }
  return [...seen.values()].sort((a, b) =>
    `${a.package} ${a.id}`.localeCompare(`${b.package} ${b.id}`),
  );
}

/** Parses and checks audit-allowlist.json; throws {@link AllowListError} naming every bad entry. */
export function parseAllowList(text: string, where = 'audit-allowlist.json'): AllowListEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new AllowListError(`${where} is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(data) || !Array.isArray(data['entries']))
    throw new AllowListError(`${where} must be an object with an "entries" array`);
  const problems: string[] = [];
  const entries: AllowListEntry[] = [];
  const keys = ['advisory', 'package', 'reason', 'reviewBy'];
  data['entries'].forEach((e: unknown, i: number) => {
    const at = `${where} entries[${i}]`;
    if (!isRecord(e)) return problems.push(`${at} is not an object`);
    const extra = Object.keys(e).filter((k) => !keys.includes(k));
    if (extra.length)
      problems.push(`${at}: unknown key(s) ${extra.join(', ')} (allowed: ${keys.join(', ')})`);
    const text = (k: string) => (typeof e[k] === 'string' ? (e[k] as string).trim() : '');
    if (!text('advisory')) problems.push(`${at}: no advisory (its GHSA id or URL)`);
    if (!text('package')) problems.push(`${at}: no package`);
    if (!text('reason'))
      problems.push(
        `${at} (${text('advisory') || '?'}): no reason — say why it does not affect Steward or must ship anyway`,
      );
    const reviewBy = text('reviewBy');
    if (!/^\d{4}-\d{2}-\d{2}$/.test(reviewBy) || Number.isNaN(Date.parse(`${reviewBy}T00:00:00Z`)))
      problems.push(
        `${at}: reviewBy must be a date YYYY-MM-DD, not ${JSON.stringify(e['reviewBy'])}`,
      );
    entries.push({
      advisory: text('advisory'),
      package: text('package'),
      reason: text('reason'),
      reviewBy,
    });
    return undefined;
  });
  if (problems.length) throw new AllowListError(`refused:\n  ${problems.join('\n  ')}`);
  return entries;
}

export interface Verdict {
  /** Each a line: why the gate fails. Empty: it passes. */
  readonly failures: string[];
  /** Allowed advisories (high/critical, allow-listed), each a line. */
  readonly allowed: string[];
  /** Entries that match no reported advisory: to be removed. */
  readonly stale: string[];
  /** Reported advisories below high, each a line (not failing). */
  readonly below: string[];
}

/** The gate's decision on the reported advisories under the allow-list, on day `today` (YYYY-MM-DD). */
export function judge(advisories: Advisory[], allowList: AllowListEntry[], today: string): Verdict {
  const matches = (e: AllowListEntry, a: Advisory) =>
    e.package === a.package && advisoryKey(e.advisory) === advisoryKey(a.url || a.id);
  const describe = (a: Advisory) => `${a.severity} ${a.id} in ${a.package} ${a.range}: ${a.title}`;
  const failures: string[] = [];
  const allowed: string[] = [];
  const below: string[] = [];
  for (const a of advisories) {
    if (!failing.has(a.severity)) {
      below.push(describe(a));
      continue;
    }
    const entry = allowList.find((e) => matches(e, a));
    if (!entry) failures.push(`${describe(a)} (${a.url}) — not in the allow-list`);
    else if (entry.reviewBy < today)
      failures.push(
        `${describe(a)} — allowed until review on ${entry.reviewBy}, which has passed: look again, then move the date or fix it`,
      );
    else allowed.push(`${describe(a)} — allowed until ${entry.reviewBy}: ${entry.reason}`);
  }
  const stale = allowList
    .filter((e) => !advisories.some((a) => matches(e, a)))
    .map(
      (e) => `${e.advisory} in ${e.package} is no longer reported: remove it from the allow-list`,
    );
  return { failures, allowed, stale, below };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `npm audit --omit=dev --json` in `cwd`: its JSON output (npm exits non-zero when it finds any). */
function runNpmAudit(cwd: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['audit', '--omit=dev', '--json'],
      { cwd, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        try {
          resolve(JSON.parse(stdout));
        } catch {
          reject(
            new AuditUnavailableError(
              `npm audit --omit=dev --json printed no JSON (${error?.message ?? 'exit 0'}): ${stderr.trim().slice(0, 500)}`,
            ),
          );
        }
      },
    );
  });
}

async function main(argv: string[]): Promise<number> {
  const root = join(import.meta.dirname, '..', '..');
  const option = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const allowListFile = option('--allowlist') ?? join(root, 'audit-allowlist.json');
  const reportFile = option('--report');
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const allowList = parseAllowList(readFileSync(allowListFile, 'utf8'), allowListFile);
    const report = reportFile
      ? JSON.parse(readFileSync(reportFile, 'utf8'))
      : await runNpmAudit(root);
    const verdict = judge(advisoriesOf(report), allowList, new Date().toISOString().slice(0, 10));
    for (const line of verdict.below) log(`audit: below the gate: ${line}`);
    for (const line of verdict.allowed) log(`audit: allowed: ${line}`);
    for (const line of verdict.stale) log(`audit: stale allow-list entry: ${line}`);
    for (const line of verdict.failures) log(`audit: FAIL ${line}`);
    if (verdict.failures.length) {
      log(
        `audit: ${verdict.failures.length} high/critical advisory(ies) in production dependencies: upgrade (npm audit fix --omit=dev, or an override), or allow-list it in ${allowListFile} with a reason and a review-by date`,
      );
      return 1;
    }
    log(
      `audit: no high or critical advisory in production dependencies outside the allow-list (${verdict.allowed.length} allowed, ${verdict.below.length} below high, ${verdict.stale.length} stale entries)`,
    );
    return 0;
  } catch (error) {
    // `--if-unreachable warn` (npm test on a machine whose registry mirror has no audit API, as
    // on the development machines): said loudly, not failed; the GitHub workflows run it strictly.
    if (error instanceof AuditUnavailableError && option('--if-unreachable') === 'warn') {
      log(`audit: NOT CHECKED (warning, not a pass): ${error.message}`);
      log(
        'audit: the GitHub workflows (ci.yml, release.yml) run this check strictly and fail when the endpoint cannot be asked',
      );
      return 0;
    }
    if (error instanceof AuditUnavailableError || error instanceof AllowListError) {
      log(`audit: FAIL ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
