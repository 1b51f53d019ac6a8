import { type PostgresCluster, type UpgradeStatus } from '@steward/postgres-cluster-api';
import { StaleDecisionError, type ImagePull } from '@steward/workload';
import { describe, expect, it } from 'vitest';
import { type JobObject } from '../backup/reconcile.js';
import { InstructionAnnotation, Labels } from '../children/names.js';
import { type InstanceFacts } from '../plan/plan.js';
import { type LeaseObject } from '../fence/lease.js';
import { type Pod } from '../pods.js';
import {
  planUpgrade,
  PROVISION_TIMEOUT_MS,
  type UpgradeAction,
  type UpgradeAnswers,
  type UpgradeFacts,
  type UpgradeOutcome,
  type UpgradePlan,
} from './upgrade-plan.js';
import { Upgrades, type UpgradesDeps } from './upgrade.js';

const now = new Date('2026-12-03T12:00:00Z');
const at = now.toISOString();
const minutesAgo = (m: number) => new Date(now.getTime() - m * 60_000).toISOString();

const cluster = (
  spec: Partial<PostgresCluster['spec']> = {},
  status: PostgresCluster['status'] = {},
  generation = 4,
): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'orders', namespace: 'shop', generation, uid: 'u-1' },
    spec: {
      version: '17',
      replicas: 2,
      backup: { destination: { bucket: 'b', credentialsSecretRef: { name: 'keys' } }, verify: {} },
      upgrade: { approvedVersion: '17' },
      ...spec,
    },
    status: {
      version: '15',
      primary: 'orders-0',
      instanceSet: 'orders',
      backup: {
        lastVerification: {
          at: minutesAgo(60),
          backupId: '20261203T110000Z',
          job: 'orders-vf-1',
          result: 'Passed',
          recoveryPoint: minutesAgo(60),
          message: '',
        },
      },
      ...status,
    },
  }) as PostgresCluster;

/** The old primary's databases and their connection limits before the hold. */
const held = [
  { name: 'app', connectionLimit: -1 },
  { name: 'postgres', connectionLimit: 5 },
];

/** status.upgrade in `phase`, as StoppingWrites recorded it 2 minutes ago. */
const record = (
  phase: UpgradeStatus['phase'],
  more: Partial<UpgradeStatus> = {},
): UpgradeStatus => ({
  phase,
  from: '15',
  to: '17',
  fromSet: 'orders',
  toSet: 'orders-v17',
  fromImage: 'pg:15',
  toImage: 'pg:17',
  fromReplicas: 2,
  method: 'DumpRestore',
  generation: 4,
  primary: 'orders-0',
  startedAt: minutesAgo(3),
  writesStoppedAt: minutesAgo(2),
  verifiedBackup: '20261203T110000Z',
  heldDatabases: held,
  steps: [],
  message: `${phase} message`,
  ...more,
});

const serving = {
  reachable: true as const,
  inRecovery: false,
  systemIdentifier: '7001',
  timeline: 1,
};
const instance = (name: string, ip: string, over: Partial<InstanceFacts> = {}): InstanceFacts => ({
  name,
  ordinal: Number(name.at(-1)),
  ip,
  ready: true,
  deleting: false,
  view: {
    ...serving,
    inRecovery: name !== 'orders-0',
    streaming: false,
    replication: [],
    synchronousStandbyNames: '',
  },
  ...over,
});
const pod = (name: string, ip?: string, over: Partial<Pod['metadata']> = {}): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'shop', ...over },
  ...(ip ? { status: { podIP: ip } } : {}),
});
const oldPods = [
  pod('orders-0', '10.0.0.1', { labels: { [Labels.role]: 'primary' } }),
  pod('orders-1', '10.0.0.2', { labels: { [Labels.role]: 'standby' } }),
];
const newPod = pod('orders-v17-0', '10.0.1.1', {
  annotations: { [InstructionAnnotation]: 'initdb' },
});
const job = (condition?: 'Complete' | 'Failed', name = 'orders-upgrade-4'): JobObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'shop' },
  status: condition ? { conditions: [{ type: condition, status: 'True' }] } : {},
});
const passed = JSON.stringify({
  result: 'Passed',
  databases: 3,
  tables: 12,
  rows: 4500,
  durationSeconds: 41,
  message: 'ok',
});

/** The facts of a healthy 2-instance cluster running 15, spec 17, upgrade as `upgrade` says. */
function facts(
  upgrade: UpgradeStatus | undefined,
  over: Partial<UpgradeFacts> = {},
  status: PostgresCluster['status'] = {},
): UpgradeFacts {
  return {
    cluster: cluster({}, { ...(upgrade ? { upgrade } : {}), ...status }),
    running: '15',
    currentSet: 'orders',
    fromImage: 'pg:15',
    toImage: 'pg:17',
    instances: [instance('orders-0', '10.0.0.1'), instance('orders-1', '10.0.0.2')],
    health: {
      primary: 'orders-0',
      primaryServing: true,
      initialised: true,
      instances: [],
      readyReplicas: 2,
      failingOver: false,
      switchingOver: false,
    },
    desired: 2,
    pods: [...oldPods, newPod],
    jobs: [],
    claims: ['data-orders-0', 'data-orders-1', 'data-orders-v17-0'],
    now,
    ...over,
  };
}

