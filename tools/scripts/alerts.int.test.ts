/**
 * Every chart's alerting rules, checked and unit-tested by Prometheus' own promtool (Debian's
 * package, unpacked by tools/backends/prometheus/install.sh): `promtool check rules` on the
 * committed rule file, then `promtool test rules` with series that make each alert fire and series
 * that must not, the annotations rendered by Prometheus compared word for word. And every alert has
 * its runbook, linked from its runbook_url.
 */
import { prometheusBinaries } from '@steward/testing-backends';
import { load } from 'js-yaml';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartAlerts, RUNBOOK_BASE, jobOf, type RuleFile } from '../charts/alerts.js';
import { controllerCharts } from '../charts/controller-chart.js';
import { alertsPath, REPO_ROOT } from './generate-charts.js';

const run = promisify(execFile);
let promtool = '';
let dir = '';

beforeAll(async () => {
  promtool = (await prometheusBinaries()).promtool;
  dir = await mkdtemp(join(tmpdir(), 'steward-alerts-'));
}, 600_000);
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Case {
  /** What the series show, for the test's name. */
  what: string;
  series: { series: string; values: string }[];
  eval_time: string;
  /** The expected alert's labels besides severity, and the text `{{ $value ... }}` renders to. */
  fires?: { labels: Record<string, string>; value: string };
}

/** `{{ $labels.x }}` and `{{ $value ... }}` of a rule's template filled in as Prometheus would. */
function render(template: string, labels: Record<string, string>, value: string): string {
  return template
    .replace(/\{\{ \$labels\.([a-z_]+) \}\}/g, (_, name: string) => labels[name] ?? '')
    .replace(/\{\{ \$value[^}]*\}\}/g, value);
}

