import { describe, expect, it } from 'vitest';
import { adminFailure, AdminClosedError, ObservationAbortedError, scrubbed } from './abortable.js';
import { decisionStale, failoverMarksOf } from './decision.js';
import { storedName, storedNamespace, workloadChildNames, workloadLabels } from './names.js';
import { drainWantsSwitchover, nodeCordoned } from './drain.js';
import {
  EvictionProtectedLabel,
  evictionProtected,
  evictionProtectionChanges,
  renderConfigMap,
  renderPolicies,
  renderRoleServices,
} from './render.js';
import {
  compactResources,
  renderWorkloadStatefulSet,
  podSecurityContext,
  TmpVolume,
} from './stateful-set.js';
import { desiredWorkload } from './sync.js';
import { availableStatement, missingStatement, scaling, stated } from './workload-conditions.js';
import { refusalOf } from './workload-reconciler.js';
import { workloadRuntime } from './wiring.js';

const meta = { namespace: 'shop', labels: { 'x/cluster': 'web' } };
const selector = { 'x/cluster': 'web' };
const child = (kind: string, name: string) => ({
  apiVersion: 'v1',
  kind,
  metadata: { name, namespace: 'shop', labels: {} },
});

describe('renderRoleServices / renderPolicies / renderConfigMap', () => {
  const roles = { label: 'x/role', primary: 'primary', replica: 'replica' };
  const names = workloadChildNames('web');
  const services = renderRoleServices(meta, names, selector, roles, { name: 'db', port: 5 });

  it('selects the primary for read-write, the replicas for read-only, every pod for headless', () => {
    expect(services.headless.spec).toMatchObject({ clusterIP: 'None', selector });
    expect(services.readWrite.metadata.name).toBe('web-rw');
    expect(services.readWrite.spec).toMatchObject({
      selector: { ...selector, 'x/role': 'primary' },
    });
    expect(services.readOnly.spec).toMatchObject({
      selector: { ...selector, 'x/role': 'replica' },
    });
  });

  it('renders one PDB and one ingress policy over the pods, with the data given', () => {
    const { podDisruptionBudget, networkPolicy } = renderPolicies(meta, names, selector, 5, {});
    expect(podDisruptionBudget.spec).toEqual({
      maxUnavailable: 1,
      selector: { matchLabels: selector },
    });
    expect(networkPolicy.kind).toBe('NetworkPolicy');
    expect(renderConfigMap(meta, 'web-config', { a: 'b' })).toMatchObject({
      kind: 'ConfigMap',
      metadata: { name: 'web-config', namespace: 'shop' },
      data: { a: 'b' },
    });
  });
});

describe('drain safety: the disruption budgets, the protected pods, the drain switchover', () => {
  const names = workloadChildNames('web');

  it('with replicas to switch to: the primary never evicted, the others one at a time (no pod in two budgets)', () => {
    const rendered = renderPolicies(meta, names, selector, 5, {}, 3);
    expect(rendered.primaryDisruptionBudget).toMatchObject({
      metadata: { name: 'web-primary' },
      spec: {
        maxUnavailable: 0,
        selector: { matchLabels: { ...selector, [EvictionProtectedLabel]: 'true' } },
      },
    });
    expect(rendered.podDisruptionBudget.spec).toEqual({
      // All but one of the two replicas: the disruption controller counts the selected pods.
      minAvailable: 1,
      selector: {
        matchLabels: selector,
        matchExpressions: [{ key: EvictionProtectedLabel, operator: 'DoesNotExist' }],
      },
      unhealthyPodEvictionPolicy: 'AlwaysAllow',
    });
    expect(renderPolicies(meta, names, selector, 5, {}, 1).primaryDisruptionBudget).toBe(undefined);
  });

  it('protects the primary, and both ends of a switchover or failover under way; none with one instance', () => {
    const moving = (phase: string) => ({ phase, from: 'web-0', to: 'web-2' });
    expect([...evictionProtected({ instances: 3, primary: 'web-0', moving: [] })]).toEqual([
      'web-0',
    ]);
    expect(
      [
        ...evictionProtected({ instances: 3, primary: 'web-2', moving: [moving('Promoting')] }),
      ].sort(),
    ).toEqual(['web-0', 'web-2']);
    expect([
      ...evictionProtected({ instances: 3, primary: 'web-2', moving: [moving('Completed')] }),
    ]).toEqual(['web-2']);
    expect(evictionProtected({ instances: 1, primary: 'web-0', moving: [] }).size).toBe(0);
    const pod = (name: string, label?: string) => ({
      metadata: {
        name,
        labels: (label ? { [EvictionProtectedLabel]: label } : {}) as Record<string, string>,
      },
    });
    expect(
      evictionProtectionChanges(
        [pod('web-0'), pod('web-1', 'true'), pod('web-2', 'true')],
        new Set(['web-0', 'web-2']),
      ),
    ).toEqual([
      { pod: 'web-0', protect: true },
      { pod: 'web-1', protect: false },
    ]);
  });

  it('asks for a switchover when the primary is on a cordoned node, avoiding every pod there', () => {
    const pod = (name: string, nodeName: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name },
      spec: { nodeName },
    });
    const pods = [pod('web-0', 'a'), pod('web-1', 'b'), pod('web-2', 'a')];
    const cordoned = (n: string) => n === 'a';
    expect(drainWantsSwitchover({ pods, primary: 'web-0', cordoned })).toEqual({
      avoid: ['web-0', 'web-2'],
    });
    expect(drainWantsSwitchover({ pods, primary: 'web-1', cordoned })).toBe(undefined);
    expect(drainWantsSwitchover({ pods: [pods[0]!], primary: 'web-0', cordoned })).toBe(undefined);
    expect(nodeCordoned({ apiVersion: 'v1', kind: 'Node', metadata: {}, spec: {} })).toBe(false);
    expect(
      nodeCordoned({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {},
        spec: { taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }] },
      }),
    ).toBe(true);
  });
});