interface Case {
  name: string;
  facts: UpgradeFacts;
  answers?: UpgradeAnswers;
  /** The plan asks for these actions' answers (replan). */
  asks?: UpgradeAction[];
  actions?: UpgradeAction[];
  /** The phase the record is written over, and status.upgrade as written (a subset). */
  record?: { expected: string | undefined; upgrade: Partial<UpgradeStatus> };
  condition?: UpgradeOutcome['condition'];
  outcome?: Partial<UpgradeOutcome>;
  events?: string[];
}

const healthOf = (over: Partial<UpgradeFacts['health']>) => ({
  ...facts(undefined).health,
  ...over,
});
const rollingBack = (
  from: UpgradeStatus['phase'],
  why: string,
): Pick<Case, 'record' | 'condition' | 'outcome' | 'events' | 'actions'> => ({
  actions: [],
  record: { expected: from, upgrade: { phase: 'RollingBack', message: why } },
  condition: { status: 'True', reason: 'RollingBack', message: why },
  outcome: { active: true, writesStopped: true, switched: false, requeueAfterMs: 500 },
  events: ['Warning UpgradeRollingBack'],
});
const lostPrimary = {
  status: { primary: 'orders-1' },
  instances: [
    instance('orders-0', '10.0.0.1', { view: { reachable: false, error: 'down' } }),
    instance('orders-1', '10.0.0.2'),
  ],
};
const withStatus = (
  u: UpgradeStatus,
  status: PostgresCluster['status'],
  over: Partial<UpgradeFacts> = {},
) => facts(u, over, status);