/** Firing and quiet cases of each alert, for the chart whose job is `job`. */
function cases(job: string): Record<string, Case[]> {
  const j = `job="${job}"`;
  const obj = `${j},kind="Widget",namespace="shop"`;
  const objLabels = { job, kind: 'Widget', namespace: 'shop' };
  const ctl = `${j},controller="widget"`;
  const ctlLabels = { job, controller: 'widget' };
  const gauge = (name: string, values: string, labels = obj) => ({
    series: `${name}{${labels}}`,
    values,
  });
  return {
    StewardObjectNotReady: [
      {
        what: 'not Ready for 10 minutes',
        series: [gauge('steward_objects_longest_not_ready_seconds', '0+60x10')],
        eval_time: '10m',
        fires: { labels: objLabels, value: '10m 0s' },
      },
      {
        what: 'not Ready for 4 minutes',
        series: [gauge('steward_objects_longest_not_ready_seconds', '0+60x4')],
        eval_time: '4m',
      },
    ],
    StewardObjectReconcileFailing: [
      {
        what: '10 failures in a row',
        series: [gauge('steward_objects_max_consecutive_failures', '0 2 4 6 8 10')],
        eval_time: '5m',
        fires: { labels: objLabels, value: '10' },
      },
      {
        what: '9 failures in a row',
        series: [gauge('steward_objects_max_consecutive_failures', '0 2 4 6 8 9')],
        eval_time: '5m',
      },
    ],
    StewardSpecChangeNotObserved: [
      {
        what: 'a generation unobserved for 11 minutes',
        series: [gauge('steward_objects_longest_generation_unobserved_seconds', '0+60x11')],
        eval_time: '11m',
        fires: { labels: objLabels, value: '11m 0s' },
      },
      {
        what: 'a generation unobserved for 9 minutes',
        series: [gauge('steward_objects_longest_generation_unobserved_seconds', '0+60x9')],
        eval_time: '9m',
      },
    ],
    StewardObjectStuckTerminating: [
      {
        what: 'Terminating for 31 minutes',
        series: [gauge('steward_objects_longest_terminating_seconds', '0+60x31')],
        eval_time: '31m',
        fires: { labels: objLabels, value: '31m 0s' },
      },
      {
        what: 'Terminating for 29 minutes',
        series: [gauge('steward_objects_longest_terminating_seconds', '0+60x29')],
        eval_time: '29m',
      },
    ],
    StewardReconcileErrorRate: [
      {
        what: 'half the reconciles failing for 20 minutes',
        series: [
          gauge('controller_runtime_reconcile_errors_total', '0+30x30', ctl),
          gauge('controller_runtime_reconcile_total', '0+30x30', `${ctl},result="success"`),
          gauge('controller_runtime_reconcile_total', '0+30x30', `${ctl},result="error"`),
        ],
        eval_time: '20m',
        fires: { labels: ctlLabels, value: '50%' },
      },
      {
        what: '1 in 61 reconciles failing',
        series: [
          gauge('controller_runtime_reconcile_errors_total', '0+1x30', ctl),
          gauge('controller_runtime_reconcile_total', '0+60x30', `${ctl},result="success"`),
          gauge('controller_runtime_reconcile_total', '0+1x30', `${ctl},result="error"`),
        ],
        eval_time: '20m',
      },
    ],
    StewardReconcileSlow: [
      {
        what: 'every reconcile between 10 and 30 s',
        series: [
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0x30', `${ctl},le="10"`),
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0+10x30', `${ctl},le="30"`),
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0+10x30', `${ctl},le="+Inf"`),
        ],
        eval_time: '25m',
        fires: { labels: ctlLabels, value: '29s' },
      },
      {
        what: 'every reconcile under a second',
        series: [
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0+10x30', `${ctl},le="1"`),
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0+10x30', `${ctl},le="10"`),
          gauge('controller_runtime_reconcile_time_seconds_bucket', '0+10x30', `${ctl},le="+Inf"`),
        ],
        eval_time: '25m',
      },
    ],
    StewardWorkqueueBacklog: [
      {
        what: '150 keys queued for 15 minutes',
        series: [gauge('workqueue_depth', '150x20', `${ctl},name="widget"`)],
        eval_time: '15m',
        fires: { labels: ctlLabels, value: '150' },
      },
      {
        what: 'keys waiting over a minute (p95) for 15 minutes',
        series: [
          gauge('workqueue_depth', '5x20', `${ctl},name="widget"`),
          gauge('workqueue_queue_duration_seconds_bucket', '0x20', `${ctl},name="widget",le="10"`),
          gauge(
            'workqueue_queue_duration_seconds_bucket',
            '0+6x20',
            `${ctl},name="widget",le="100"`,
          ),
          gauge(
            'workqueue_queue_duration_seconds_bucket',
            '0+6x20',
            `${ctl},name="widget",le="+Inf"`,
          ),
        ],
        eval_time: '15m',
        fires: { labels: ctlLabels, value: '95.5' },
      },
      {
        what: '50 keys queued, waiting under 10 s',
        series: [
          gauge('workqueue_depth', '50x20', `${ctl},name="widget"`),
          gauge(
            'workqueue_queue_duration_seconds_bucket',
            '0+6x20',
            `${ctl},name="widget",le="10"`,
          ),
          gauge(
            'workqueue_queue_duration_seconds_bucket',
            '0+6x20',
            `${ctl},name="widget",le="+Inf"`,
          ),
        ],
        eval_time: '15m',
      },
    ],
    StewardApiServerThrottling: [
      {
        what: '429s for 15 minutes',
        series: [
          gauge(
            'rest_client_requests_total',
            '0+6x20',
            `${j},code="429",host="api:6443",method="GET"`,
          ),
        ],
        eval_time: '15m',
        fires: { labels: { job }, value: '0.10' },
      },
      {
        what: 'only 200s',
        series: [
          gauge(
            'rest_client_requests_total',
            '0+6x20',
            `${j},code="200",host="api:6443",method="GET"`,
          ),
        ],
        eval_time: '15m',
      },
    ],
    StewardNoLeader: [
      {
        what: 'two replicas, neither leading, for 10 minutes',
        series: [
          gauge('leader_election_master_status', '0x20', `${j},name="l",instance="a"`),
          gauge('leader_election_master_status', '0x20', `${j},name="l",instance="b"`),
        ],
        eval_time: '10m',
        fires: { labels: { job }, value: '' },
      },
      {
        what: 'every replica gone for 10 minutes',
        series: [
          gauge('leader_election_master_status', '1 1 1 1 1 stale', `${j},name="l",instance="a"`),
        ],
        eval_time: '15m',
        fires: { labels: { job }, value: '' },
      },
      {
        what: 'one replica leading, one standing by',
        series: [
          gauge('leader_election_master_status', '1x20', `${j},name="l",instance="a"`),
          gauge('leader_election_master_status', '0x20', `${j},name="l",instance="b"`),
        ],
        eval_time: '10m',
      },
    ],
    StewardFailover: [
      {
        what: 'one failover 5 minutes ago',
        series: [gauge('steward_failovers', '2x10 3x5')],
        eval_time: '15m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'a cluster with 3 failovers deleted, none since',
        series: [gauge('steward_failovers', '5x10 2x10')],
        eval_time: '15m',
      },
      {
        what: 'the last failover 20 minutes ago',
        series: [gauge('steward_failovers', '2x5 3x25')],
        eval_time: '30m',
      },
    ],
    StewardFailoverStuck: [
      {
        what: 'in progress for 15 minutes',
        series: [gauge('steward_failovers_in_progress', '1x20')],
        eval_time: '15m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'in progress for 3 minutes, then completed',
        series: [gauge('steward_failovers_in_progress', '1x3 0x20')],
        eval_time: '15m',
      },
    ],
    StewardPostgresFailoverRefused: [
      {
        what: 'refused for 2 minutes',
        series: [gauge('steward_postgres_failover_refused', '0 0 1 1 1 1')],
        eval_time: '5m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'never refused',
        series: [gauge('steward_postgres_failover_refused', '0x10')],
        eval_time: '5m',
      },
    ],
    StewardPostgresFailoverAtRisk: [
      {
        what: 'two clusters at risk for 20 minutes',
        series: [gauge('steward_postgres_failover_at_risk', '2x20')],
        eval_time: '20m',
        fires: { labels: objLabels, value: '2' },
      },
      {
        what: 'at risk for 10 minutes only',
        series: [gauge('steward_postgres_failover_at_risk', '1x10 0x10')],
        eval_time: '20m',
      },
    ],
    StewardPostgresBackupOverdue: [
      {
        what: 'overdue for 10 minutes',
        series: [gauge('steward_postgres_backups_overdue', '1x10')],
        eval_time: '10m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'on time',
        series: [gauge('steward_postgres_backups_overdue', '0x10')],
        eval_time: '10m',
      },
    ],
    StewardPostgresBackupFailing: [
      {
        what: 'the newest backup failed',
        series: [gauge('steward_postgres_backups_failing', '0 0 1')],
        eval_time: '2m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'a failed backup followed by a success',
        series: [gauge('steward_postgres_backups_failing', '0 1 0')],
        eval_time: '2m',
      },
    ],
    StewardPostgresWalArchivingFailing: [
      {
        what: 'failing for 10 minutes',
        series: [gauge('steward_postgres_wal_archiving_failing', '1x10')],
        eval_time: '10m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'a failure that cleared within 5 minutes',
        series: [gauge('steward_postgres_wal_archiving_failing', '1x3 0x7')],
        eval_time: '10m',
      },
    ],
    StewardPostgresRestoreRehearsalFailed: [
      {
        what: 'the newest rehearsal failed',
        series: [gauge('steward_postgres_restore_rehearsals_failed', '1x3')],
        eval_time: '2m',
        fires: { labels: objLabels, value: '1' },
      },
      {
        what: 'rehearsals pass',
        series: [gauge('steward_postgres_restore_rehearsals_failed', '0x3')],
        eval_time: '2m',
      },
    ],
  };
}

