import { type ProviderProfile } from '@steward/provider-profile-api';
import { describe, expect, it } from 'vitest';
import { profileChangesForUsers } from './predicates.js';

const profile = (generation: number, ready?: string, usedBy = 0): ProviderProfile =>
  ({
    metadata: { name: 'p', generation },
    spec: { provider: 'kafka', namespaceSelector: {}, kafka: { bootstrapServers: ['b:9092'] } },
    status: {
      usedBy,
      ...(ready
        ? {
            conditions: [
              { type: 'Ready', status: ready, reason: 'R', message: '', lastTransitionTime: '' },
            ],
          }
        : {}),
    },
  }) as ProviderProfile;

describe('profileChangesForUsers', () => {
  const update = profileChangesForUsers.update!;
  it('passes spec changes and Ready status changes', () => {
    expect(update(profile(1, 'True'), profile(2, 'True'))).toBe(true);
    expect(update(profile(1, 'False'), profile(1, 'True'))).toBe(true);
    expect(update(profile(1), profile(1, 'True'))).toBe(true);
  });
  it('drops other status writes', () => {
    expect(update(profile(1, 'True', 1), profile(1, 'True', 2))).toBe(false);
  });
});
