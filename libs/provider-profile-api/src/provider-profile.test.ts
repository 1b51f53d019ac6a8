// What the API server does with these rules is proven against a real one in
// libs/database-instance-api/tests/admission.int.test.ts (both CRDs ship in one chart).
import { describe, expect, it } from 'vitest';
import { ProviderProfile, Providers } from './index.js';

interface CrdVersion {
  schema: { openAPIV3Schema: { properties: { spec: Record<string, unknown> } } };
  additionalPrinterColumns: { name: string }[];
}
const crd = ProviderProfile.crd() as {
  spec: { scope: string; names: { shortNames: string[] }; versions: CrdVersion[] };
};
const version = crd.spec.versions[0]!;
const spec = version.schema.openAPIV3Schema.properties.spec as {
  'x-kubernetes-validations': { rule: string; message: string }[];
  properties: Record<
    string,
    { default?: unknown; properties?: Record<string, { default?: unknown }> }
  >;
};

describe('the ProviderProfile CRD', () => {
  it('is cluster-scoped, short-named pp, with Provider, Ready and Age columns', () => {
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.names.shortNames).toEqual(['pp']);
    expect(version.additionalPrinterColumns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['Provider', 'Ready', 'Age']),
    );
  });

  it.each(Providers)('requires spec.%s exactly when spec.provider names it', (provider) => {
    const messages = spec['x-kubernetes-validations'].map((v) => v.message);
    expect(messages).toContain(`spec.${provider} is required when spec.provider is ${provider}`);
    expect(messages).toContain(
      `spec.${provider} is only allowed when spec.provider is ${provider}`,
    );
  });

  it('defaults the guardrails to allowing both deletion policies and no required snapshot', () => {
    const guardrails = spec.properties.guardrails!;
    expect(guardrails.default).toEqual({});
    expect(guardrails.properties?.allowedDeletionPolicies?.default).toEqual(['Retain', 'Delete']);
    expect(guardrails.properties?.requireFinalSnapshot?.default).toBe(false);
  });
});
