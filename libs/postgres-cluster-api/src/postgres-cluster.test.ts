// What the API server does with the CRD is seen by libs/postgres-cluster/tests and e2e/postgres-cluster-controller-e2e,
// with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { PostgresCluster } from './index.js';

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
const crd = PostgresCluster.crd() as {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string; shortNames: string[]; categories: string[] };
    versions: CrdVersion[];
  };
};
const version = crd.spec.versions[0]!;

describe('the PostgresCluster CRD', () => {
  it('is postgresclusters.postgres.steward.dev/v1alpha1, namespaced, short-named pgc, in the steward category, with status', () => {
    expect(crd.metadata.name).toBe('postgresclusters.postgres.steward.dev');
    expect(crd.spec).toMatchObject({ group: 'postgres.steward.dev', scope: 'Namespaced' });
    expect(crd.spec.names).toMatchObject({
      kind: 'PostgresCluster',
      plural: 'postgresclusters',
      shortNames: ['pgc'],
      categories: ['steward'],
    });
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
  });

  it('shows Ready, phase, primary, ready replicas, version and Age in kubectl get; replicas, the last backup and the reason with -o wide', () => {
    const columns = version.additionalPrinterColumns;
    expect(columns.filter((c) => c.priority === undefined).map((c) => c.name)).toEqual([
      'Ready',
      'Phase',
      'Primary',
      'Ready Replicas',
      'Version',
      'Age',
    ]);
    expect(columns.filter((c) => c.priority === 1).map((c) => c.name)).toEqual([
      'Replicas',
      'Last Backup',
      'Reason',
    ]);
  });

  it('defaults to deletionPolicy Retain', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec.properties;
    expect(spec['deletionPolicy']?.default).toBe('Retain');
  });
});