describe('renderWorkloadStatefulSet', () => {
  const base = {
    meta,
    name: 'web',
    serviceName: 'web-headless',
    selector,
    replicas: 3,
    updateStrategy: 'OnDelete' as const,
    whenScaled: 'Delete' as const,
    podAnnotations: { h: '1' },
    securityContext: podSecurityContext(999, 999),
    containers: [{ name: 'server' }],
    volumes: [TmpVolume],
  };

  it('hardens every pod the same way and keeps claims when the StatefulSet goes', () => {
    const sts = renderWorkloadStatefulSet(base) as never as {
      spec: Record<string, unknown> & { template: { spec: Record<string, unknown> } };
    };
    expect(sts.spec).toMatchObject({
      replicas: 3,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Delete' },
    });
    expect(sts.spec.template.spec).toMatchObject({
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { runAsNonRoot: true, fsGroupChangePolicy: 'OnRootMismatch' },
    });
    expect(sts.spec).not.toHaveProperty('volumeClaimTemplates');
  });

  it('adds a ReadWriteOnce claim template with its class only when one is given', () => {
    const sts = renderWorkloadStatefulSet({
      ...base,
      claim: { name: 'data', size: '1Gi' },
    }) as never as {
      spec: { volumeClaimTemplates: { spec: Record<string, unknown> }[] };
    };
    expect(sts.spec.volumeClaimTemplates[0]!.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' } },
    });
  });

  it('compactResources drops empty members', () => {
    expect(compactResources({ requests: {}, limits: { memory: '1Gi' } })).toEqual({
      limits: { memory: '1Gi' },
    });
  });
});

describe('desiredWorkload', () => {
  it('orders Secrets, ConfigMap, Services, PDB, NetworkPolicy, StatefulSets; Secrets created once with a fresh password', () => {
    const passwords: string[] = [];
    const want = desiredWorkload({
      generatedSecrets: [
        { name: 'web-auth', render: (p) => (passwords.push(p), child('Secret', 'web-auth')) },
      ],
      configMap: child('ConfigMap', 'web-config'),
      services: [child('Service', 'web-rw'), child('Service', 'web-ro')],
      podDisruptionBudget: child('PodDisruptionBudget', 'web'),
      networkPolicy: child('NetworkPolicy', 'web'),
      statefulSets: [child('StatefulSet', 'web')],
    });
    expect(want.map((w) => `${w.resourceType.kind}/${w.mode ?? 'apply'}`)).toEqual([
      'Secret/create-once',
      'ConfigMap/apply',
      'Service/apply',
      'Service/apply',
      'PodDisruptionBudget/apply',
      'NetworkPolicy/apply',
      'StatefulSet/apply',
    ]);
    const secret = want[0]!;
    expect(typeof secret.object).toBe('function');
    (secret.object as () => unknown)();
    (secret.object as () => unknown)();
    expect(passwords).toHaveLength(2);
    expect(passwords[0]).not.toBe(passwords[1]);
  });
});

