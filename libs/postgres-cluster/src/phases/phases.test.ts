import { SwitchoverAnnotation, type PostgresCluster } from '@steward/postgres-cluster-api';
import { Roles, StatefulSets, type ResourceType } from '@steward/kube';
import { compareMarks } from '@steward/workload';
import { describe, expect, it } from 'vitest';
import { type PlanHealth } from '../plan/plan.js';
import { type Pod } from '../pods.js';
import { desiredChildren } from './children.js';
import { decisionMarksOf, decisionStale, instanceProblems, planInputOf } from './instances.js';
import { restoreToChoose } from './restore.js';
import { planRoll, rollSwitchover } from './roll.js';
import { clusterStatus, type StatusFacts } from './status.js';
import { planTopology } from './topology.js';

const cluster = (
  spec: Partial<PostgresCluster['spec']> = {},
  status: PostgresCluster['status'] = undefined,
  annotations: Record<string, string> = {},
): PostgresCluster => ({
  apiVersion: 'postgres.steward.dev/v1alpha1',
  kind: 'PostgresCluster',
  metadata: { name: 'db', namespace: 'shop', uid: 'u1', generation: 1, annotations },
  spec: { version: '16', replicas: 3, ...spec } as PostgresCluster['spec'],
  ...(status ? { status } : {}),
});

const pod = (name: string, revision = 'r2', deleting = false): Pod =>
  ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      labels: { 'controller-revision-hash': revision },
      ...(deleting ? { deletionTimestamp: '2026-12-07T00:00:00Z' } : {}),
    },
  }) as Pod;

const health = (over: Partial<PlanHealth> = {}): PlanHealth => ({
  primary: 'db-0',
  primaryServing: true,
  initialised: true,
  instances: [],
  readyReplicas: 3,
  failingOver: false,
  switchingOver: false,
  ...over,
});

describe('planTopology', () => {
  const cases: {
    name: string;
    obj: PostgresCluster;
    pods: string[];
    want: Partial<ReturnType<typeof planTopology>>;
    none?: boolean;
  }[] = [
    {
      name: 'a new cluster: the set named after it, replicas as asked',
      obj: cluster(),
      pods: [],
      want: { set: 'db', desired: 3, statefulSetReplicas: 3, notes: [] },
    },
    {
      name: "only the serving set's pods are its instances",
      obj: cluster({}, { instanceSet: 'db-v17' } as never),
      pods: ['db-0', 'db-v17-0', 'db-v17-1', 'dbx-0'],
      want: { set: 'db-v17', desired: 3, statefulSetReplicas: 3 },
    },
    {
      name: 'scaling below the primary keeps it and asks for a switchover (ScaleDown)',
      obj: cluster({ replicas: 1 }, { primary: 'db-2' } as never),
      pods: ['db-0', 'db-1', 'db-2'],
      want: { desired: 1, statefulSetReplicas: 3, switchover: { reason: 'ScaleDown' } },
    },
    {
      name: 'the annotation asks for a switchover to a named standby',
      obj: cluster({}, { primary: 'db-0' } as never, {
        'postgres.steward.dev/switchover-to': ' db-1 ',
      }),
      pods: ['db-0', 'db-1', 'db-2'],
      want: { switchover: { reason: 'Requested', to: 'db-1' }, requested: 'db-1' },
    },
    {
      name: 'a scale-down wins over a requested switchover',
      obj: cluster({ replicas: 1 }, { primary: 'db-1' } as never, {
        'postgres.steward.dev/switchover-to': 'db-0',
      }),
      pods: ['db-0', 'db-1'],
      want: { switchover: { reason: 'ScaleDown' }, statefulSetReplicas: 2 },
    },
    {
      name: 'an empty annotation asks for nothing',
      obj: cluster({}, undefined, { 'postgres.steward.dev/switchover-to': '  ' }),
      pods: [],
      want: { desired: 3 },
      none: true,
    },
  ];
  it.each(cases)('$name', ({ obj, pods, want }) => {
    const t = planTopology(
      obj,
      pods.map((p) => pod(p)),
    );
    expect(t).toMatchObject(want);
    if ('switchover' in want && want.switchover === undefined) expect(t.switchover).toBeUndefined();
  });

  it('names the kept primary in a Scaling note', () => {
    const t = planTopology(cluster({ replicas: 1 }, { primary: 'db-2' } as never), []);
    expect(t.notes).toEqual([
      {
        reason: 'Scaling',
        message:
          'spec.replicas 1 would remove the primary db-2: it is kept until a switchover moved the primary to a standby that stays',
      },
    ]);
  });

  it('reads the switchover annotation under the key the API names', () => {
    expect(SwitchoverAnnotation).toBe('postgres.steward.dev/switchover-to');
  });
});

