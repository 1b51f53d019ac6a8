import { type CacheClusterSpec } from '@steward/cache-cluster-api';
import { describe, expect, it } from 'vitest';
import { planCacheCluster } from './plan-cache-cluster.js';

describe('planCacheCluster', () => {
  const accepted: { name: string; spec: CacheClusterSpec }[] = [
    { name: 'an empty spec', spec: {} },
    { name: 'every known parameter', spec: { parameters: { description: 'd', owner: 'team-a' } } },
    { name: 'a deletion policy', spec: { deletionPolicy: 'Delete' } },
  ];
  it.each(accepted)('accepts $name', ({ spec }) => {
    expect(planCacheCluster(spec)).toEqual({ action: 'accept', message: 'the spec is valid' });
  });

  const refused: { name: string; parameters: Record<string, string>; unknown: string }[] = [
    { name: 'an unknown key', parameters: { colour: 'blue' }, unknown: 'colour' },
    {
      name: 'unknown keys next to known ones, sorted',
      parameters: { zeta: '1', owner: 'team-a', alpha: '2' },
      unknown: 'alpha, zeta',
    },
    {
      name: 'a key that differs from a known one in case',
      parameters: { Owner: 'x' },
      unknown: 'Owner',
    },
  ];
  it.each(refused)(
    'refuses $name as UnknownParameter, naming the keys',
    ({ parameters, unknown }) => {
      expect(planCacheCluster({ parameters })).toEqual({
        action: 'refuse',
        reason: 'UnknownParameter',
        message: `spec.parameters has keys the CacheCluster controller does not know: ${unknown} (known: description, owner)`,
      });
    },
  );
});
