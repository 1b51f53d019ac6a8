import { type PostgresCluster } from '@steward/postgres-cluster-api';
import { describe, expect, it } from 'vitest';
import { type PlanHealth } from './plan/plan.js';
import { postgresStatus, PostgresReasons, type StatusInput } from './status.js';

const cluster = (status?: Partial<NonNullable<PostgresCluster['status']>>): PostgresCluster =>
  ({
    apiVersion: 'postgres.steward.dev/v1alpha1',
    kind: 'PostgresCluster',
    metadata: { name: 'pg', namespace: 'apps', generation: 4 },
    spec: { version: '16', replicas: 3 },
    ...(status ? { status } : {}),
  }) as PostgresCluster;

const instance = (i: number, ready = true) => ({
  name: `pg-${i}`,
  role: i === 0 ? ('primary' as const) : ('standby' as const),
  ready,
});

const healthy = (over: Partial<PlanHealth> = {}): PlanHealth => ({
  primary: 'pg-0',
  primaryServing: true,
  initialised: true,
  instances: [instance(0), instance(1), instance(2)],
  readyReplicas: 3,
  timeline: 1,
  failingOver: false,
  switchingOver: false,
  ...over,
});

const input = (over: Partial<StatusInput> = {}): StatusInput => ({
  cluster: cluster({ phase: 'Ready', replicas: 3 }),
  replicas: 3,
  podCount: 3,
  health: healthy(),
  outdated: [],
  image: 'postgres:16.4',
  version: '16',
  endpoints: {
    readWrite: 'pg-rw.apps.svc',
    readOnly: 'pg-ro.apps.svc',
    any: 'pg-any.apps.svc',
    port: 5432,
    superuserSecret: 'pg-superuser',
    appSecret: 'pg-app',
  },
  problems: [],
  notes: [],
  ...over,
});

/** The conditions as type → status/reason. */
const conditionsOf = (i: StatusInput) =>
  Object.fromEntries(postgresStatus(i).conditions.map((c) => [c.type, `${c.status} ${c.reason}`]));

