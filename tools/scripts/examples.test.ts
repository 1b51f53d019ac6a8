import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { loadExamples, withLocalEndpoint } from './examples.js';

const dir = join(import.meta.dirname, '..', '..', 'examples');

describe('examples', () => {
  it('loads every example, Namespaces first, each a kind npm start knows', async () => {
    const examples = await loadExamples(dir);
    const kinds = examples.map((e) => e.object.kind);
    expect(kinds.slice(0, 2)).toEqual(['Namespace', 'Namespace']);
    expect(kinds).toEqual(
      expect.arrayContaining(['ProviderProfile', 'DatabaseInstance', 'KafkaTopic', 'CacheCluster']),
    );
    expect(kinds.lastIndexOf('Namespace')).toBeLessThan(kinds.indexOf('ProviderProfile'));
    const providers = examples
      .filter((e) => e.object.kind === 'ProviderProfile')
      .map((e) => (e.object as unknown as { spec: { provider: string } }).spec.provider);
    expect(providers.sort()).toEqual(['aws', 'gcp', 'kafka', 'kubernetes']);
  });

  it('points only profiles of external providers at the local APIs, leaving the example untouched', async () => {
    const examples = await loadExamples(dir);
    const endpoints = {
      aws: 'http://127.0.0.1:1',
      gcp: 'http://127.0.0.1:2',
      kafka: ['127.0.0.1:3'],
    };
    for (const { object } of examples) {
      const local = withLocalEndpoint(object, endpoints) as unknown as {
        spec?: {
          aws?: { endpoint?: string };
          gcp?: { endpoint?: string };
          kafka?: { bootstrapServers?: string[] };
        };
      };
      const provider = (object as unknown as { spec?: { provider?: string } }).spec?.provider;
      if (object.kind !== 'ProviderProfile' || provider === 'kubernetes') {
        expect(local).toBe(object);
        continue;
      }
      expect(
        local.spec?.aws?.endpoint ??
          local.spec?.gcp?.endpoint ??
          local.spec?.kafka?.bootstrapServers?.join(','),
      ).toMatch(/^(http:\/\/)?127\.0\.0\.1:[123]$/);
      expect(JSON.stringify(object)).not.toContain('127.0.0.1');
    }
  });
});
