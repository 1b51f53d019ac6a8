import { describe, expect, it } from 'vitest';
import { customObject, examplesOf, refusalOf } from './custom-objects.js';

const Widget = {
  apiVersion: 'example.steward.dev/v1',
  resourceType: { kind: 'Widget' },
};

class Refused extends Error {}

describe('custom objects in tests', () => {
  it('writes an object of a kind', () => {
    expect(customObject(Widget, { name: 'w', namespace: 'ns' }, { size: 1 })).toEqual({
      apiVersion: 'example.steward.dev/v1',
      kind: 'Widget',
      metadata: { name: 'w', namespace: 'ns' },
      spec: { size: 1 },
    });
  });

  it('reads the examples of a kind, placed in a namespace', async () => {
    const examples = await examplesOf<{ kind: string; metadata: { namespace?: string } }>(
      'cache-cluster',
      'CacheCluster',
      'mine',
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) {
      expect(example.kind).toBe('CacheCluster');
      expect(example.metadata.namespace).toBe('mine');
    }
  });

  it('answers a refusal’s message, and fails on an acceptance or another error', async () => {
    const isRefusal = (e: unknown) => e instanceof Refused;
    expect(await refusalOf(Promise.reject(new Refused('spec.size: Invalid')), isRefusal)).toBe(
      'spec.size: Invalid',
    );
    await expect(refusalOf(Promise.resolve({}), isRefusal)).rejects.toThrow(
      'the API server accepted it',
    );
    await expect(refusalOf(Promise.reject(new Error('ECONNREFUSED')), isRefusal)).rejects.toThrow(
      'ECONNREFUSED',
    );
  });
});