describe('planRoll', () => {
  const base = {
    updateRevision: 'r2',
    primary: 'db-0',
    health: health(),
    instances: 3,
    actionsFailed: false,
    method: 'Switchover' as 'Switchover' | 'Restart',
  };
  const cases: {
    name: string;
    pods: Pod[];
    over?: Partial<typeof base>;
    outdated: string[];
    restart?: { pod: string; primary: boolean; remaining: number };
    awaitingSwitchover?: boolean;
  }[] = [
    { name: 'nothing outdated', pods: [pod('db-0'), pod('db-1')], outdated: [] },
    {
      name: 'standbys first, the highest ordinal first',
      pods: [pod('db-0', 'r1'), pod('db-1', 'r1'), pod('db-2', 'r1')],
      outdated: ['db-0', 'db-1', 'db-2'],
      restart: { pod: 'db-2', primary: false, remaining: 2 },
    },
    {
      name: 'the primary last, switched over first (not restarted)',
      pods: [pod('db-0', 'r1'), pod('db-1'), pod('db-2')],
      outdated: ['db-0'],
      awaitingSwitchover: true,
    },
    {
      name: 'the primary last, restarted in place with rollout.primary Restart',
      pods: [pod('db-0', 'r1'), pod('db-1'), pod('db-2')],
      over: { method: 'Restart' },
      outdated: ['db-0'],
      restart: { pod: 'db-0', primary: true, remaining: 0 },
    },
    {
      name: 'a single instance is restarted in place',
      pods: [pod('db-0', 'r1')],
      over: { instances: 1, health: health({ readyReplicas: 1 }) },
      outdated: ['db-0'],
      restart: { pod: 'db-0', primary: true, remaining: 0 },
    },
    {
      name: 'the old primary, a standby after the switchover, restarts like a standby',
      pods: [pod('db-0', 'r1'), pod('db-1'), pod('db-2')],
      over: { primary: 'db-2', health: health({ primary: 'db-2' }) },
      outdated: ['db-0'],
      restart: { pod: 'db-0', primary: false, remaining: 0 },
    },
    {
      name: 'waits while switching over',
      pods: [pod('db-0', 'r1'), pod('db-1', 'r1')],
      over: { health: health({ switchingOver: true }) },
      outdated: ['db-0', 'db-1'],
    },
    {
      name: 'a pod being deleted is not outdated',
      pods: [pod('db-0'), pod('db-1', 'r1', true)],
      outdated: [],
    },
    {
      name: 'no revision known yet: nothing to roll',
      pods: [pod('db-0', 'r1')],
      over: { updateRevision: undefined },
      outdated: [],
    },
    {
      name: 'waits while an instance is not ready',
      pods: [pod('db-0', 'r1'), pod('db-1', 'r1')],
      over: { health: health({ readyReplicas: 2 }) },
      outdated: ['db-0', 'db-1'],
    },
    {
      name: 'waits while failing over',
      pods: [pod('db-1', 'r1')],
      over: { health: health({ failingOver: true }) },
      outdated: ['db-1'],
    },
    {
      name: 'waits while the primary does not serve',
      pods: [pod('db-1', 'r1')],
      over: { health: health({ primaryServing: false }) },
      outdated: ['db-1'],
    },
    {
      name: 'waits when an action of this reconcile failed',
      pods: [pod('db-1', 'r1')],
      over: { actionsFailed: true },
      outdated: ['db-1'],
    },
  ];
  it.each(cases)('$name', ({ pods, over, outdated, restart, awaitingSwitchover }) => {
    const plan = planRoll({ ...base, ...over, pods });
    expect(plan.outdated).toEqual(outdated);
    expect(plan.restart).toEqual(restart);
    expect(plan.awaitingSwitchover).toBe(awaitingSwitchover);
  });
});

