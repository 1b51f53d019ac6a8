import { describe, expect, it } from 'vitest';
import { workloadConditions } from './workload-conditions.js';

describe('workloadConditions', () => {
  const base = {
    ready: false,
    reason: 'Provisioning',
    message: 'initialising',
    progressing: true,
    degradations: [],
    healthyMessage: 'ok',
  };
  it('a failure takes Ready’s reason while not ready (never "initialising" forever) and is Degraded', () => {
    const c = workloadConditions({
      ...base,
      failures: [{ reason: 'Unschedulable', message: 'pod c-0 cannot be scheduled: 0/1 nodes' }],
    });
    expect(c).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'Unschedulable',
        message: 'pod c-0 cannot be scheduled: 0/1 nodes',
      },
      { type: 'Progressing', status: 'True', reason: 'Provisioning', message: 'initialising' },
      {
        type: 'Degraded',
        status: 'True',
        reason: 'Unschedulable',
        message: 'pod c-0 cannot be scheduled: 0/1 nodes',
      },
    ]);
  });
  it('a ready workload ignores failures (a pod that left meanwhile is not one)', () => {
    const c = workloadConditions({
      ...base,
      ready: true,
      reason: 'Available',
      message: 'up',
      progressing: false,
      failures: [{ reason: 'CrashLooping', message: 'x' }],
    });
    expect(c.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['Ready', 'True', 'Available'],
      ['Progressing', 'False', 'Converged'],
      ['Degraded', 'False', 'Healthy'],
    ]);
  });
  it('notes keep Progressing true on a converged workload', () => {
    const c = workloadConditions({
      ...base,
      ready: true,
      reason: 'Available',
      message: 'up',
      progressing: false,
      notes: [{ reason: 'VolumeExpanding', message: 'data-c-0 grows' }],
    });
    expect(c[1]).toEqual({
      type: 'Progressing',
      status: 'True',
      reason: 'VolumeExpanding',
      message: 'data-c-0 grows',
    });
  });
  it('degradations after failures, every message joined', () => {
    const c = workloadConditions({
      ...base,
      failures: [{ reason: 'ImagePullFailed', message: 'a' }],
      degradations: [{ reason: 'VolumeExpansionFailed', message: 'b' }],
    });
    expect(c[2]).toEqual({
      type: 'Degraded',
      status: 'True',
      reason: 'ImagePullFailed',
      message: 'a; b',
    });
  });
  it('a refused spec change makes even a serving workload Ready=False (not converged), and Degraded', () => {
    const c = workloadConditions({
      ...base,
      ready: true,
      reason: 'Available',
      message: 'up',
      progressing: false,
      refusals: [{ reason: 'InvalidParameters', message: 'work_mem takes a whole number' }],
    });
    expect(c.map((x) => [x.type, x.status, x.reason])).toEqual([
      ['Ready', 'False', 'InvalidParameters'],
      ['Progressing', 'False', 'Converged'],
      ['Degraded', 'True', 'InvalidParameters'],
    ]);
  });
});
