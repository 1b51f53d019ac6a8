/**
 * Admission and the controller agree on backup schedules: the PostgresCluster CRD exactly as the
 * chart ships it, on a real API server, against the controller's own parser (`parseSchedule`,
 * croner), over named edge cases and random expressions built from every token either knows.
 *
 * - Every schedule the parser refuses, admission refuses (the user hears at `kubectl apply`, not
 *   from a condition later).
 * - A schedule the parser takes is refused only for the reasons cron-schedule.ts documents: a
 *   nickname (`@daily`), `?` (croner reads it as the moment the controller started), a number with
 *   more than one leading zero, a step with a leading zero, a range carrying `L`, `LW` in a list,
 *   a weekday above 7 (croner takes `6-8/3`) and `nL` in the day of the month (croner reads `25L`
 *   as `25,L`).
 */
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { InvalidError, KubeClient } from '@steward/kube';
import { controlPlaneSuite, repoRoot } from '@steward/testing';
import fc from 'fast-check';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSchedule } from '../src/backup/plan.js';

const chartCrds = join(repoRoot(), 'charts', 'postgres-cluster-controller', 'crds');
const namespace = 'schedules';

const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { crds: [chartCrds], namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'schedule-admission-test' }),
);

let probes = 0;
/** Whether the API server admits a PostgresCluster backing up on `schedule` (dryRun). */
async function admitted(schedule: string): Promise<boolean> {
  try {
    await api.client.create(
      PostgresCluster.resourceType,
      {
        apiVersion: PostgresCluster.apiVersion,
        kind: 'PostgresCluster',
        metadata: { name: `s-${++probes}`, namespace },
        spec: {
          version: '17',
          backup: {
            destination: { bucket: 'team-backups', credentialsSecretRef: { name: 'keys' } },
            schedule,
          },
        },
      } as PostgresCluster,
      { dryRun: true },
    );
    return true;
  } catch (error) {
    if (error instanceof InvalidError) return false;
    throw error;
  }
}

const parsed = (schedule: string) => !('error' in parseSchedule(schedule));

/** What cron-schedule.ts refuses on purpose although croner takes it. */
const refusedOnPurpose = (schedule: string) =>
  schedule.startsWith('@') ||
  schedule.includes('?') ||
  /(^|[^0-9])00[0-9]/.test(schedule) ||
  /\/0/.test(schedule) ||
  /-[0-9a-z]+l/i.test(schedule) ||
  /[0-9]l|lw,|,lw/i.test(schedule.trim().split(/\s+/)[2] ?? '') ||
  /(^|[^0-9#])([89]|[1-9][0-9])/.test(schedule.trim().split(/\s+/)[4] ?? '');

const number = fc.oneof(
  { arbitrary: fc.integer({ min: 0, max: 12 }).map(String), weight: 6 },
  { arbitrary: fc.integer({ min: 0, max: 70 }).map(String), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 9 }).map((n) => `0${n}`), weight: 1 },
  { arbitrary: fc.integer({ min: 0, max: 9 }).map((n) => `00${n}`), weight: 1 },
);
const name = fc.constantFrom('JAN', 'dec', 'Jun', 'SUN', 'mon', 'FRI', 'sat', 'JANUARY', 'XYZ');
const value = fc.oneof({ arbitrary: number, weight: 4 }, { arbitrary: name, weight: 1 });
const step = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 7 }).map(String), weight: 4 },
  { arbitrary: fc.integer({ min: 0, max: 70 }).map(String), weight: 2 },
  { arbitrary: fc.constant('05'), weight: 1 },
);
const item = fc.oneof(
  { arbitrary: fc.constant('*'), weight: 3 },
  { arbitrary: step.map((s) => `*/${s}`), weight: 3 },
  { arbitrary: value, weight: 4 },
  { arbitrary: fc.tuple(value, value).map(([a, b]) => `${a}-${b}`), weight: 3 },
  { arbitrary: fc.tuple(value, value, step).map(([a, b, s]) => `${a}-${b}/${s}`), weight: 2 },
  { arbitrary: fc.tuple(value, step).map(([a, s]) => `${a}/${s}`), weight: 1 },
  { arbitrary: fc.constantFrom('?', 'L', 'LW', 'W', 'l'), weight: 1 },
  { arbitrary: value.map((v) => `${v}W`), weight: 1 },
  { arbitrary: value.map((v) => `${v}L`), weight: 1 },
  {
    arbitrary: fc
      .tuple(value, fc.constantFrom('0', '1', '5', '6', 'L'))
      .map(([v, k]) => `${v}#${k}`),
    weight: 1,
  },
);
const field = fc.array(item, { minLength: 1, maxLength: 2 }).map((items) => items.join(','));
const expression = fc.array(field, { minLength: 5, maxLength: 5 }).map((f) => f.join(' '));
/** Mostly one odd field among ordinary ones: the interesting cases are near valid. */
const nearValid = fc
  .tuple(fc.integer({ min: 0, max: 4 }), field)
  .map(([i, odd]) => ['0', '3', '*', '*', '*'].map((f, j) => (j === i ? odd : f)).join(' '));

const named = [
  '0 3 * * *',
  '*/15 0-23 * * 1-5',
  '60 * * * *',
  '0 0 * * 7',
  '0 0 * * FRI-SUN',
  '0 0 * DEC-JAN *',
  '0 0 L * *',
  '0 0 * * 5#L',
  '0 0 * * 1-5L',
  '0 3 25L * *',
  '0 3 LW,6 * *',
  '0 3 * * sat-8/3',
  '0 0 ? * *',
  '*/60 * * * *',
  '*/61 * * * *',
  '0 0 * * 007',
  '@daily',
];

describe('backup schedules: admission and the controller’s parser', () => {
  it('refuses every schedule the parser refuses, and only refuses on purpose what it takes', async () => {
    const schedules = [
      ...named,
      ...fc.sample(nearValid, { numRuns: 400, seed: 25 }),
      ...fc.sample(expression, { numRuns: 100, seed: 25 }),
    ];
    const disagreements: string[] = [];
    let bothTake = 0;
    for (const schedule of new Set(schedules)) {
      const [parser, server] = [parsed(schedule), await admitted(schedule)];
      if (parser && server) bothTake++;
      if (!parser && server) disagreements.push(`admitted, the parser refuses: ${schedule}`);
      if (parser && !server && !refusedOnPurpose(schedule)) {
        disagreements.push(`refused, the parser takes: ${schedule}`);
      }
    }
    expect(disagreements).toEqual([]);
    // The random cases reach valid schedules too, not only refusals.
    expect(bothTake).toBeGreaterThan(60);
  });
});
