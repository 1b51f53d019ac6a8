// What the API server does with these rules is seen by each kind's admission tests
// (libs/*-api/tests), with the CRD its chart ships; here, what the schema says and names.
import { describe, expect, it } from 'vitest';
import { type CelRule } from './schema-helpers.js';
import { toStructural } from './structural.js';
import {
  ClientsSpec,
  ComputeResources,
  DeletionPolicyField,
  FailoverSpecFields,
  Quantity,
  requestsWithinLimits,
  storageClassNameStaysSet,
  VolumeClaimFields,
} from './workload-spec.js';

interface Node {
  description?: string;
  default?: unknown;
  enum?: string[];
  properties?: Record<string, Node>;
  'x-kubernetes-validations'?: CelRule[];
}
const structural = (schema: unknown) => toStructural(schema) as Node;
const messagesOf = (node: Node | undefined) =>
  (node?.['x-kubernetes-validations'] ?? []).map((r) => r.message ?? r.messageExpression);

describe('DeletionPolicyField', () => {
  it('is Retain or Delete, Retain by default', () => {
    expect(structural(DeletionPolicyField('What each keeps.'))).toEqual({
      type: 'string',
      enum: ['Retain', 'Delete'],
      default: 'Retain',
      description: 'What each keeps.',
    });
  });
});

describe('Quantity', () => {
  it('names the field and its example in its description and in the message for a non-quantity', () => {
    const schema = structural(Quantity('spec.maxMemory', { example: '256Mi or 1Gi', bytes: true }));
    expect(schema.description).toBe('spec.maxMemory: e.g. 256Mi or 1Gi');
    expect(messagesOf(schema)[0]).toBe('spec.maxMemory: not a quantity such as 256Mi or 1Gi');
  });

  it.each([
    ['a size in bytes must be above 0 and whole', true, 3],
    ['another quantity (cpu) must be above 0', false, 2],
  ])('%s', (_case, bytes, rules) => {
    const messages = messagesOf(structural(Quantity('spec.x', { example: '1', bytes })));
    expect(messages).toHaveLength(rules);
    expect(messages[1]).toBe('spec.x must be greater than 0');
  });

  it('keeps an explicit description and checks the extra rules last', () => {
    const extra: CelRule = { rule: 'true', message: 'extra' };
    const schema = structural(
      Quantity('spec.x', { example: '1', bytes: false, description: 'Said.', rules: [extra] }),
    );
    expect(schema.description).toBe('Said.');
    expect(messagesOf(schema).at(-1)).toBe('extra');
  });
});

describe('ComputeResources', () => {
  it('gives requests and limits cpu and memory, each message naming its path and a fitting example', () => {
    const resources = structural(ComputeResources('Whose.'));
    expect(resources.description).toBe('Whose.');
    const limits = resources.properties?.['limits']?.properties;
    expect(messagesOf(limits?.['cpu'])[0]).toBe(
      'spec.resources.limits.cpu: not a quantity such as 250m or 1',
    );
    expect(messagesOf(limits?.['memory'])[0]).toBe(
      'spec.resources.limits.memory: not a quantity such as 256Mi or 1Gi',
    );
  });

  it('comes with the spec rules that keep each request within its limit', () => {
    expect(requestsWithinLimits.map((r) => r.message)).toEqual([
      'spec.resources.requests.memory may not exceed spec.resources.limits.memory',
      'spec.resources.requests.cpu may not exceed spec.resources.limits.cpu',
    ]);
  });
});

describe('VolumeClaimFields', () => {
  const { size, storageClassName } = VolumeClaimFields('storage', {
    example: '10Gi or 500Gi',
    description: 'Each instance’s volume.',
  });

  it('lets the size only grow, naming spec.<key>.size and both sizes', () => {
    const messages = messagesOf(structural(size));
    expect(messages[0]).toBe('spec.storage.size: not a quantity such as 10Gi or 500Gi');
    expect(messages.at(-1)).toBe(
      "'spec.storage.size may only grow (from ' + oldSelf + ' to ' + self + '): a PersistentVolumeClaim cannot shrink'",
    );
  });

  it('keeps the StorageClass, also from being added or removed (the spec rule)', () => {
    expect(messagesOf(structural(storageClassName))).toEqual([
      'spec.storage.storageClassName is immutable',
    ]);
    expect(storageClassNameStaysSet('storage')).toEqual({
      rule: '!has(self.storage) || !has(oldSelf.storage) || has(self.storage.storageClassName) == has(oldSelf.storage.storageClassName)',
      message: 'spec.storage.storageClassName is immutable',
    });
  });
});

describe('the words a kind chooses', () => {
  it('ClientsSpec names what the kind calls its own pods', () => {
    expect(structural(ClientsSpec('instances')).description).toContain(
      'the cluster’s own instances and the controller always may',
    );
  });

  it('FailoverSpecFields names what a failover promotes; enabled by default, after 10s', () => {
    const { enabled, after } = FailoverSpecFields('standby', 'Promote a standby.');
    expect(structural(enabled)).toMatchObject({ default: true, description: 'Promote a standby.' });
    expect(structural(after)).toMatchObject({
      default: '10s',
      description:
        'How long the primary must be gone before a standby is promoted, e.g. 10s (1s–10m).',
    });
  });
});