const charts = (await controllerCharts(REPO_ROOT)).map(
  (c) => [c.chart, chartAlerts(c.additions.alerts).map((a) => a.alert)] as const,
);

describe.each(charts)('the alerting rules of %s', (chart, alerts) => {
  const path = join(REPO_ROOT, alertsPath(chart));

  it('pass promtool check rules, one rule per alert, each linking its runbook', async () => {
    const { stdout } = await run(promtool, ['check', 'rules', path]);
    expect(stdout).toContain(`SUCCESS: ${alerts.length} rules found`);
    const file = load(await readFile(path, 'utf8')) as RuleFile;
    const rules = file.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert)).toEqual(alerts);
    for (const rule of rules) {
      expect(rule.annotations.runbook_url).toBe(`${RUNBOOK_BASE}/${rule.alert}.md`);
      const runbook = join(REPO_ROOT, 'docs', 'runbooks', `${rule.alert}.md`);
      expect(existsSync(runbook), `${runbook} is missing`).toBe(true);
    }
  });

  it('fire on the series that mean trouble and stay quiet on the others (promtool test rules)', async () => {
    const file = load(await readFile(path, 'utf8')) as RuleFile;
    const rules = new Map(file.groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
    const all = Object.fromEntries(
      Object.entries(cases(jobOf(chart))).filter(([alert]) => alerts.includes(alert)),
    );
    // every alert of the chart has a firing and a quiet case
    expect(Object.keys(all).sort()).toEqual([...alerts].sort());
    const tests = Object.entries(all).flatMap(([alert, list]) => {
      expect(list.some((c) => c.fires) && list.some((c) => !c.fires), alert).toBe(true);
      const rule = rules.get(alert)!;
      return list.map((c) => ({
        name: `${alert}: ${c.what}`,
        interval: '1m',
        input_series: c.series,
        alert_rule_test: [
          {
            eval_time: c.eval_time,
            alertname: alert,
            exp_alerts: c.fires
              ? [
                  {
                    exp_labels: { ...c.fires.labels, severity: rule.labels.severity },
                    exp_annotations: {
                      summary: render(rule.annotations.summary, c.fires.labels, c.fires.value),
                      description: render(
                        rule.annotations.description,
                        c.fires.labels,
                        c.fires.value,
                      ),
                      runbook_url: rule.annotations.runbook_url,
                    },
                  },
                ]
              : [],
          },
        ],
      }));
    });
    const testFile = join(dir, `${chart}.test.yaml`);
    await writeFile(
      testFile,
      JSON.stringify({ rule_files: [path], evaluation_interval: '1m', tests }),
    );
    const result = await run(promtool, ['test', 'rules', testFile]).catch(
      (error: { stdout?: string; stderr?: string }) => ({
        stdout: error.stdout ?? '',
        stderr: error.stderr ?? '',
        failed: true,
      }),
    );
    expect('failed' in result ? `${result.stdout}\n${result.stderr}` : 'SUCCESS').toBe('SUCCESS');
    expect(result.stdout).toContain('SUCCESS');
  });
});
