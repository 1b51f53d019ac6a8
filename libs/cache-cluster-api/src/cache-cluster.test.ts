// What the API server does with the CRD is seen by libs/cache-cluster/tests and e2e/cache-cluster-controller-e2e,
// with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { CacheCluster } from './index.js';

interface CrdVersion {
  name: string;
  subresources: Record<string, unknown>;
  additionalPrinterColumns: { name: string; jsonPath: string; priority?: number }[];
  schema: {
    openAPIV3Schema: {
      properties: { spec: { properties: Record<string, { default?: unknown }> } };
    };
  };
}
const crd = CacheCluster.crd() as {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[]; categories: string[] };
    versions: CrdVersion[];
  };
};
const version = crd.spec.versions[0]!;

describe('the CacheCluster CRD', () => {
  it('is cacheclusters.cache.steward.dev/v1alpha1, namespaced, short-named cc, in the steward category, with status', () => {
    expect(crd.metadata.name).toBe('cacheclusters.cache.steward.dev');
    expect(crd.spec).toMatchObject({ group: 'cache.steward.dev', scope: 'Namespaced' });
    expect(crd.spec.names).toMatchObject({
      kind: 'CacheCluster',
      plural: 'cacheclusters',
      shortNames: ['cc'],
      categories: ['steward'],
    });
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
  });

  it('shows Ready, mode, primary, ready replicas and Age in kubectl get; phase, version and the reason with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => c.priority === undefined).map((c) => c.name)).toEqual([
      'Ready',
      'Mode',
      'Primary',
      'Ready Replicas',
      'Age',
    ]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Phase',
      'Version',
      'Reason',
    ]);
  });

  it('defaults to deletionPolicy Retain', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec.properties;
    expect(spec['deletionPolicy']?.default).toBe('Retain');
  });
});
