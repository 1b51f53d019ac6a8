// What the API server does with these rules is proven against a real one in
// tests/admission.int.test.ts, with the CRD the chart ships.
import { describe, expect, it } from 'vitest';
import { KafkaTopic } from './index.js';

interface CrdVersion {
  name: string;
  subresources: Record<string, unknown>;
  additionalPrinterColumns: { name: string; jsonPath: string }[];
  schema: {
    openAPIV3Schema: {
      properties: { spec: { properties: Record<string, { default?: unknown }> } };
    };
  };
}
const crd = KafkaTopic.crd() as {
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; shortNames: string[]; categories: string[] };
    versions: CrdVersion[];
  };
};
const version = crd.spec.versions[0]!;

describe('the KafkaTopic CRD', () => {
  it('is kafkatopics.kafka.steward.dev/v1alpha1, namespaced, short-named kt, in the steward category, with status', () => {
    expect(crd.metadata.name).toBe('kafkatopics.kafka.steward.dev');
    expect(crd.spec).toMatchObject({ group: 'kafka.steward.dev', scope: 'Namespaced' });
    expect(crd.spec.names).toMatchObject({
      kind: 'KafkaTopic',
      shortNames: ['kt'],
      categories: ['steward'],
    });
    expect(version.name).toBe('v1alpha1');
    expect(version.subresources).toEqual({ status: {} });
  });

  it('shows Topic, Partitions, Replication, Ready, Reason and Age in kubectl get', () => {
    const shown = version.additionalPrinterColumns
      .filter((c) => !('priority' in c))
      .map((c) => c.name);
    expect(shown).toEqual(['Topic', 'Partitions', 'Replication', 'Ready', 'Reason', 'Age']);
  });

  it('defaults to Retain and no adoption', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec.properties;
    expect(spec.deletionPolicy?.default).toBe('Retain');
    expect(spec.adopt?.default).toBe(false);
  });
});