const cases: Case[] = [
  // ── no upgrade under way ─────────────────────────────────────────────────────────────
  {
    name: 'spec.version not above the running one: nothing to do, no condition',
    facts: facts(undefined, { running: '17' }),
    actions: [],
    outcome: { active: false, writesStopped: false, switched: false },
    condition: undefined,
  },
  {
    name: 'Completed, nothing newer: the UpgradeCompleted condition',
    facts: facts(record('Completed', { message: 'PostgreSQL 17 serves' }), { running: '17' }),
    actions: [],
    condition: {
      status: 'False',
      reason: 'UpgradeCompleted',
      message: 'upgraded from 15 to 17: PostgreSQL 17 serves',
    },
    outcome: { active: false },
  },
  {
    name: 'RolledBack, nothing newer: the UpgradeRolledBack condition with the record’s message',
    facts: facts(record('RolledBack', { message: 'restore failed' }), { running: '17' }),
    actions: [],
    condition: { status: 'False', reason: 'UpgradeRolledBack', message: 'restore failed' },
  },
  {
    name: 'gate closed (not approved): WaitingForApproval, looked at again in 30 s',
    facts: { ...facts(undefined), cluster: cluster({ upgrade: {} }) },
    actions: [],
    condition: {
      status: 'False',
      reason: 'WaitingForApproval',
      message: expect.stringContaining('set spec.upgrade.approvedVersion to "17"') as string,
    },
    outcome: { active: false, requeueAfterMs: 30_000, problem: undefined },
  },
  {
    name: 'gate closed (no verified backup young enough): NoVerifiedBackup',
    facts: facts(undefined, {}, { backup: {} }),
    actions: [],
    condition: {
      status: 'False',
      reason: 'NoVerifiedBackup',
      message: expect.stringContaining('no restore rehearsal has run yet') as string,
    },
    outcome: { requeueAfterMs: 30_000 },
  },
  {
    name: 'gate closed (rolled back at this generation): UpgradeRolledBack, a problem too',
    facts: facts(record('RolledBack', { message: 'restore failed' })),
    actions: [],
    condition: {
      status: 'False',
      reason: 'UpgradeRolledBack',
      message: expect.stringContaining('was rolled back: restore failed') as string,
    },
    outcome: {
      problem: {
        reason: 'UpgradeRolledBack',
        message: expect.stringContaining('restore failed') as string,
      },
      requeueAfterMs: 30_000,
    },
  },
  {
    name: 'gate open, no image for spec.version: ImageNotInCatalogue, nothing recorded',
    facts: facts(undefined, { toImage: undefined }),
    actions: [],
    condition: {
      status: 'False',
      reason: 'ImageNotInCatalogue',
      message: 'no image for PostgreSQL 17 in the catalogue: the upgrade cannot start',
    },
    outcome: { requeueAfterMs: undefined },
  },
  {
    name: 'gate open, an instance not ready: WaitingForHealthyCluster, 5 s',
    facts: facts(undefined, { health: healthOf({ readyReplicas: 1 }) }),
    actions: [],
    condition: {
      status: 'False',
      reason: 'WaitingForHealthyCluster',
      message: 'the upgrade to 17 starts once every instance is ready (1 of 2)',
    },
    outcome: { requeueAfterMs: 5000 },
  },
  {
    name: 'gate open, a failover under way: WaitingForHealthyCluster',
    facts: facts(undefined, { health: healthOf({ failingOver: true }) }),
    actions: [],
    condition: {
      status: 'False',
      reason: 'WaitingForHealthyCluster',
      message: expect.any(String) as string,
    },
  },
  {
    name: 'gate open, every instance ready: reads the old primary’s connection limits first',
    facts: facts(undefined),
    asks: [{ type: 'readConnectionLimits', ip: '10.0.0.1' }],
  },
  {
    name: 'gate open, every instance ready: StoppingWrites recorded over no upgrade with the limits, UpgradeStarted',
    facts: facts(undefined),
    answers: { limits: held },
    actions: [],
    record: {
      expected: undefined,
      upgrade: {
        phase: 'StoppingWrites',
        from: '15',
        to: '17',
        fromSet: 'orders',
        toSet: 'orders-v17',
        fromImage: 'pg:15',
        toImage: 'pg:17',
        fromReplicas: 2,
        method: 'DumpRestore',
        generation: 4,
        primary: 'orders-0',
        startedAt: at,
        verifiedBackup: '20261203T110000Z',
        heldDatabases: held,
        steps: [],
        message: 'upgrading from 15 to 17: stopping writes on orders-0',
      },
    },
    condition: {
      status: 'True',
      reason: 'StoppingWrites',
      message: 'upgrading from 15 to 17: stopping writes on orders-0',
    },
    outcome: { active: true, writesStopped: true, switched: false, requeueAfterMs: 100 },
    events: ['Normal UpgradeStarted'],
  },
  {
    name: 'gate open again after a roll-back of an older generation: recorded over RolledBack',
    facts: {
      ...facts(undefined),
      cluster: cluster({}, { upgrade: record('RolledBack', { generation: 3 }) }),
    },
    answers: { limits: held },
    record: { expected: 'RolledBack', upgrade: { phase: 'StoppingWrites', generation: 4 } },
    events: ['Normal UpgradeStarted'],
  },
  // ── StoppingWrites ───────────────────────────────────────────────────────────────────
  {
    name: 'StoppingWrites recorded without the limits (an older controller): reads them first',
    facts: facts(record('StoppingWrites', { heldDatabases: undefined })),
    asks: [{ type: 'readConnectionLimits', ip: '10.0.0.1' }],
  },
  {
    name: 'StoppingWrites recorded without the limits: records them (same phase) before the hold',
    facts: facts(record('StoppingWrites', { heldDatabases: undefined })),
    answers: { limits: held },
    actions: [],
    record: {
      expected: 'StoppingWrites',
      upgrade: { phase: 'StoppingWrites', heldDatabases: held },
    },
    outcome: { writesStopped: true, requeueAfterMs: 100 },
  },
  {
    name: 'StoppingWrites: stops writes on the old primary, then plans with the sessions ended',
    facts: facts(record('StoppingWrites')),
    asks: [{ type: 'stopWrites', ip: '10.0.0.1' }],
  },
  {
    name: 'StoppingWrites, writes stopped: Provisioning recorded with the sessions ended',
    facts: facts(record('StoppingWrites', { writesStoppedAt: undefined })),
    answers: { sessionsEnded: 3 },
    actions: [],
    record: {
      expected: 'StoppingWrites',
      upgrade: {
        phase: 'Provisioning',
        writesStoppedAt: at,
        steps: [
          {
            name: 'StopWrites',
            outcome: 'Succeeded',
            at,
            message:
              "orders-0 takes no writes: out of the read-write Service, only the superuser may connect (every database's connection limit 0), read-only by default; 3 client sessions ended",
          },
        ],
        message: 'writes stopped; orders-v17-0 initialises PostgreSQL 17',
      },
    },
    condition: {
      status: 'True',
      reason: 'Provisioning',
      message: 'writes stopped; orders-v17-0 initialises PostgreSQL 17',
    },
    outcome: { writesStopped: true, requeueAfterMs: 500 },
    events: [],
  },
  {
    name: 'StoppingWrites, the old primary failed over: rolls back',
    facts: withStatus(record('StoppingWrites'), lostPrimary.status, {
      instances: lostPrimary.instances,
    }),
    ...rollingBack('StoppingWrites', 'the old primary orders-0 is no longer primary (orders-1 is)'),
  },
  {
    name: 'StoppingWrites, the old primary unreachable: rolls back',
    facts: facts(record('StoppingWrites'), {
      instances: [instance('orders-0', '10.0.0.1', { view: { reachable: false, error: 'down' } })],
    }),
    ...rollingBack('StoppingWrites', 'the old primary orders-0 no longer serves'),
  },
  // ── Provisioning ─────────────────────────────────────────────────────────────────────
  {
    name: 'Provisioning, the new pod has no IP yet: waits 1 s',
    facts: facts(record('Provisioning'), { pods: [...oldPods, pod('orders-v17-0')] }),
    actions: [],
    condition: { status: 'True', reason: 'Provisioning', message: 'Provisioning message' },
    outcome: { writesStopped: true, requeueAfterMs: 1000 },
  },
  {
    name: 'Provisioning, the new pod not instructed: instructs initdb, waits 1 s',
    facts: facts(record('Provisioning'), { pods: [...oldPods, pod('orders-v17-0', '10.0.1.1')] }),
    actions: [{ type: 'instruct', pod: 'orders-v17-0', set: 'orders-v17', instruction: 'initdb' }],
    outcome: { requeueAfterMs: 1000 },
  },
  {
    name: 'Provisioning, instructed: observes the new instance, then plans',
    facts: facts(record('Provisioning')),
    asks: [{ type: 'observe', ip: '10.0.1.1' }],
  },
  {
    name: 'Provisioning, the new instance not serving yet: waits 1 s',
    facts: facts(record('Provisioning')),
    answers: { target: { reachable: false } },
    actions: [],
    outcome: { requeueAfterMs: 1000 },
  },
  {
    name: 'Provisioning, the new instance serves: Restoring recorded, naming the Job',
    facts: facts(record('Provisioning')),
    answers: { target: serving },
    actions: [],
    record: {
      expected: 'Provisioning',
      upgrade: {
        phase: 'Restoring',
        job: 'orders-upgrade-4',
        steps: [
          {
            name: 'Provision',
            outcome: 'Succeeded',
            at,
            message: 'orders-v17-0 runs PostgreSQL 17 (system identifier 7001)',
          },
        ],
        message: 'dumping every database from orders-0 into orders-v17-0',
      },
    },
    outcome: { requeueAfterMs: 500 },
    events: [],
  },
  {
    name: 'Provisioning, not initialised within the timeout: rolls back with the agent’s last words',
    facts: facts(
      record('Provisioning', { writesStoppedAt: minutesAgo(PROVISION_TIMEOUT_MS / 60_000 + 1) }),
      {
        pods: [
          ...oldPods,
          {
            ...pod('orders-v17-0'),
            status: {
              containerStatuses: [
                {
                  name: 'postgres',
                  ready: false,
                  lastState: { terminated: { message: 'initdb: disk full ' } },
                },
              ],
            },
          } as Pod,
        ],
      },
    ),
    ...rollingBack(
      'Provisioning',
      'orders-v17-0 did not initialise PostgreSQL 17 within 10 minutes (its agent: initdb: disk full)',
    ),
  },
  {
    name: 'Provisioning, the old primary lost (checked before the timeout): rolls back',
    facts: withStatus(
      record('Provisioning', { writesStoppedAt: minutesAgo(60) }),
      lostPrimary.status,
      { instances: lostPrimary.instances },
    ),
    ...rollingBack('Provisioning', 'the old primary orders-0 is no longer primary (orders-1 is)'),
  },
  // ── Restoring ────────────────────────────────────────────────────────────────────────
  {
    name: 'Restoring, no Job yet: creates it (old primary → new instance), waits 2 s',
    facts: facts(record('Restoring', { job: 'orders-upgrade-4' })),
    actions: [
      { type: 'createJob', image: 'pg:17', fromIp: '10.0.0.1', toIp: '10.0.1.1', generation: 4 },
    ],
    condition: { status: 'True', reason: 'Restoring', message: 'Restoring message' },
    outcome: { writesStopped: true, requeueAfterMs: 2000 },
  },
  {
    name: 'Restoring, no Job and the new pod lost its IP: rolls back',
    facts: facts(record('Restoring'), { pods: oldPods }),
    ...rollingBack('Restoring', 'orders-v17-0 has no IP any more'),
  },
  {
    name: 'Restoring, the Job runs: waits 2 s, reads nothing',
    facts: facts(record('Restoring', { job: 'orders-upgrade-4' }), { jobs: [job()] }),
    actions: [],
    outcome: { requeueAfterMs: 2000 },
  },
  {
    name: 'Restoring, the Job finished: reads its outcome before deciding',
    facts: facts(record('Restoring', { job: 'orders-upgrade-4' }), { jobs: [job('Complete')] }),
    asks: [{ type: 'readJobOutcome', job: job('Complete') }],
  },
  {
    name: 'Restoring, the Job failed: rolls back with the outcome’s message',
    facts: facts(record('Restoring'), { jobs: [job('Failed')] }),
    answers: {
      jobMessage: {
        text: JSON.stringify({ result: 'Failed', message: 'row counts differ in public.orders' }),
      },
    },
    ...rollingBack(
      'Restoring',
      'the dump and restore (Job orders-upgrade-4) failed: row counts differ in public.orders',
    ),
  },
  {
    name: 'Restoring, the Job complete but its outcome unreadable: rolls back with the text',
    facts: facts(record('Restoring'), { jobs: [job('Complete')] }),
    answers: { jobMessage: { text: 'pg_restore: error' } },
    ...rollingBack(
      'Restoring',
      'the dump and restore (Job orders-upgrade-4) failed: pg_restore: error',
    ),
  },
  {
    name: 'Restoring, the Job complete without an outcome: rolls back',
    facts: facts(record('Restoring'), { jobs: [job('Complete')] }),
    answers: { jobMessage: { text: undefined } },
    ...rollingBack(
      'Restoring',
      'the dump and restore (Job orders-upgrade-4) failed: it left no outcome',
    ),
  },
  {
    name: 'Restoring, the Job passed: observes the new instance before switching',
    facts: facts(record('Restoring'), { jobs: [job('Complete')] }),
    answers: { jobMessage: { text: passed } },
    asks: [{ type: 'observe', ip: '10.0.1.1' }],
  },
  {
    name: 'Restoring, the new instance stopped serving after the restore: rolls back',
    facts: facts(record('Restoring'), { jobs: [job('Complete')] }),
    answers: { jobMessage: { text: passed }, target: { ...serving, inRecovery: true } },
    ...rollingBack('Restoring', 'orders-v17-0 stopped serving after the restore'),
  },
  {
    name: 'Restoring, the new pod lost its IP after the restore: rolls back without observing',
    facts: facts(record('Restoring'), { jobs: [job('Complete')], pods: oldPods }),
    answers: { jobMessage: { text: passed } },
    ...rollingBack('Restoring', 'orders-v17-0 stopped serving after the restore'),
  },
  {
    name: 'Restoring, the old primary lost: rolls back (before the Job is looked at)',
    facts: withStatus(record('Restoring'), lostPrimary.status, {
      instances: lostPrimary.instances,
      jobs: [job('Complete')],
    }),
    ...rollingBack('Restoring', 'the old primary orders-0 is no longer primary (orders-1 is)'),
  },
  {
    name: 'Restoring, restored and checked: the switch, in one write (version, image, set, primary, backups afresh)',
    facts: facts(record('Restoring'), { jobs: [job('Complete')] }),
    answers: {
      jobMessage: { text: passed },
      target: { ...serving, systemIdentifier: '7002', timeline: 1 },
    },
    // The dump brought the limits of 0 along: the old ones given back before the switch.
    actions: [{ type: 'releaseConnections', ip: '10.0.1.1', limits: held }],
    record: {
      expected: 'Restoring',
      upgrade: {
        phase: 'Switching',
        steps: [
          {
            name: 'Restore',
            outcome: 'Succeeded',
            at,
            message: '3 databases dumped from PostgreSQL 15 and restored into 17 in 41 s',
          },
          {
            name: 'Check',
            outcome: 'Succeeded',
            at,
            message: '12 tables, 4500 rows: every row count equal',
          },
        ],
        message: 'switching the Services to orders-v17-0',
      },
    },
    condition: {
      status: 'True',
      reason: 'Switching',
      message: 'switching the Services to orders-v17-0',
    },
    outcome: { active: true, writesStopped: true, switched: true, requeueAfterMs: 100 },
    events: ['Normal UpgradeSwitching'],
  },
  // ── Switching ────────────────────────────────────────────────────────────────────────
  {
    name: 'Switching, the new primary not serving yet: unlabels the old instances, waits 500 ms',
    facts: facts(record('Switching'), { health: healthOf({ primaryServing: false }) }),
    actions: [
      { type: 'unlabel', pod: 'orders-0' },
      { type: 'unlabel', pod: 'orders-1' },
    ],
    condition: { status: 'True', reason: 'Switching', message: 'Switching message' },
    outcome: { writesStopped: true, requeueAfterMs: 500 },
  },
  {
    name: 'Switching, the new primary serves: unlabels (only labelled pods), then Completing recorded',
    facts: facts(record('Switching'), { pods: [oldPods[0]!, pod('orders-1', '10.0.0.2'), newPod] }),
    actions: [{ type: 'unlabel', pod: 'orders-0' }],
    record: {
      expected: 'Switching',
      upgrade: {
        phase: 'Completing',
        writesResumedAt: at,
        steps: [
          {
            name: 'Switch',
            outcome: 'Succeeded',
            at,
            message: 'orders-v17-0 is primary and takes writes; the Services follow it',
          },
        ],
        message:
          'orders-v17-0 serves PostgreSQL 17; its standbys are cloned, then the old instances go',
      },
    },
    condition: {
      status: 'True',
      reason: 'Completing',
      message: expect.stringContaining('serves PostgreSQL 17') as string,
    },
    outcome: { writesStopped: false, active: true, requeueAfterMs: 500 },
    events: [],
  },
  // ── Completing ───────────────────────────────────────────────────────────────────────
  {
    name: 'Completing, standbys not all ready: unlabels, waits 1 s',
    facts: facts(record('Completing'), { health: healthOf({ readyReplicas: 1 }) }),
    actions: [
      { type: 'unlabel', pod: 'orders-0' },
      { type: 'unlabel', pod: 'orders-1' },
    ],
    outcome: { writesStopped: false, active: true, requeueAfterMs: 1000 },
  },
  {
    name: 'Completing, every instance ready: Completed recorded, the old volumes named, the downtime said',
    facts: facts(
      record('Completing', { writesStoppedAt: minutesAgo(2), writesResumedAt: minutesAgo(1) }),
      { pods: [newPod] },
    ),
    actions: [],
    record: {
      expected: 'Completing',
      upgrade: {
        phase: 'Completed',
        completedAt: at,
        steps: [
          {
            name: 'Complete',
            outcome: 'Succeeded',
            at,
            message:
              '2 instances of PostgreSQL 17 ready; StatefulSet orders removed, its volumes data-orders-0, data-orders-1 kept',
          },
        ],
        message: 'PostgreSQL 17 serves; writes were stopped for 60.0 s',
      },
    },
    condition: {
      status: 'False',
      reason: 'UpgradeCompleted',
      message: 'upgraded from 15 to 17: PostgreSQL 17 serves; writes were stopped for 60.0 s',
    },
    outcome: { active: false, writesStopped: false, switched: false, requeueAfterMs: undefined },
    events: ['Normal UpgradeCompleted'],
  },
  // ── RollingBack ──────────────────────────────────────────────────────────────────────
  {
    name: 'RollingBack, the new pod still there: waits 1 s for the prune',
    facts: facts(record('RollingBack', { message: 'restore failed' })),
    actions: [],
    condition: { status: 'True', reason: 'RollingBack', message: 'restore failed' },
    outcome: { writesStopped: true, requeueAfterMs: 1000 },
  },
  {
    name: 'RollingBack, the new pod gone: deletes the new set’s claims, resumes writes on every reachable instance',
    facts: facts(record('RollingBack'), {
      pods: oldPods,
      instances: [
        instance('orders-0', '10.0.0.1'),
        instance('orders-1', '10.0.0.2', { view: { reachable: false, error: 'x' } }),
        instance('orders-2', ''),
      ],
    }),
    asks: [
      { type: 'deleteClaim', claim: 'data-orders-v17-0' },
      { type: 'resumeWrites', ips: ['10.0.0.1'], primaryIp: '10.0.0.1', limits: held },
    ],
  },
  {
    name: 'RollingBack after a failover: the limits given back on the new primary (they replicate)',
    facts: withStatus(record('RollingBack'), lostPrimary.status, {
      pods: oldPods,
      instances: [
        instance('orders-0', '10.0.0.1', { view: { reachable: false, error: 'down' } }),
        instance('orders-1', '10.0.0.2', {
          view: { ...serving, streaming: false, replication: [], synchronousStandbyNames: '' },
        }),
      ],
    }),
    asks: [
      { type: 'deleteClaim', claim: 'data-orders-v17-0' },
      { type: 'resumeWrites', ips: ['10.0.0.2'], primaryIp: '10.0.0.2', limits: held },
    ],
  },
  {
    name: 'RollingBack, the primary unreachable: waits 2 s before giving anything back',
    facts: facts(record('RollingBack'), {
      pods: oldPods,
      instances: [instance('orders-0', '10.0.0.1', { view: { reachable: false, error: 'x' } })],
    }),
    actions: [],
    outcome: { active: true, writesStopped: true, requeueAfterMs: 2000 },
  },
  {
    name: 'RollingBack, writes resumed, the primary reachable: RolledBack recorded, a problem',
    facts: facts(record('RollingBack', { message: 'restore failed' }), { pods: oldPods }),
    answers: { writesResumedAt: '2026-12-03T12:00:01.000Z' },
    actions: [],
    record: {
      expected: 'RollingBack',
      upgrade: {
        phase: 'RolledBack',
        writesResumedAt: '2026-12-03T12:00:01.000Z',
        completedAt: '2026-12-03T12:00:01.000Z',
        steps: [
          {
            name: 'RollBack',
            outcome: 'Failed',
            at: '2026-12-03T12:00:01.000Z',
            message: 'restore failed',
          },
        ],
        message: 'restore failed',
      },
    },
    condition: {
      status: 'False',
      reason: 'UpgradeRolledBack',
      message: 'the upgrade to 17 was rolled back: restore failed',
    },
    outcome: {
      active: false,
      writesStopped: false,
      problem: {
        reason: 'UpgradeRolledBack',
        message: 'the upgrade to 17 was rolled back: restore failed',
      },
    },
    events: ['Warning UpgradeRolledBack'],
  },
  {
    name: 'RollingBack, writes resumed but the primary unreachable: waits 2 s, nothing recorded',
    facts: facts(record('RollingBack'), {
      pods: oldPods,
      instances: [instance('orders-0', '10.0.0.1', { view: { reachable: false, error: 'x' } })],
    }),
    answers: { writesResumedAt: at },
    actions: [],
    outcome: { active: true, writesStopped: true, requeueAfterMs: 2000 },
    events: [],
  },
  // ── anything else ────────────────────────────────────────────────────────────────────
  {
    name: 'an unknown phase: nothing done, not active',
    facts: facts(record('Sideways' as never)),
    actions: [],
    outcome: { active: false, writesStopped: false, switched: false },
  },
];