describe('rollSwitchover', () => {
  const ready = (p: Pod): Pod => ({
    ...p,
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  });
  const pods = [pod('db-0', 'r1'), ready(pod('db-1')), ready(pod('db-2'))];
  const now = Date.parse('2026-12-07T10:00:00Z');
  const at = (
    spec: Partial<PostgresCluster['spec']> = {},
    status: PostgresCluster['status'] = {},
  ) => cluster(spec, { primary: 'db-0', ...status });

  it('asks for a Rollout switchover once the primary is the only pod on the old template and the others are Ready', () => {
    expect(rollSwitchover(at(), pods, 'r2', now)).toEqual({ reason: 'Rollout' });
  });

  it('does not while a standby is outdated or not Ready, with rollout.primary Restart, or with no revision known', () => {
    expect(rollSwitchover(at(), [pods[0]!, pod('db-1'), ready(pod('db-2'))], 'r2', now)).toBe(
      undefined,
    );
    expect(rollSwitchover(at(), [pods[0]!, ready(pod('db-1', 'r1')), pods[2]!], 'r2', now)).toBe(
      undefined,
    );
    expect(rollSwitchover(at({ rollout: { primary: 'Restart' } }), pods, 'r2', now)).toBe(
      undefined,
    );
    expect(rollSwitchover(at(), pods, undefined, now)).toBe(undefined);
    // A standby the roll deleted and not yet re-created: the two left would look up to date.
    expect(rollSwitchover(at(), [pods[0]!, pods[1]!], 'r2', now)).toBe(undefined);
  });

  it('waits a minute after a Rollout switchover failed before asking again (no retry storm)', () => {
    const failed = (completedAt: string) =>
      at(
        {},
        {
          switchover: {
            phase: 'Failed',
            from: 'db-0',
            to: 'db-1',
            reason: 'Rollout',
            startedAt: '2026-12-07T09:58:00Z',
            completedAt,
            message: 'given up',
          },
        },
      );
    expect(rollSwitchover(failed('2026-12-07T09:59:30Z'), pods, 'r2', now)).toBe(undefined);
    expect(rollSwitchover(failed('2026-12-07T09:58:59Z'), pods, 'r2', now)).toEqual({
      reason: 'Rollout',
    });
  });
});

describe('restoreToChoose', () => {
  const recovery = { bootstrap: { recovery: { source: { bucket: 'b' } } } } as never;
  it.each([
    ['no recovery: never', cluster(), false],
    ['recovery, nothing chosen, no system yet: now', cluster(recovery), true],
    [
      'recovery already chosen: never again',
      cluster(recovery, { restore: { backupId: 'x' } } as never),
      false,
    ],
    [
      'a database system exists: never (a newer backup changes nothing)',
      cluster(recovery, { systemIdentifier: '7' } as never),
      false,
    ],
  ])('%s', (_name, obj, want) => {
    expect(restoreToChoose(obj)).toBe(want);
  });
});

