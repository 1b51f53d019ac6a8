// What the API server does with these rules is proven against a real one in
// libs/database-instance-api/tests/admission.int.test.ts (both CRDs ship in one chart) and, for
// kubernetes profiles, in ../tests/admission.int.test.ts.
import { describe, expect, it } from 'vitest';
import { ProviderProfile, Providers, QUANTITY_PATTERN } from './index.js';

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
  properties: Record<string, Node>;
};
/** A node of the structural schema, as far as these tests look. */
interface Node {
  type?: string;
  default?: unknown;
  required?: string[];
  pattern?: string;
  properties?: Record<string, Node>;
  additionalProperties?: Node;
  items?: Node;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-validations'?: { rule: string; message: string }[];
}
const messages = spec['x-kubernetes-validations'].map((v) => v.message);
const kubernetes = spec.properties.kubernetes!;
const sizeClass = kubernetes.properties!.sizeClasses!.additionalProperties!;

describe('the ProviderProfile CRD', () => {
  it('is cluster-scoped, short-named pp, with Provider, Ready and Age columns', () => {
    expect(crd.spec.scope).toBe('Cluster');
    expect(crd.spec.names.shortNames).toEqual(['pp']);
    expect(version.additionalPrinterColumns.map((c) => c.name)).toEqual(
      expect.arrayContaining(['Provider', 'Ready', 'Age']),
    );
  });

  it('has a provider enum of aws, gcp, kafka and kubernetes', () => {
    expect(Providers).toEqual(['aws', 'gcp', 'kafka', 'kubernetes']);
    expect(spec.properties.provider).toMatchObject({ enum: [...Providers] });
  });

  it.each(Providers)('requires spec.%s exactly when spec.provider names it', (provider) => {
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

describe('the kubernetes block of the ProviderProfile CRD', () => {
  it('requires the image catalogue and makes it a list map keyed by engine and version', () => {
    expect(kubernetes.required).toEqual(['images']);
    const images = kubernetes.properties!.images!;
    expect(images['x-kubernetes-list-type']).toBe('map');
    expect(images['x-kubernetes-list-map-keys']).toEqual(['engine', 'version']);
    expect(images.items?.required).toEqual(['engine', 'version', 'image']);
  });

  it('maps size names to cpu and memory (required), storage and maxMemory, all quantities', () => {
    expect(kubernetes.properties!.sizeClasses!.type).toBe('object');
    expect(sizeClass.required).toEqual(['cpu', 'memory']);
    for (const field of ['cpu', 'memory', 'storage', 'maxMemory']) {
      expect(sizeClass.properties![field]).toMatchObject({
        type: 'string',
        pattern: QUANTITY_PATTERN,
      });
    }
    expect(kubernetes.properties!.maxStorage?.pattern).toBe(QUANTITY_PATTERN);
    expect(sizeClass['x-kubernetes-validations']?.map((v) => v.message)).toEqual([
      'spec.kubernetes.sizeClasses: a size class’s maxMemory must be below its memory (the memory limit): the server needs memory beyond its dataset',
    ]);
    const bounds = (field: string) =>
      sizeClass.properties![field]!['x-kubernetes-validations']?.map((v) => v.message);
    expect(bounds('cpu')).toEqual([
      'spec.kubernetes.sizeClasses: a size class’s cpu must be greater than 0',
    ]);
    for (const field of ['memory', 'storage', 'maxMemory']) {
      expect(bounds(field)).toEqual([
        `spec.kubernetes.sizeClasses: a size class’s ${field} must be greater than 0`,
        `spec.kubernetes.sizeClasses: a size class’s ${field} must be a whole number of bytes, such as 512Mi or 1Gi (not a fraction such as 0.5 or 100m)`,
      ]);
    }
    expect(kubernetes['x-kubernetes-validations']?.map((v) => v.message)).toEqual([
      'spec.kubernetes.sizeClasses: a size class’s storage may not exceed spec.kubernetes.maxStorage',
    ]);
  });

  it('makes storageClassNames a set and defaults requirePersistence to false', () => {
    expect(kubernetes.properties!.storageClassNames!['x-kubernetes-list-type']).toBe('set');
    expect(kubernetes.properties!.requirePersistence!.default).toBe(false);
    expect(kubernetes.properties!.maxReplicas!.type).toBe('integer');
  });

  it('checks allowedSizes against the size classes of the profile’s provider', () => {
    expect(messages).toContain(
      'spec.guardrails.allowedSizes may only name keys of spec.sizeClasses',
    );
    expect(messages).toContain(
      'spec.guardrails.allowedSizes may only name keys of spec.kubernetes.sizeClasses in a kubernetes profile',
    );
  });

  it('refuses the aws/gcp size classes and requireFinalSnapshot: true on a kubernetes profile', () => {
    expect(messages).toContain(
      'spec.sizeClasses maps sizes to aws or gcp instance classes: a kubernetes profile declares its size classes in spec.kubernetes.sizeClasses',
    );
    expect(messages).toContain(
      'spec.guardrails.requireFinalSnapshot is for aws and gcp profiles (DatabaseInstance final snapshots): in-cluster workloads take no final snapshot, so a kubernetes profile cannot require one',
    );
  });
});

describe('spec.kubernetes.backup: isolated backups', () => {
  const backup = kubernetes.properties!.backup!;
  const rules = (backup['x-kubernetes-validations'] ?? []).map((v) => v.message);

  it('allows no workload destination and copies no credentials unless the profile says so', () => {
    expect(backup.properties?.allowWorkloadDestinations).toMatchObject({
      type: 'boolean',
      default: false,
    });
    expect(backup.properties?.copyCredentialsToWorkloadNamespaces).toMatchObject({
      type: 'boolean',
      default: false,
    });
    expect(backup.properties?.allowedEndpoints).toMatchObject({
      type: 'array',
      'x-kubernetes-list-type': 'set',
      items: {
        'x-kubernetes-validations':
          backup.properties!.destination!.properties!.endpoint!['x-kubernetes-validations'],
      },
    });
    expect(backup.properties?.credentialsSourceSecretRef?.required).toEqual(
      expect.arrayContaining(['namespace', 'name']),
    );
  });

  it('refuses a copy without its source, and fields that would be ignored', () => {
    expect(rules).toEqual([
      'spec.kubernetes.backup.copyCredentialsToWorkloadNamespaces needs credentialsSourceSecretRef (the Secret to copy) and destination (whose credentialsSecretRef names the copies)',
      'spec.kubernetes.backup.credentialsSourceSecretRef is only read with copyCredentialsToWorkloadNamespaces: true (nothing is copied without it)',
      'spec.kubernetes.backup.allowedEndpoints is only read with allowWorkloadDestinations: true (workloads name no destination, hence no endpoint, without it)',
    ]);
  });
});

describe('QUANTITY_PATTERN', () => {
  const pattern = new RegExp(QUANTITY_PATTERN);
  it.each(['1', '0.5', '.5', '250m', '1Gi', '512Mi', '10G', '1e3', '1E-3', '1.5Ti'])(
    'accepts %s',
    (q) => expect(pattern.test(q)).toBe(true),
  );
  it.each(['', '-1', '1 Gi', '1GB', '1gi', '1K', 'Gi', 'ten', '1e1.5'])('refuses %j', (q) =>
    expect(pattern.test(q)).toBe(false),
  );
});
