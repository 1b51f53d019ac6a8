import { describe, expect, it } from 'vitest';
import {
  lastLine,
  podFailure,
  readFailures,
  stuckObjects,
  workloadFailures,
  type ClaimLike,
  type EventLike,
  type PodLike,
} from './pod-problems.js';

const created = '2026-12-07T00:00:00Z';
const now = Date.parse(created) + 60_000;

const pod = (status: PodLike['status'], name = 'c-0'): PodLike => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'a', creationTimestamp: created },
  status,
});
const waiting = (reason: string, message?: string, extra = {}) => ({
  phase: 'Pending',
  conditions: [{ type: 'PodScheduled', status: 'True' }],
  containerStatuses: [
    {
      name: 'server',
      ready: false,
      state: { waiting: { reason, ...(message ? { message } : {}) } },
      ...extra,
    },
  ],
});
const claim = (phase: string, storageClassName?: string): ClaimLike => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data-c-0', namespace: 'a', creationTimestamp: created },
  spec: storageClassName ? { storageClassName } : {},
  status: { phase },
});
const warning = (reason: string, message: string, at = created): EventLike => ({
  type: 'Warning',
  reason,
  message,
  lastTimestamp: at,
});

describe('podFailure', () => {
  const cases: { name: string; pod: PodLike; reason?: string; message?: string }[] = [
    {
      name: 'unschedulable, with the scheduler’s message',
      pod: pod({
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message: '0/3 nodes are available: 3 Insufficient cpu.',
          },
        ],
      }),
      reason: 'Unschedulable',
      message: 'pod c-0 cannot be scheduled: 0/3 nodes are available: 3 Insufficient cpu.',
    },
    {
      name: 'unschedulable for the spread (Required over nodes and zones), with what to do',
      pod: pod({
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message:
              "0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.",
          },
        ],
      }),
      reason: 'Unschedulable',
      message:
        "pod c-0 cannot be scheduled: 0/3 nodes are available: 1 node(s) didn't match pod topology spread constraints, 2 node(s) didn't match pod anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod. — the spread of spec.scheduling leaves no node for it: add nodes or zones, or set spec.scheduling.spread to Preferred (or relax its affinity / topologySpreadConstraints)",
    },
    {
      name: 'unschedulable on nodes without a zone label (a Required zone spread)',
      pod: pod({
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message:
              "0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
          },
        ],
      }),
      reason: 'Unschedulable',
      message:
        "pod c-0 cannot be scheduled: 0/1 nodes are available: 1 node(s) didn't match pod topology spread constraints (missing required label). preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling. — the spread of spec.scheduling leaves no node for it (a node without the spread’s topology label, e.g. topology.kubernetes.io/zone, is in no zone): add nodes or zones, or set spec.scheduling.spread to Preferred (or relax its affinity / topologySpreadConstraints)",
    },
    {
      name: 'unschedulable for node labels and taints, each named',
      pod: pod({
        phase: 'Pending',
        conditions: [
          {
            type: 'PodScheduled',
            status: 'False',
            reason: 'Unschedulable',
            message:
              "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, 2 node(s) didn't match Pod's node affinity/selector.",
          },
        ],
      }),
      reason: 'Unschedulable',
      message:
        "pod c-0 cannot be scheduled: 0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, 2 node(s) didn't match Pod's node affinity/selector. — no node that fits has the labels spec.scheduling.nodeSelector / affinity.nodeAffinity ask for; a tainted node needs a toleration in spec.scheduling.tolerations",
    },
    {
      name: 'an image that cannot be pulled',
      pod: pod(waiting('ImagePullBackOff', 'Back-off pulling image "redis:nope"')),
      reason: 'ImagePullFailed',
      message:
        'pod c-0: the image of container server cannot be pulled (ImagePullBackOff: Back-off pulling image "redis:nope")',
    },
    {
      name: 'an image the node may not pull (imagePullPolicy Never)',
      pod: pod(waiting('ErrImageNeverPull', 'Container image "x" is not present')),
      reason: 'ImagePullFailed',
    },
    {
      name: 'a Secret the environment references that does not exist',
      pod: pod(waiting('CreateContainerConfigError', 'secret "creds" not found')),
      reason: 'ReferencedObjectMissing',
      message: 'pod c-0: container server cannot be created: secret "creds" not found',
    },
    {
      name: 'a crash loop, with the server’s own last line',
      pod: pod(
        waiting('CrashLoopBackOff', 'back-off 40s', {
          restartCount: 4,
          lastState: {
            terminated: {
              exitCode: 1,
              message: 'starting\nFATAL: invalid value for parameter "shared_buffers": "x"\n',
            },
          },
        }),
      ),
      reason: 'CrashLooping',
      message:
        'pod c-0: container server keeps stopping (4 restarts, last exit code 1): FATAL: invalid value for parameter "shared_buffers": "x"',
    },
    {
      name: 'an init container counts too',
      pod: pod({
        phase: 'Pending',
        initContainerStatuses: [
          { name: 'init', state: { waiting: { reason: 'ErrImagePull', message: 'not found' } } },
        ],
      }),
      reason: 'ImagePullFailed',
    },
    {
      name: 'a running pod has none',
      pod: pod({
        phase: 'Running',
        containerStatuses: [{ name: 'server', state: { running: {} } }],
      }),
    },
    { name: 'a pod still creating has none of its own', pod: pod(waiting('ContainerCreating')) },
    {
      name: 'a pod being deleted is not reported',
      pod: {
        ...pod(waiting('CrashLoopBackOff')),
        metadata: { name: 'c-0', deletionTimestamp: created },
      },
    },
  ];
  it.each(cases)('$name', ({ pod: p, reason, message }) => {
    const f = podFailure(p);
    expect(f?.reason).toBe(reason);
    if (message) expect(f?.message).toBe(message);
  });
});