describe('planUpgrade', () => {
  it.each(cases)('$name', (c) => {
    const plan = planUpgrade({ ...c.facts, ...(c.answers ? { answers: c.answers } : {}) });
    if (c.asks) {
      expect(plan).toEqual({ replan: true, actions: c.asks });
      return;
    }
    if (plan.replan) throw new Error(`asked: ${JSON.stringify(plan.actions)}`);
    if (c.actions) expect(plan.actions).toEqual(c.actions);
    if ('record' in c) {
      expect(plan.record?.expected).toEqual(c.record?.expected);
      expect(plan.record?.fields.upgrade).toMatchObject(c.record!.upgrade);
    } else expect(plan.record).toBeUndefined();
    if ('condition' in c) expect(plan.outcome.condition).toEqual(c.condition);
    // A key given as undefined: the outcome does not have it.
    for (const [key, value] of Object.entries(c.outcome ?? {}))
      if (value === undefined) expect(plan.outcome).not.toHaveProperty(key);
      else expect(plan.outcome).toHaveProperty(key, value);
    if (c.events) expect(plan.events.map((e) => `${e.type} ${e.reason}`)).toEqual(c.events);
  });

  it('records every phase over the phase it was decided on (a newer status fails the write)', () => {
    for (const c of cases) {
      const plan = planUpgrade({ ...c.facts, ...(c.answers ? { answers: c.answers } : {}) });
      if (plan.replan || !plan.record) continue;
      expect(plan.record.expected, c.name).toBe(c.facts.cluster.status?.upgrade?.phase);
    }
  });

  it('writes the switch with the new system’s version, image, set, primary, identity and fresh backups', () => {
    const plan = planUpgrade({
      ...facts(record('Restoring'), { jobs: [job('Complete')] }),
      answers: {
        jobMessage: { text: passed },
        target: { ...serving, systemIdentifier: '7002', timeline: 3 },
      },
    }) as Extract<UpgradePlan, { events: unknown }>;
    expect(plan.record?.fields).toMatchObject({
      version: '17',
      image: 'pg:17',
      instanceSet: 'orders-v17',
      primary: 'orders-v17-0',
      systemIdentifier: '7002',
      timeline: 3,
      backup: {
        destination: null,
        lastScheduleTime: null,
        lastSuccessful: null,
        lastFailed: null,
        firstRecoverabilityPoint: null,
        count: null,
        lastVerificationScheduleTime: null,
      },
    });
    expect(plan.events[0]?.message).toBe(
      'orders-v17-0 (PostgreSQL 17) becomes primary: 12 tables, 4500 rows: every row count equal',
    );
  });
});