describe('decisionStale', () => {
  const basis = { primary: 'db-0', failoverCount: 1 } as PostgresCluster['status'];
  it.each([
    ['the same record', { primary: 'db-0', failoverCount: 1 }, false],
    ['another primary', { primary: 'db-1', failoverCount: 1 }, true],
    ['another failover counted', { primary: 'db-0', failoverCount: 2 }, true],
    [
      'a failover phase moved on',
      { primary: 'db-0', failoverCount: 1, failover: { phase: 'Promoting' } },
      true,
    ],
    ['a switchover counted', { primary: 'db-0', failoverCount: 1, switchoverCount: 1 }, true],
  ])('%s', (_name, latest, stale) => {
    const why = decisionStale(basis, latest as never, 'shop/db');
    expect(why !== undefined).toBe(stale);
  });
  it('names what changed', () => {
    expect(decisionStale(basis, { primary: 'db-1' } as never, 'shop/db')).toBe(
      'status of shop/db changed since it was read (primary db-0 → db-1): deciding again',
    );
  });
});

describe('planInputOf', () => {
  it('carries the recorded decisions and the failover settings, with defaults', () => {
    const obj = cluster({ failover: { after: '30s', maxLagBytes: 1024 } as never }, {
      primary: 'db-1',
      failoverCount: 2,
      systemIdentifier: '9',
    } as never);
    const input = planInputOf(obj, planTopology(obj, []), [], {}, true, 'n', 'o');
    expect(input).toMatchObject({
      cluster: 'db',
      replicas: 3,
      failover: { enabled: true, afterMs: 30_000, maxLagBytes: 1024n },
      holdFailover: true,
      replication: 'async',
      bootstrap: 'initdb',
      status: { primary: 'db-1', failoverCount: 2, systemIdentifier: '9' },
      now: 'n',
      observedAt: 'o',
    });
    expect(Object.keys(input.status)).toEqual(['primary', 'systemIdentifier', 'failoverCount']);
  });
});

describe('instanceProblems', () => {
  it('reports a configuration PostgreSQL refuses, per instance, and nothing else', () => {
    expect(
      instanceProblems([
        {
          name: 'db-0',
          ordinal: 0,
          ready: false,
          deleting: false,
          lastMessage: 'PostgreSQL refuses the configuration: x',
        },
        { name: 'db-1', ordinal: 1, ready: false, deleting: false, lastMessage: 'OOMKilled' },
      ]),
    ).toEqual([
      {
        reason: 'InvalidParameters',
        message: 'db-0: PostgreSQL refuses the configuration: x — fix spec.parameters',
      },
    ]);
  });
});