describe('stuckObjects', () => {
  it('names pending claims and pods still creating after a while, not the fresh ones', () => {
    const fresh = {
      ...claim('Pending'),
      metadata: { name: 'data-c-1', creationTimestamp: new Date(now - 5000).toISOString() },
    };
    expect(
      stuckObjects(
        [pod(waiting('ContainerCreating')), pod({ phase: 'Running' }, 'c-1')],
        [claim('Pending'), claim('Bound'), fresh],
        now,
      ),
    ).toEqual([
      { kind: 'PersistentVolumeClaim', name: 'data-c-0' },
      { kind: 'Pod', name: 'c-0' },
    ]);
  });
  it('an unscheduled pod needs no Events (its condition says why)', () => {
    expect(
      stuckObjects(
        [pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False' }] })],
        [],
        now,
      ),
    ).toEqual([]);
  });
});

describe('workloadFailures', () => {
  it('a volume not provisioned, with the newest provisioning warning', () => {
    const events = new Map([
      [
        'PersistentVolumeClaim/data-c-0',
        [
          warning('ProvisioningFailed', 'old', '2026-12-07T00:00:01Z'),
          warning(
            'ProvisioningFailed',
            'storageclass.storage.k8s.io "fast" not found',
            '2026-12-07T00:00:30Z',
          ),
          { type: 'Normal', reason: 'WaitForFirstConsumer', message: 'waiting' },
        ],
      ],
    ]);
    expect(workloadFailures([], [claim('Pending', 'fast')], events)).toEqual([
      {
        reason: 'VolumeNotProvisioned',
        message:
          'PersistentVolumeClaim data-c-0 is not provisioned (StorageClass fast): storageclass.storage.k8s.io "fast" not found',
      },
    ]);
  });
  it('a pending claim without a warning is not (yet) a failure', () => {
    expect(workloadFailures([], [claim('Pending')], new Map())).toEqual([]);
  });
  it('a volume the pod cannot mount (a Secret that does not exist)', () => {
    const events = new Map([
      [
        'Pod/c-0',
        [
          warning(
            'FailedMount',
            'MountVolume.SetUp failed for volume "creds" : secret "creds" not found',
          ),
        ],
      ],
    ]);
    expect(workloadFailures([pod(waiting('ContainerCreating'))], [], events)).toEqual([
      {
        reason: 'VolumeMountFailed',
        message:
          'pod c-0 cannot start: MountVolume.SetUp failed for volume "creds" : secret "creds" not found',
      },
    ]);
  });
  it('orders volumes, scheduling, mounts, images, references, crash loops', () => {
    const failures = workloadFailures(
      [
        pod(waiting('CrashLoopBackOff'), 'c-2'),
        pod(waiting('ErrImagePull'), 'c-1'),
        pod(
          {
            phase: 'Pending',
            conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
          },
          'c-3',
        ),
      ],
      [],
      new Map(),
    );
    expect(failures.map((f) => f.reason)).toEqual([
      'Unschedulable',
      'ImagePullFailed',
      'CrashLooping',
    ]);
  });
});

describe('readFailures', () => {
  it('lists Events only of stuck objects, by involvedObject', async () => {
    const asked: unknown[] = [];
    const client = {
      list: async (_rt: unknown, options: unknown) => {
        asked.push(options);
        return { items: [warning('ProvisioningFailed', 'no provisioner')], metadata: {} };
      },
    };
    const failures = await readFailures(client as never, 'a', [], [claim('Pending')], now);
    expect(asked).toEqual([
      {
        namespace: 'a',
        fieldSelector: 'involvedObject.kind=PersistentVolumeClaim,involvedObject.name=data-c-0',
      },
    ]);
    expect(failures.map((f) => f.reason)).toEqual(['VolumeNotProvisioned']);
  });
  it('costs no request while nothing is stuck', async () => {
    const client = {
      list: async () => {
        throw new Error('no request expected');
      },
    };
    expect(
      await readFailures(client as never, 'a', [pod({ phase: 'Running' })], [claim('Bound')], now),
    ).toEqual([]);
  });
});

describe('lastLine', () => {
  it('takes the last non-empty line', () => {
    expect(lastLine('a\nb\n\n')).toBe('b');
    expect(lastLine(undefined)).toBeUndefined();
  });
});