/** A fake world for the executor: every effect logged in order. */
function harness(
  upgrade: UpgradeStatus | undefined,
  over: {
    write?: () => Promise<void>;
    jobs?: JobObject[];
    pods?: Pod[];
    termination?: string;
    toPull?: ImagePull;
    lease?: LeaseObject;
  } = {},
) {
  const log: string[] = [];
  const created: unknown[] = [];
  const deps: UpgradesDeps = {
    client: {
      mergePatch: (_kind: unknown, name: string, _ns: string, patch: unknown) => {
        log.push(`patch ${name} ${JSON.stringify(patch)}`);
        return Promise.resolve({});
      },
      delete: (_kind: unknown, name: string) => {
        log.push(`delete ${name}`);
        return Promise.resolve();
      },
      create: (_kind: unknown, obj: { metadata: { name: string } }) => {
        log.push(`create ${obj.metadata.name}`);
        created.push(obj);
        return Promise.resolve(obj);
      },
      list: () => {
        log.push('list job pods');
        return Promise.resolve({
          items: [
            {
              status: {
                containerStatuses: [
                  { state: { terminated: { message: over.termination ?? passed } } },
                ],
              },
            },
          ],
        });
      },
    } as never,
    pg: {
      alterSystem: (target: { host: string }, settings: Record<string, string | null>) => {
        log.push(`alterSystem ${target.host} ${JSON.stringify(settings)}`);
        return Promise.resolve([]);
      },
      endClientSessions: (target: { host: string }) => {
        log.push(`endClientSessions ${target.host}`);
        return Promise.resolve(2);
      },
      connectionLimits: (target: { host: string }) => {
        log.push(`connectionLimits ${target.host}`);
        return Promise.resolve(held);
      },
      holdConnections: (target: { host: string }) => {
        log.push(`holdConnections ${target.host}`);
        return Promise.resolve(['app', 'postgres']);
      },
      releaseConnections: (
        target: { host: string },
        limits: { name: string; connectionLimit: number }[],
      ) => {
        log.push(
          `releaseConnections ${target.host} ${limits.map((l) => `${l.name}=${l.connectionLimit}`).join()}`,
        );
        return Promise.resolve([]);
      },
      observe: (target: { host: string }) => {
        log.push(`observe ${target.host}`);
        return Promise.resolve({ ...serving, systemIdentifier: '7002', observedAt: at });
      },
    } as never,
    jobs: () => over.jobs ?? [],
    lease: () => over.lease,
    claims: () =>
      ['data-orders-0', 'data-orders-v17-0'].map((name) => ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name },
      })),
    now: () => now,
    emit: (_obj, type, reason) => log.push(`emit ${type} ${reason}`),
  };
  const f = facts(upgrade);
  const step = () =>
    new Upgrades(deps).step({
      cluster: f.cluster,
      running: '15',
      currentSet: 'orders',
      fromImage: 'pg:15',
      toImage: 'pg:17',
      ...(over.toPull ? { toPull: over.toPull } : {}),
      facts: f.instances,
      health: f.health,
      desired: 2,
      pods: over.pods ?? f.pods,
      endpoint: (ip) => ({ host: ip, port: 5432, user: 'postgres', password: 'p' }),
      write: (expected, fields) => {
        log.push(`write ${(fields.upgrade as UpgradeStatus).phase} over ${expected ?? 'none'}`);
        return over.write ? over.write() : Promise.resolve();
      },
    });
  return { log, step, created };
}

