import { type KubeObject } from '@steward/kube';
import { describe, expect, it } from 'vitest';
import { addFinalizerPatch, removeFinalizerPatch } from './finalizer-patches.js';

const ours = 'test.steward.dev/cleanup';

function obj(finalizers: string[] | undefined, resourceVersion?: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', finalizers, resourceVersion },
  };
}

describe('addFinalizerPatch', () => {
  it('tests the whole current list, then appends', () => {
    expect(addFinalizerPatch(obj(['a.io/x', 'b.io/y'], '5'), ours)).toEqual([
      { op: 'test', path: '/metadata/finalizers', value: ['a.io/x', 'b.io/y'] },
      { op: 'add', path: '/metadata/finalizers/-', value: ours },
    ]);
  });

  it.each([[undefined], [[]]])('tests the resourceVersion when there is no list (%j)', (list) => {
    expect(addFinalizerPatch(obj(list, '5'), ours)).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: '5' },
      { op: 'add', path: '/metadata/finalizers', value: [ours] },
    ]);
  });

  it('refuses an object with nothing to test', () => {
    expect(() => addFinalizerPatch(obj(undefined), ours)).toThrow(TypeError);
  });
});

describe('removeFinalizerPatch', () => {
  it('tests our name at the index it removes', () => {
    expect(removeFinalizerPatch(obj(['a.io/x', ours, 'b.io/y']), ours)).toEqual([
      { op: 'test', path: '/metadata/finalizers/1', value: ours },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });

  it('is undefined when the finalizer is absent', () => {
    expect(removeFinalizerPatch(obj(['a.io/x']), ours)).toBeUndefined();
    expect(removeFinalizerPatch(obj(undefined), ours)).toBeUndefined();
  });
});