describe('clusterStatus', () => {
  const facts = (over: Partial<StatusFacts> = {}): StatusFacts => ({
    desired: 3,
    podCount: 3,
    health: health(),
    outdated: [],
    image: 'img',
    version: '16',
    problems: [],
    notes: [],
    upgrade: { writesStopped: false, active: false },
    now: '2026-12-07T01:00:00.000Z',
    ...over,
  });
  const ready = cluster({}, { phase: 'Ready', replicas: 3 } as never);
  const condition = (c: ReturnType<typeof clusterStatus>, type: string) =>
    c.conditions.find((x) => x.type === type);

  it('a converged cluster is Ready, not Progressing, not Degraded', () => {
    const s = clusterStatus(ready, facts());
    expect(s.phase).toBe('Ready');
    expect(condition(s, 'Ready')).toMatchObject({ status: 'True', reason: 'Available' });
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'False' });
    expect(condition(s, 'Degraded')).toMatchObject({ status: 'False' });
    expect(s.fields).toMatchObject({ phase: 'Ready', readyReplicas: 3, version: '16' });
  });
  it('an upgrade that stops writes: phase Upgrading, Ready=False, Progressing=True, Upgrading', () => {
    const says = { status: 'True' as const, reason: 'Dumping', message: 'dumping' };
    const s = clusterStatus(
      ready,
      facts({ upgrade: { writesStopped: true, active: true, condition: says } }),
    );
    expect(s.phase).toBe('Upgrading');
    expect(s.fields['phase']).toBe('Upgrading');
    expect(condition(s, 'Ready')).toMatchObject({ status: 'False', reason: 'Upgrading' });
    expect(condition(s, 'Progressing')).toMatchObject({ status: 'True', reason: 'Upgrading' });
    expect(condition(s, 'Upgrading')).toEqual({ type: 'Upgrading', ...says });
  });
  it('an upgrade gate that is closed says so without taking the phase', () => {
    const says = { status: 'False' as const, reason: 'NotApproved', message: 'approve it' };
    const s = clusterStatus(
      ready,
      facts({ upgrade: { writesStopped: false, active: false, condition: says } }),
    );
    expect(s.phase).toBe('Ready');
    expect(condition(s, 'Ready')).toMatchObject({ status: 'True' });
    expect(condition(s, 'Upgrading')).toMatchObject({ status: 'False', reason: 'NotApproved' });
  });
  it('a problem makes it Degraded with its reason', () => {
    const s = clusterStatus(
      ready,
      facts({ problems: [{ reason: 'VolumeShrinkNotPossible', message: 'no' }] }),
    );
    expect(condition(s, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'VolumeShrinkNotPossible',
    });
  });
  it('a restore is complete once the first primary serves, not before', () => {
    const restore = { backupId: 'b1' } as never;
    expect(clusterStatus(ready, facts({ restore })).fields['restore']).toEqual({
      backupId: 'b1',
      completedAt: '2026-12-07T01:00:00.000Z',
    });
    expect(
      clusterStatus(ready, facts({ restore, health: health({ primaryServing: false }) })).fields[
        'restore'
      ],
    ).toBeUndefined();
    expect(
      clusterStatus(ready, facts({ restore: { backupId: 'b1', completedAt: 'then' } as never }))
        .fields['restore'],
    ).toBeUndefined();
  });
  it('carries status.backup when the backups phase stated one', () => {
    const backup = { count: 2 } as never;
    expect(clusterStatus(ready, facts({ backup })).fields['backup']).toBe(backup);
    expect('backup' in clusterStatus(ready, facts()).fields).toBe(false);
  });
});

