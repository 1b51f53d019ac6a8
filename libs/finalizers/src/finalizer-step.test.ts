import { type KubeObject } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { finalizerStep, hasFinalizer, isBeingDeleted } from './finalizer-step.js';

const ours = 'test.steward.dev/cleanup';
const theirs = 'other.example.com/keep';

function obj(finalizers: string[] | undefined, deleting: boolean): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'x',
      finalizers,
      deletionTimestamp: deleting ? '2026-01-01T00:00:00Z' : undefined,
    },
  };
}

describe('finalizerStep', () => {
  it.each([
    ['live, no finalizers', obj(undefined, false), 'add'],
    ['live, only another finalizer', obj([theirs], false), 'add'],
    ['live, ours present', obj([theirs, ours], false), 'apply'],
    ['deleting, ours present', obj([ours, theirs], true), 'cleanup'],
    ['deleting, only another finalizer', obj([theirs], true), 'none'],
    ['deleting, no finalizers', obj(undefined, true), 'none'],
  ])('%s → %s', (_case, object, step) => {
    expect(finalizerStep(object, ours)).toBe(step);
  });

  it('reads deletion and presence from metadata alone', () => {
    expect(isBeingDeleted(obj([], true))).toBe(true);
    expect(isBeingDeleted(obj([], false))).toBe(false);
    expect(hasFinalizer(obj([theirs], false), ours)).toBe(false);
  });
});