describe('decisionStale', () => {
  const key = 'shop/web';
  it('is undefined while the primary and the records are where the decision saw them', () => {
    const s = { primary: 'web-0', failoverCount: 1, failover: { phase: 'Completed' } };
    expect(decisionStale(s, { ...s }, key, failoverMarksOf)).toBeUndefined();
  });
  it.each([
    ['another primary', { primary: 'web-1', failoverCount: 1 }],
    ['a further failover', { primary: 'web-0', failoverCount: 2 }],
    [
      'a record further on',
      { primary: 'web-0', failoverCount: 1, failover: { phase: 'Completed' } },
    ],
  ])('names %s', (_what, latest) => {
    const why = decisionStale({ primary: 'web-0', failoverCount: 1 }, latest, key, failoverMarksOf);
    expect(why).toMatch(
      /^status of shop\/web changed since it was read \(primary web-0 → web-\d\)/,
    );
  });
});

describe('names and labels', () => {
  it('derives every shared child name and the app.kubernetes.io labels', () => {
    expect(workloadChildNames('db')).toEqual({
      statefulSet: 'db',
      headless: 'db-headless',
      readWrite: 'db-rw',
      readOnly: 'db-ro',
      configMap: 'db-config',
      podDisruptionBudget: 'db',
      networkPolicy: 'db',
    });
    expect(workloadLabels('postgresql', 'database', 'x/cluster', 'db')).toEqual({
      'app.kubernetes.io/name': 'postgresql',
      'app.kubernetes.io/instance': 'db',
      'app.kubernetes.io/component': 'database',
      'app.kubernetes.io/managed-by': 'steward',
      'x/cluster': 'db',
    });
  });
  it('throws a TypeError naming the lib for an object that was never stored', () => {
    expect(() =>
      storedName({ apiVersion: 'v1', kind: 'Thing', metadata: {} }, 'Thing', 'steward/x'),
    ).toThrow(new TypeError('steward/x: a Thing without metadata.name'));
    expect(() =>
      storedNamespace(
        { apiVersion: 'v1', kind: 'Thing', metadata: { name: 'a' } },
        'Thing',
        'steward/x',
      ),
    ).toThrow(/without metadata.namespace/);
  });
});

describe('phase statements', () => {
  it('states Ready as Available with the primary, not progressing', () => {
    expect(availableStatement(3, 'pods', 'web-0')).toEqual({
      phase: 'Ready',
      reason: 'Available',
      message: '3 of 3 pods ready; primary web-0',
      progressing: false,
    });
    expect(availableStatement(1, 'pods', undefined).message).toBe('1 of 1 pods ready; primary');
  });
  it('states a missing member as Degraded, InstancesMissing, still progressing', () => {
    expect(missingStatement(2, 3, 'instances')).toEqual(
      stated(
        'Degraded',
        'InstancesMissing',
        '2 of 3 instances exist; the StatefulSet re-creates the missing ones',
      ),
    );
  });
  it.each([
    [undefined, 3, false],
    [{ phase: 'Ready', replicas: 3 }, 3, false],
    [{ phase: 'Ready', replicas: 2 }, 3, true],
    [{ phase: 'Scaling', replicas: 3 }, 3, true],
    [{ phase: 'Provisioning' }, 3, false],
  ])('scaling(%j, %i) is %s', (status, replicas, want) => {
    expect(scaling(status, replicas)).toBe(want);
  });
});

describe('refusalOf, adminFailure, scrubbed, workloadRuntime', () => {
  it('carries a refusal (and its recheck) out of an admission, nothing out of an allowed one', () => {
    expect(refusalOf({ allowed: true })).toBeUndefined();
    expect(refusalOf({ allowed: false, reason: 'R', message: 'm', recheckAfterMs: 5 })).toEqual({
      reason: 'R',
      message: 'm',
      recheckAfterMs: 5,
    });
  });
  it('names a closed admin and a cut-short observation; leaves the rest to the protocol', () => {
    expect(adminFailure(new AdminClosedError('Redis'))).toEqual({
      kind: 'closed',
      reason: 'the Redis admin is closed',
    });
    expect(adminFailure(new ObservationAbortedError())).toEqual({
      kind: 'timeout',
      reason: 'observation aborted',
    });
    expect(adminFailure(new Error('ECONNREFUSED'))).toBeUndefined();
  });
  it('scrubs every secret, ignoring empty ones', () => {
    expect(scrubbed('pw s3cret and hunter2', ['s3cret', '', 'hunter2'])).toBe('pw *** and ***');
  });
  it('takes the options’ clock and poll, with 5 s / 1 s by default', () => {
    const at = new Date(0);
    const runtime = workloadRuntime({ now: () => at, pollIntervalMs: 7 });
    expect(runtime.now()).toBe(at);
    expect(runtime.poll).toEqual({ pollMs: 7, busyMs: 1000 });
    expect(workloadRuntime({}).poll).toEqual({ pollMs: 5000, busyMs: 1000 });
  });
});