describe('desiredChildren', () => {
  const resolved = { image: 'pg:16', storage: { size: '1Gi' } };
  const kinds = (want: ReturnType<typeof desiredChildren>) =>
    want.map((c) => (c.resourceType as ResourceType).kind);
  it('the children of a cluster, generated Secrets created once', () => {
    const obj = cluster();
    const want = desiredChildren({
      cluster: obj,
      resolved,
      topology: planTopology(obj, []),
      templateStorage: () => undefined,
    });
    expect(kinds(want)).toEqual([
      'Secret',
      'Secret',
      'Secret',
      'ConfigMap',
      'Service',
      'Service',
      'Service',
      'Service',
      'PodDisruptionBudget',
      // Three instances: the primary's budget too.
      'PodDisruptionBudget',
      'NetworkPolicy',
      // The instances' account: they renew the fence's Lease.
      'ServiceAccount',
      'Role',
      'RoleBinding',
      'StatefulSet',
    ]);
    expect(want.filter((c) => c.mode === 'create-once').map((c) => c.name)).toEqual([
      'db-superuser',
      'db-app',
      'db-replication',
    ]);
  });
  it("keeps a live template's storage (templates cannot change)", () => {
    const obj = cluster();
    const want = desiredChildren({
      cluster: obj,
      resolved: { image: 'pg:16', storage: { size: '5Gi' } },
      topology: planTopology(obj, []),
      templateStorage: () => '1Gi',
    });
    const sts = want.find((c) => c.resourceType === StatefulSets)!.object as unknown as {
      spec: { volumeClaimTemplates: { spec: { resources: { requests: { storage: string } } } }[] };
    };
    expect(sts.spec.volumeClaimTemplates[0]!.spec.resources.requests.storage).toBe('1Gi');
  });
  it("during a major upgrade, the other set's StatefulSet too, with its own image", () => {
    const obj = cluster({ version: '17' }, {
      version: '16',
      upgrade: { phase: 'Restoring', toSet: 'db-v17', toImage: 'pg:17', fromSet: 'db' },
    } as never);
    const want = desiredChildren({
      cluster: obj,
      resolved,
      topology: planTopology(obj, []),
      templateStorage: () => undefined,
    });
    const sets = want
      .filter((c) => c.resourceType === StatefulSets)
      .map(
        (c) => c.object as unknown as { metadata: { name: string }; spec: { replicas: number } },
      );
    expect(sets.map((s) => [s.metadata.name, s.spec.replicas])).toEqual([
      ['db', 3],
      ['db-v17', 1],
    ]);
    // Each set's pods renew a fence Lease of their own, and the instances' Role may renew both.
    const leaseOf = (set: unknown) =>
      (
        set as {
          spec: {
            template: { spec: { containers: { env: { name: string; value?: string }[] }[] } };
          };
        }
      ).spec.template.spec.containers[0]!.env.find((e) => e.name === 'STEWARD_LEASE')?.value;
    expect(sets.map((s) => leaseOf(s))).toEqual(['db-primary', 'db-v17-primary']);
    const role = want.find((c) => c.resourceType === Roles)!.object as unknown as {
      rules: { resources: string[]; resourceNames: string[]; verbs: string[] }[];
    };
    expect(role.rules).toEqual([
      {
        apiGroups: ['coordination.k8s.io'],
        resources: ['leases'],
        resourceNames: ['db-primary', 'db-v17-primary'],
        verbs: ['get', 'patch'],
      },
    ]);
  });
  it('while a major upgrade is under way, db-rw selects only the new set’s primary (none before the switch)', () => {
    const selectorOf = (phase: string | undefined) => {
      const obj = cluster(
        { version: '17' },
        phase
          ? ({
              version: '16',
              upgrade: { phase, toSet: 'db-v17', toImage: 'pg:17', fromSet: 'db' },
            } as never)
          : undefined,
      );
      const rw = desiredChildren({
        cluster: obj,
        resolved,
        topology: planTopology(obj, []),
        templateStorage: () => undefined,
      }).find(
        (c) =>
          (c as { object?: { metadata?: { name?: string } } }).object?.metadata?.name === 'db-rw',
      ) as unknown as { object: { spec: { selector: Record<string, string> } } };
      return rw.object.spec.selector;
    };
    const plain = {
      'postgres.steward.dev/cluster': 'db',
      'postgres.steward.dev/role': 'primary',
    };
    const held = { ...plain, 'postgres.steward.dev/instance-set': 'db-v17' };
    expect(selectorOf(undefined)).toEqual(plain);
    for (const phase of [
      'StoppingWrites',
      'Provisioning',
      'Restoring',
      'Switching',
      'Completing',
      'RollingBack',
    ])
      expect(selectorOf(phase), phase).toEqual(held);
    expect(selectorOf('Completed')).toEqual(plain);
    expect(selectorOf('RolledBack')).toEqual(plain);
  });
});

describe('decisionMarksOf', () => {
  it('grows with every record this controller writes, in order', () => {
    const seq = [
      {},
      { failoverCount: 1, failover: { phase: 'Promoting' } },
      { failoverCount: 1, failover: { phase: 'Repointing' } },
      { failoverCount: 1, failover: { phase: 'Completed' } },
      {
        failoverCount: 1,
        failover: { phase: 'Completed' },
        switchoverCount: 1,
        switchover: { phase: 'Demoting' },
      },
      {
        failoverCount: 1,
        failover: { phase: 'Completed' },
        switchoverCount: 1,
        switchover: { phase: 'Failed' },
      },
      {
        failoverCount: 2,
        failover: { phase: 'Promoting' },
        switchoverCount: 1,
        switchover: { phase: 'Failed' },
      },
    ].map((s) => decisionMarksOf(s as never));
    for (let i = 1; i < seq.length; i++) expect(compareMarks(seq[i]!, seq[i - 1]!)).toBe(1);
  });
});