describe('postgresStatus', () => {
  const cases: {
    name: string;
    input: StatusInput;
    phase: string;
    ready: string;
    progressing: string;
    degraded: string;
  }[] = [
    {
      name: 'Ready: the primary serves and every desired instance is ready in its role',
      input: input(),
      phase: 'Ready',
      ready: 'True Available',
      progressing: 'False Converged',
      degraded: 'False Healthy',
    },
    {
      name: 'no instances yet: Initialising while the first instance runs initdb',
      input: input({
        cluster: cluster(),
        podCount: 0,
        health: healthy({
          primaryServing: false,
          initialised: false,
          instances: [],
          readyReplicas: 0,
          progressing: { reason: 'Initialising', message: 'pg-0 is initialising the cluster' },
        }),
      }),
      phase: 'Provisioning',
      ready: 'False Initialising',
      progressing: 'True Initialising',
      degraded: 'False Healthy',
    },
    {
      name: 'Provisioning lasts until Ready: the standbys still cloning are no degradation',
      input: input({
        cluster: cluster({ phase: 'Provisioning', replicas: 3 }),
        health: healthy({ readyReplicas: 1, instances: [instance(0), instance(1, false)] }),
      }),
      phase: 'Provisioning',
      ready: 'False Provisioning',
      progressing: 'True Provisioning',
      degraded: 'False Healthy',
    },
    {
      name: 'Scaling up: the desired count changed, new pods not there yet',
      input: input({
        cluster: cluster({ phase: 'Ready', replicas: 3 }),
        replicas: 5,
        podCount: 3,
      }),
      phase: 'Scaling',
      ready: 'False Scaling',
      progressing: 'True Scaling',
      degraded: 'False Healthy',
    },
    {
      name: 'Scaling down: pods still to go',
      input: input({ cluster: cluster({ phase: 'Ready', replicas: 3 }), replicas: 2 }),
      phase: 'Scaling',
      ready: 'False Scaling',
      progressing: 'True Scaling',
      degraded: 'False Healthy',
    },
    {
      name: 'Scaling lasts until Ready (the phase last stated is read back)',
      input: input({
        cluster: cluster({ phase: 'Scaling', replicas: 3 }),
        health: healthy({ readyReplicas: 2 }),
      }),
      phase: 'Scaling',
      ready: 'False Scaling',
      progressing: 'True Scaling',
      degraded: 'False Healthy',
    },
    {
      name: 'FailingOver: a failover is decided or pending',
      input: input({
        health: healthy({
          primary: 'pg-1',
          primaryServing: false,
          failingOver: true,
          readyReplicas: 1,
          progressing: { reason: 'FailingOver', message: 'promoting pg-1 (failover from pg-0)' },
        }),
      }),
      phase: 'FailingOver',
      ready: 'False FailingOver',
      progressing: 'True FailingOver',
      degraded: 'False Healthy',
    },
    {
      name: 'SwitchingOver: the primary moves on request',
      input: input({
        health: healthy({
          switchingOver: true,
          progressing: { reason: 'SwitchingOver', message: 'switchover to pg-2: pg-0 stopping' },
        }),
      }),
      phase: 'SwitchingOver',
      ready: 'False SwitchingOver',
      progressing: 'True SwitchingOver',
      degraded: 'False Healthy',
    },
    {
      name: 'a refused failover: Degraded with the plan’s reason, not progressing',
      input: input({
        health: healthy({
          primaryServing: false,
          readyReplicas: 2,
          degraded: {
            reason: 'FailoverRefusedLagExceedsBound',
            message: 'failover refused: 2000 bytes',
          },
        }),
      }),
      phase: 'Degraded',
      ready: 'False FailoverRefusedLagExceedsBound',
      progressing: 'False Converged',
      degraded: 'True FailoverRefusedLagExceedsBound',
    },
    {
      name: 'a problem (a volume that cannot grow) on a serving cluster: Ready stays True, Degraded says it',
      input: input({
        problems: [
          { reason: PostgresReasons.VolumeExpansionFailed, message: 'pg-data-pg-0: no expansion' },
        ],
      }),
      phase: 'Ready',
      ready: 'True Available',
      progressing: 'False Converged',
      degraded: 'True VolumeExpansionFailed',
    },
    {
      name: 'a standby not streaming on a settled cluster: Ready=False InstancesNotReady, Degraded',
      input: input({ health: healthy({ readyReplicas: 2 }) }),
      phase: 'Degraded',
      ready: 'False InstancesNotReady',
      progressing: 'True InstancesNotReady',
      degraded: 'True InstancesNotReady',
    },
    {
      name: 'a pod missing: Degraded InstancesMissing',
      input: input({ podCount: 2, health: healthy({ readyReplicas: 2 }) }),
      phase: 'Degraded',
      ready: 'False InstancesMissing',
      progressing: 'True InstancesMissing',
      degraded: 'True InstancesMissing',
    },
    {
      name: 'outdated pods: Updating, progressing while the controller rolls them',
      input: input({ outdated: ['pg-1', 'pg-0'] }),
      phase: 'Updating',
      ready: 'False Updating',
      progressing: 'True Updating',
      degraded: 'False Healthy',
    },
    {
      name: 'a note on a Ready cluster: Progressing=True with the note’s reason, Ready stays True',
      input: input({
        notes: [{ reason: PostgresReasons.VolumeExpanding, message: 'volumes growing to 20Gi' }],
      }),
      phase: 'Ready',
      ready: 'True Available',
      progressing: 'True VolumeExpanding',
      degraded: 'False Healthy',
    },
  ];

  it.each(cases)('$name', ({ input: i, phase, ready, progressing, degraded }) => {
    expect(postgresStatus(i).phase).toBe(phase);
    expect(postgresStatus(i).fields.phase).toBe(phase);
    expect(conditionsOf(i)).toEqual({
      Ready: ready,
      Progressing: progressing,
      Degraded: degraded,
    });
  });

  it('never states Stalled: terminal refusals are the runtime’s (Stalled=True ⇒ Ready=False there)', () => {
    for (const c of cases)
      expect(postgresStatus(c.input).conditions.map((x) => x.type)).not.toContain('Stalled');
  });

  it('leaves observedGeneration to the status writer (it stamps the status and every condition)', () => {
    const change = postgresStatus(input());
    expect(change.fields).not.toHaveProperty('observedGeneration');
    for (const c of change.conditions) expect(c).not.toHaveProperty('observedGeneration');
  });

  it('joins a note to the progress message and problems to the Degraded message', () => {
    const change = postgresStatus(
      input({
        cluster: cluster({ phase: 'Scaling', replicas: 3 }),
        health: healthy({ readyReplicas: 2 }),
        notes: [{ reason: PostgresReasons.VolumeExpanding, message: 'volumes growing' }],
        problems: [
          { reason: PostgresReasons.InvalidParameters, message: 'pg-1: bad work_mem' },
          { reason: PostgresReasons.InstanceFailing, message: 'repoint pg-2: timeout' },
        ],
      }),
    );
    const byType = Object.fromEntries(change.conditions.map((c) => [c.type, c]));
    expect(byType.Progressing).toMatchObject({ status: 'True', reason: 'Scaling' });
    expect(byType.Progressing!.message).toMatch(/2 of 3 instances ready; volumes growing$/);
    expect(byType.Degraded).toMatchObject({
      status: 'True',
      reason: 'InvalidParameters',
      message: 'pg-1: bad work_mem; repoint pg-2: timeout',
    });
  });

  it('states the endpoints, counts, version, image and the primary’s timeline', () => {
    expect(postgresStatus(input()).fields).toEqual({
      phase: 'Ready',
      replicas: 3,
      readyReplicas: 3,
      instances: healthy().instances,
      version: '16',
      image: 'postgres:16.4',
      timeline: 1,
      endpoints: {
        readWrite: { host: 'pg-rw.apps.svc', port: 5432 },
        readOnly: { host: 'pg-ro.apps.svc', port: 5432 },
        any: { host: 'pg-any.apps.svc', port: 5432 },
        superuserSecret: 'pg-superuser',
        appSecret: 'pg-app',
      },
    });
    const { timeline: _timeline, ...noPrimary } = healthy({ primaryServing: false });
    expect(postgresStatus(input({ health: noPrimary })).fields).not.toHaveProperty('timeline');
  });

  it('names the primary in Ready’s message', () => {
    const ready = postgresStatus(input()).conditions.find((c) => c.type === 'Ready')!;
    expect(ready.message).toBe('3 of 3 instances ready; primary pg-0');
  });
});