describe('Upgrades.step carries the plan out', () => {
  it('stops writes before recording Provisioning (the sessions ended in the record)', async () => {
    const { log, step } = harness(record('StoppingWrites'));
    expect(await step()).toMatchObject({ active: true, requeueAfterMs: 500 });
    expect(log).toEqual([
      'holdConnections 10.0.0.1',
      'alterSystem 10.0.0.1 {"default_transaction_read_only":"on"}',
      'endClientSessions 10.0.0.1',
      'write Provisioning over StoppingWrites',
    ]);
  });

  it('reads the finished Job’s outcome, observes the new instance, writes the switch, then emits', async () => {
    const { log, step } = harness(record('Restoring'), { jobs: [job('Complete')] });
    expect(await step()).toMatchObject({ switched: true });
    expect(log).toEqual([
      'list job pods',
      'observe 10.0.1.1',
      'releaseConnections 10.0.1.1 app=-1,postgres=5',
      'write Switching over Restoring',
      'emit Normal UpgradeSwitching',
    ]);
  });

  it('gives the new instance its set’s fence Lease before telling it to initdb (its agent waits for it)', async () => {
    const provisioning = { pods: [...oldPods, pod('orders-v17-0', '10.0.1.1')] };
    const { log, step, created } = harness(record('Provisioning'), provisioning);
    await step();
    expect(log).toEqual([
      'create orders-v17-primary',
      `patch orders-v17-0 {"metadata":{"annotations":{"postgres.steward.dev/instruction":"initdb"}}}`,
    ]);
    expect(created[0]).toMatchObject({
      kind: 'Lease',
      metadata: { name: 'orders-v17-primary', namespace: 'shop' },
      spec: { holderIdentity: 'orders-v17-0', leaseDurationSeconds: 10 },
    });
    // Named already (a step retried after the patch failed): only the instruction.
    const again = harness(record('Provisioning'), {
      ...provisioning,
      lease: {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'orders-v17-primary', resourceVersion: '7' },
        spec: { holderIdentity: 'orders-v17-0' },
      },
    });
    await again.step();
    expect(again.log).toEqual([
      `patch orders-v17-0 {"metadata":{"annotations":{"postgres.steward.dev/instruction":"initdb"}}}`,
    ]);
  });

  it('creates the dump-and-restore Job from the old primary into the new instance', async () => {
    const { log, step } = harness(record('Restoring'));
    await step();
    expect(log).toEqual(['create orders-upgrade-4']);
  });

  it('pulls the new image as the new version’s catalogue entry and the profile say', async () => {
    type Job = {
      spec: {
        template: {
          spec: {
            imagePullSecrets?: { name: string }[];
            containers: { image: string; imagePullPolicy: string }[];
          };
        };
      };
    };
    const podOf = (job: unknown) => (job as Job).spec.template.spec;
    const pulled = harness(record('Restoring'), {
      toPull: { policy: 'Always', secrets: ['regcred'] },
    });
    await pulled.step();
    expect(podOf(pulled.created[0]).imagePullSecrets).toEqual([{ name: 'regcred' }]);
    expect(podOf(pulled.created[0]).containers[0]).toMatchObject({
      image: 'pg:17',
      imagePullPolicy: 'Always',
    });
    const plain = harness(record('Restoring'));
    await plain.step();
    expect(podOf(plain.created[0])).not.toHaveProperty('imagePullSecrets');
    expect(podOf(plain.created[0]).containers[0]!.imagePullPolicy).toBe('IfNotPresent');
  });

  it('rolls back by recording RollingBack first, then emitting', async () => {
    const { log, step } = harness(record('Restoring'), {
      jobs: [job('Failed')],
      termination: JSON.stringify({ result: 'Failed', message: 'no space' }),
    });
    expect(await step()).toMatchObject({ condition: { reason: 'RollingBack' } });
    expect(log).toEqual([
      'list job pods',
      'write RollingBack over Restoring',
      'emit Warning UpgradeRollingBack',
    ]);
  });

  it('cleans up a roll-back (claims, then writes) before recording RolledBack', async () => {
    const { log, step } = harness(record('RollingBack'), { pods: oldPods });
    expect(await step()).toMatchObject({ active: false, problem: { reason: 'UpgradeRolledBack' } });
    expect(log).toEqual([
      'delete data-orders-v17-0',
      'alterSystem 10.0.0.1 {"default_transaction_read_only":null}',
      'alterSystem 10.0.0.2 {"default_transaction_read_only":null}',
      'releaseConnections 10.0.0.1 app=-1,postgres=5',
      'write RolledBack over RollingBack',
      'emit Warning UpgradeRolledBack',
    ]);
  });

  it('unlabels the old instances before recording Completing', async () => {
    const { log, step } = harness(record('Switching'));
    await step();
    expect(log).toEqual([
      `patch orders-0 {"metadata":{"labels":{"${Labels.role}":null}}}`,
      `patch orders-1 {"metadata":{"labels":{"${Labels.role}":null}}}`,
      'write Completing over Switching',
    ]);
  });

  it('times provisioning out by its own clock (deps.now), not the wall clock', async () => {
    // Two minutes by the injected clock; days by the wall clock (the test's now is fixed).
    const { log, step } = harness(record('Provisioning', { writesStoppedAt: minutesAgo(2) }));
    expect(await step()).toMatchObject({ condition: { reason: 'Restoring' } });
    expect(log).toEqual(['observe 10.0.1.1', 'write Restoring over Provisioning']);
  });

  it('a write conflict (a newer status.upgrade) ends the step: no event, no outcome', async () => {
    const stale = () =>
      Promise.reject(new StaleDecisionError('status.upgrade is Provisioning, not absent'));
    const start = harness(undefined, { write: stale });
    await expect(start.step()).rejects.toThrow(StaleDecisionError);
    expect(start.log).toEqual(['connectionLimits 10.0.0.1', 'write StoppingWrites over none']);
    const switching = harness(record('Restoring'), { jobs: [job('Complete')], write: stale });
    await expect(switching.step()).rejects.toThrow(StaleDecisionError);
    expect(switching.log.at(-1)).toBe('write Switching over Restoring');
  });
});
