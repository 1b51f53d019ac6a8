import { type DBInstance } from '@aws-sdk/client-rds';
import { type DatabaseInstance } from '@steward/database-instance-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type AwsConfig } from '../provider-config.js';
import { desiredRdsInstance } from './desired.js';
import { checkModification, planModification } from './plan.js';
import { providerState } from './state.js';

const config: AwsConfig = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
  sizeClasses: { small: 'db.t3.micro', large: 'db.m6g.large' },
};
const dbi = (spec: Partial<DatabaseInstance['spec']> = {}): DatabaseInstance =>
  ({
    apiVersion: 'database.steward.dev/v1alpha1',
    kind: 'DatabaseInstance',
    metadata: { name: 'orders', namespace: 'shop', uid: 'u1' },
    spec: {
      providerProfileRef: { name: 'aws' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...spec,
    },
  }) as DatabaseInstance;

describe('desiredRdsInstance', () => {
  it('maps the spec to RDS terms with the documented defaults', () => {
    expect(desiredRdsInstance(dbi(), config)).toEqual({
      engine: 'postgres',
      engineVersion: '16',
      instanceClass: 'db.t3.micro',
      allocatedStorage: 20,
      storageType: 'gp2',
      multiAZ: false,
      backupRetentionPeriod: 7,
      // Secure by default (spec.security): encrypted, not public, protected from deletion.
      storageEncrypted: true,
      publiclyAccessible: false,
      deletionProtection: true,
    });
  });

  it('takes spec.security’s explicit opt-outs, and refuses requireTLS: false (no parameter groups)', () => {
    expect(
      desiredRdsInstance(
        dbi({
          security: {
            storageEncrypted: false,
            publiclyAccessible: true,
            deletionProtection: false,
          },
        }),
        config,
      ),
    ).toMatchObject({
      storageEncrypted: false,
      publiclyAccessible: true,
      deletionProtection: false,
    });
    expect(() => desiredRdsInstance(dbi({ security: { requireTLS: false } }), config)).toThrow(
      'spec.security.requireTLS: false is not supported by the aws provider',
    );
  });

  it('lets providerOverrides.aws.instanceClass win over size', () => {
    const d = desiredRdsInstance(
      dbi({ providerOverrides: { aws: { instanceClass: 'db.r6i.xlarge' } } }),
      config,
    );
    expect(d.instanceClass).toBe('db.r6i.xlarge');
  });

  it.each([
    [{ storageGiB: 10 }, 'spec.storageGiB 10 is out of range'],
    [
      { storageGiB: 50, providerOverrides: { aws: { storageType: 'io1' as const, iops: 1000 } } },
      'spec.storageGiB 50',
    ],
    [
      { providerOverrides: { aws: { storageType: 'gp2' as const, iops: 3000 } } },
      'spec.providerOverrides.aws.iops',
    ],
    [{ size: 'huge' }, 'spec.size "huge" is not a size class'],
    [{ version: '9' }, 'spec.version "9"'],
    [{ engine: 'mysql' as const, version: '8' }, 'spec.version "8"'],
    [{ providerOverrides: { gcp: { tier: 'db-f1-micro' } } }, 'spec.providerOverrides.gcp'],
  ])('refuses %j with a message naming the field', (spec, message) => {
    expect(() => desiredRdsInstance(dbi(spec), config)).toThrow(message);
  });
});

describe('planModification', () => {
  const actual = (over: Partial<DBInstance> = {}): DBInstance => ({
    DBInstanceClass: 'db.t3.micro',
    AllocatedStorage: 20,
    StorageType: 'gp2',
    MultiAZ: false,
    BackupRetentionPeriod: 7,
    StorageEncrypted: true,
    PubliclyAccessible: false,
    DeletionProtection: true,
    ...over,
  });

  it('is empty when the instance matches, and names each differing field', () => {
    const desired = desiredRdsInstance(dbi(), config);
    expect(planModification(desired, actual())).toEqual({});
    expect(
      planModification(
        desiredRdsInstance(
          dbi({
            size: 'large',
            storageGiB: 30,
            highAvailability: true,
            backup: { retentionDays: 1 },
          }),
          config,
        ),
        actual(),
      ),
    ).toEqual({
      DBInstanceClass: 'db.m6g.large',
      AllocatedStorage: 30,
      MultiAZ: true,
      BackupRetentionPeriod: 1,
    });
  });

  it('turns deletion protection on and public access off on an instance that lacks them (never its encryption: RDS cannot change it)', () => {
    const desired = desiredRdsInstance(dbi(), config);
    expect(
      planModification(
        desired,
        actual({ DeletionProtection: false, PubliclyAccessible: true, StorageEncrypted: false }),
      ),
    ).toEqual({ DeletionProtection: true, PubliclyAccessible: false });
  });

  it('counts pending modifications as applied, so it never asks twice', () => {
    const desired = desiredRdsInstance(dbi({ storageGiB: 40 }), config);
    expect(
      planModification(desired, actual({ PendingModifiedValues: { AllocatedStorage: 40 } })),
    ).toEqual({});
  });

  it('converges: applying the plan leaves nothing to do (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('small', 'large'),
        fc.integer({ min: 20, max: 65536 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 35 }),
        (size, storageGiB, highAvailability, retentionDays) => {
          const desired = desiredRdsInstance(
            dbi({ size, storageGiB, highAvailability, backup: { retentionDays } }),
            config,
          );
          const plan = planModification(desired, actual());
          return Object.keys(planModification(desired, actual({ ...plan }))).length === 0;
        },
      ),
    );
  });

  it('refuses to shrink storage or to grow it by less than 10 %', () => {
    expect(() =>
      checkModification({ AllocatedStorage: 20 }, actual({ AllocatedStorage: 30 })),
    ).toThrow('can only grow');
    expect(() => checkModification({ AllocatedStorage: 21 }, actual())).toThrow('at least 22 GiB');
    expect(() => checkModification({ AllocatedStorage: 22 }, actual())).not.toThrow();
  });
});

describe('providerState', () => {
  it.each([
    ['available', 'available'],
    ['creating', 'creating'],
    ['modifying', 'modifying'],
    ['upgrading', 'modifying'],
    ['backing-up', 'backing-up'],
    ['maintenance', 'maintenance'],
    ['stopped', 'stopped'],
    ['deleting', 'deleting'],
    ['storage-full', 'failed'],
    ['something-new', 'unknown'],
    [undefined, 'unknown'],
  ])('%s → %s', (raw, state) => {
    expect(providerState(raw)).toBe(state);
  });
});
