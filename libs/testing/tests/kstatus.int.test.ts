import { afterEach, describe, expect, it } from 'vitest';
import {
  kstatus,
  kstatusBinary,
  KstatusBinaryMissingError,
  KstatusError,
  type KstatusObject,
  type KstatusResult,
} from '../src/index.js';

// The real tools/kstatus binary (sigs.k8s.io/cli-utils' status.Compute) over hand-made custom
// resources: each case is one of the rules listed in src/kstatus.ts, read from cli-utils'
// pkg/kstatus/status (generic.go, status.go). Build it first: `bash tools/kstatus/build.sh`.

const apiVersion = 'database.steward.dev/v1alpha1';
const kind = 'DatabaseInstance';
const namespace = 'kstatus';

interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

interface Shape {
  generation?: number;
  observedGeneration?: unknown;
  conditions?: Condition[];
  deletionTimestamp?: string;
  noStatus?: boolean;
}

function instance(name: string, shape: Shape): KstatusObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name,
      namespace,
      generation: shape.generation ?? 1,
      ...(shape.deletionTimestamp ? { deletionTimestamp: shape.deletionTimestamp } : {}),
    },
    spec: { engine: 'postgres' },
    ...(shape.noStatus
      ? {}
      : {
          status: {
            ...(shape.observedGeneration === undefined
              ? {}
              : { observedGeneration: shape.observedGeneration }),
            conditions: shape.conditions ?? [],
          },
        }),
  };
}

const ready = (status: Condition['status'], extra: Partial<Condition> = {}): Condition => ({
  type: 'Ready',
  status,
  reason: status === 'True' ? 'Available' : 'Provisioning',
  message: status === 'True' ? 'the instance is available' : 'waiting for the instance',
  ...extra,
});

interface Case {
  rule: string;
  object: KstatusObject;
  status: KstatusResult['status'];
  message: string | RegExp;
}

const cases: Case[] = [
  {
    rule: 'a generation the controller has not observed yet is InProgress, naming both generations',
    object: instance('unobserved', {
      generation: 2,
      observedGeneration: 1,
      conditions: [ready('True')],
    }),
    status: 'InProgress',
    message: 'DatabaseInstance generation is 2, but latest observed generation is 1',
  },
  {
    rule: 'Stalled=True at the observed generation is Failed, with the condition message',
    object: instance('stalled', {
      generation: 3,
      observedGeneration: 3,
      conditions: [
        ready('False'),
        { type: 'Stalled', status: 'True', reason: 'InvalidSpec', message: 'engine unsupported' },
      ],
    }),
    status: 'Failed',
    message: 'engine unsupported',
  },
  {
    rule: 'Reconciling=True is InProgress, with the condition message',
    object: instance('reconciling', {
      generation: 2,
      observedGeneration: 2,
      conditions: [
        { type: 'Reconciling', status: 'True', reason: 'Creating', message: 'creating instance' },
        ready('True'),
      ],
    }),
    status: 'InProgress',
    message: 'creating instance',
  },
  {
    rule: 'of Reconciling=True and Stalled=True, the one listed first decides',
    object: instance('stalled-first', {
      generation: 1,
      observedGeneration: 1,
      conditions: [
        { type: 'Stalled', status: 'True', reason: 'QuotaExceeded', message: 'out of quota' },
        { type: 'Reconciling', status: 'True', reason: 'Retrying', message: 'retrying' },
      ],
    }),
    status: 'Failed',
    message: 'out of quota',
  },
  {
    rule: 'Stalled=False and Reconciling=False are ignored',
    object: instance('abnormal-false', {
      generation: 1,
      observedGeneration: 1,
      conditions: [
        { type: 'Stalled', status: 'False', reason: 'Fine', message: 'fine' },
        { type: 'Reconciling', status: 'False', reason: 'Done', message: 'done' },
        ready('True'),
      ],
    }),
    status: 'Current',
    message: 'Resource is Ready',
  },
  {
    rule: 'Ready=True at the observed generation without Stalled is Current',
    object: instance('ready', {
      generation: 4,
      observedGeneration: 4,
      conditions: [ready('True')],
    }),
    status: 'Current',
    message: 'Resource is Ready',
  },
  {
    rule: 'Ready=False is InProgress (kstatus cannot tell waiting from doomed), with its message',
    object: instance('not-ready', {
      generation: 1,
      observedGeneration: 1,
      conditions: [ready('False')],
    }),
    status: 'InProgress',
    message: 'waiting for the instance',
  },
  {
    rule: 'Ready=Unknown is InProgress too',
    object: instance('ready-unknown', {
      generation: 1,
      observedGeneration: 1,
      conditions: [ready('Unknown', { message: 'not checked yet' })],
    }),
    status: 'InProgress',
    message: 'not checked yet',
  },
  {
    rule: 'a deletionTimestamp is Terminating, before any other rule',
    object: instance('deleting', {
      generation: 2,
      observedGeneration: 1,
      deletionTimestamp: '2024-01-01T00:00:00Z',
      conditions: [{ type: 'Stalled', status: 'True', reason: 'X', message: 'stalled' }],
    }),
    status: 'Terminating',
    message: 'Resource scheduled for deletion',
  },
  {
    rule:
      "a condition's own observedGeneration is not read: a stale Ready=True is Current once " +
      'status.observedGeneration matches',
    object: instance('stale-condition', {
      generation: 2,
      observedGeneration: 2,
      conditions: [ready('True', { observedGeneration: 1 })],
    }),
    status: 'Current',
    message: 'Resource is Ready',
  },
  {
    rule: 'without status.observedGeneration the generation rule is skipped for a custom resource',
    object: instance('no-observed-generation', { generation: 7, conditions: [ready('True')] }),
    status: 'Current',
    message: 'Resource is Ready',
  },
  {
    rule: 'an object with no status at all is Current',
    object: instance('no-status', { generation: 1, noStatus: true }),
    status: 'Current',
    message: 'Resource is current',
  },
  {
    rule: 'a wrongly typed status.observedGeneration is Unknown, with the error as its message',
    object: instance('bad-observed-generation', { generation: 1, observedGeneration: '1' }),
    status: 'Unknown',
    message: /status\.observedGeneration.*expected int64/,
  },
];

describe('kstatus (sigs.k8s.io/cli-utils status.Compute) over custom resources', () => {
  it('answers one result per object, in order, with each object identity', async () => {
    const results = await kstatus(cases.map((c) => c.object));
    expect(results.map((r) => [r.apiVersion, r.kind, r.namespace, r.name])).toEqual(
      cases.map((c) => [apiVersion, kind, namespace, c.object.metadata?.name]),
    );
    expect(results.map((r) => r.status)).toEqual(cases.map((c) => c.status));
  });

  it.each(cases)('$rule', async ({ object, status, message }) => {
    const [result] = await kstatus([object]);
    expect(result?.status).toBe(status);
    if (typeof message === 'string') expect(result?.message).toBe(message);
    else expect(result?.message).toMatch(message);
  });

  it('reports a cluster-scoped object with an empty namespace', async () => {
    const [result] = await kstatus([
      { apiVersion: 'steward.dev/v1alpha1', kind: 'ProviderProfile', metadata: { name: 'aws' } },
    ]);
    expect(result).toEqual({
      apiVersion: 'steward.dev/v1alpha1',
      kind: 'ProviderProfile',
      namespace: '',
      name: 'aws',
      status: 'Current',
      message: 'Resource is current',
    });
  });

  it('answers an empty array for no objects', async () => {
    await expect(kstatus([])).resolves.toEqual([]);
  });

  it('refuses an object without kind, naming its index', async () => {
    const noKind = { apiVersion, metadata: { name: 'x' } } as KstatusObject;
    const call = kstatus([instance('fine', {}), noKind]);
    await expect(call).rejects.toBeInstanceOf(KstatusError);
    await expect(call).rejects.toThrow(/object 1: kind is missing/);
  });

  it('refuses an object without metadata.name', async () => {
    await expect(kstatus([{ apiVersion, kind, metadata: {} }])).rejects.toThrow(
      /object 0: metadata\.name is missing/,
    );
  });
});

describe('kstatusBinary', () => {
  const saved = process.env['STEWARD_KSTATUS_BIN'];
  afterEach(() => {
    if (saved === undefined) delete process.env['STEWARD_KSTATUS_BIN'];
    else process.env['STEWARD_KSTATUS_BIN'] = saved;
  });

  it('names a missing STEWARD_KSTATUS_BIN and the command that builds it', () => {
    process.env['STEWARD_KSTATUS_BIN'] = '/nonexistent/kstatus';
    expect(() => kstatusBinary()).toThrow(KstatusBinaryMissingError);
    expect(() => kstatusBinary()).toThrow(
      /STEWARD_KSTATUS_BIN=\/nonexistent\/kstatus does not exist; build it with `bash tools\/kstatus\/build\.sh`/,
    );
  });

  // kstatusBinary() hashes tools/kstatus as build.sh's stamp_of does and checks the entry's .stamp
  it('finds the cached build of the current sources without STEWARD_KSTATUS_BIN', () => {
    delete process.env['STEWARD_KSTATUS_BIN'];
    expect(kstatusBinary()).toMatch(/\/kstatus-[0-9a-f]{16}\/bin\/kstatus$/);
  });
});
