import { TerminalError } from '@steward/controller';
import { type DatabaseInstance } from '@steward/database-instance-api';
import { describe, expect, it } from 'vitest';
import { type GcpConfig } from '../provider-config.js';
import {
  desiredInstance,
  OwnerLabels,
  patchSettings,
  settingsDrift,
  type ActualSettings,
} from './instance-settings.js';

const config: GcpConfig = {
  project: 'p',
  region: 'europe-west1',
  clientOptions: {},
  sizeClasses: { small: 'db-custom-1-3840', large: 'db-custom-4-15360' },
};

function db(spec: Partial<DatabaseInstance['spec']> = {}): DatabaseInstance {
  return {
    apiVersion: 'database.steward.dev/v1alpha1',
    kind: 'DatabaseInstance',
    metadata: { name: 'orders.v2', namespace: 'team-a', uid: '0b7c-UID' },
    spec: {
      providerProfileRef: { name: 'gcp' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      ...spec,
    },
  };
}

const inSync = (over: Partial<ActualSettings> = {}): ActualSettings => ({
  tier: 'db-custom-1-3840',
  dataDiskSizeGb: 20,
  availabilityType: 'ZONAL',
  backupsEnabled: true,
  retainedBackups: 7,
  labels: { [OwnerLabels.uid]: '0b7c-uid' },
  deletionProtection: true,
  sslMode: 'ENCRYPTED_ONLY',
  ipConfiguration: { ipv4Enabled: { value: true }, sslMode: 'ENCRYPTED_ONLY' },
  ...over,
});

const terminal = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(TerminalError);
    return error as TerminalError;
  }
  throw new Error('expected a TerminalError');
};

describe('desiredInstance', () => {
  it('maps the spec and the profile onto Cloud SQL settings', () => {
    expect(desiredInstance(db({ highAvailability: true }), config)).toEqual({
      databaseVersion: 'POSTGRES_16',
      region: 'europe-west1',
      tier: 'db-custom-1-3840',
      dataDiskSizeGb: 20,
      availabilityType: 'REGIONAL',
      retainedBackups: 7,
      labels: {
        'steward-owner-uid': '0b7c-uid',
        'steward-owner-namespace': 'team-a',
        'steward-owner-name': 'orders_v2',
        'managed-by': 'steward',
      },
      // Secure by default (spec.security): protected from deletion, TLS only.
      deletionProtection: true,
      sslMode: 'ENCRYPTED_ONLY',
    });
  });

  it('lets providerOverrides.gcp.tier win over size', () => {
    const d = desiredInstance(db({ providerOverrides: { gcp: { tier: 'db-g1-small' } } }), config);
    expect(d.tier).toBe('db-g1-small');
  });

  it.each<[string, Partial<DatabaseInstance['spec']>, string, RegExp]>([
    ['an unknown version', { version: '99' }, 'InvalidParameter', /spec\.version 99/],
    ['an unknown size', { size: 'huge' }, 'InvalidParameter', /spec\.size huge/],
    [
      'AWS overrides',
      { providerOverrides: { aws: { instanceClass: 'db.t3.micro' } } },
      'Unsupported',
      /providerOverrides\.aws/,
    ],
    [
      'unencrypted storage (Cloud SQL always encrypts)',
      { security: { storageEncrypted: false } },
      'Unsupported',
      /storageEncrypted: false is not supported by Cloud SQL/,
    ],
    [
      'public access',
      { security: { publiclyAccessible: true } },
      'Unsupported',
      /publiclyAccessible: true is not supported/,
    ],
  ])('refuses %s with a terminal reason', (_, spec, reason, message) => {
    const error = terminal(() => desiredInstance(db(spec), config));
    expect(error.reason).toBe(reason);
    expect(error.message).toMatch(message);
  });
});

describe('settingsDrift and patchSettings', () => {
  const desired = desiredInstance(db(), config);

  it.each<[string, Partial<ActualSettings>, string[]]>([
    ['nothing', {}, []],
    ['a bigger disk (autoresize) is not drift', { dataDiskSizeGb: 50 }, []],
    ['a smaller disk grows', { dataDiskSizeGb: 10 }, ['dataDiskSizeGb']],
    ['tier', { tier: 'db-custom-4-15360' }, ['tier']],
    ['availability', { availabilityType: 'REGIONAL' }, ['availabilityType']],
    ['backups off', { backupsEnabled: false }, ['backupConfiguration']],
    ['retention', { retainedBackups: 3 }, ['backupConfiguration']],
    ['missing owner label', { labels: { team: 'x' } }, ['userLabels']],
    ['deletion protection off', { deletionProtection: false }, ['deletionProtectionEnabled']],
    ['plaintext allowed', { sslMode: 'ALLOW_UNENCRYPTED_AND_ENCRYPTED' }, ['ipConfiguration']],
    ['sslMode unset', { sslMode: 'SSL_MODE_UNSPECIFIED' }, ['ipConfiguration']],
    [
      'client certificates required (stricter) is not drift',
      { sslMode: 'TRUSTED_CLIENT_CERTIFICATE_REQUIRED' },
      [],
    ],
  ])('%s', (_, actual, drift) => {
    expect(settingsDrift(desired, inSync(actual))).toEqual(drift);
  });

  it('patches only what differs, growing the disk and keeping foreign labels', () => {
    expect(patchSettings(desired, inSync())).toBeUndefined();
    expect(patchSettings(desired, inSync({ dataDiskSizeGb: 10, labels: { team: 'x' } }))).toEqual({
      dataDiskSizeGb: { value: 20 },
      userLabels: { team: 'x', ...desired.labels },
    });
  });

  it('requires TLS and deletion protection on an instance without them, keeping its other IP settings', () => {
    const ip = { ipv4Enabled: { value: true }, authorizedNetworks: [{ value: '10.0.0.0/8' }] };
    expect(
      patchSettings(
        desired,
        inSync({
          deletionProtection: false,
          sslMode: 'ALLOW_UNENCRYPTED_AND_ENCRYPTED',
          ipConfiguration: { ...ip, sslMode: 'ALLOW_UNENCRYPTED_AND_ENCRYPTED' },
        }),
      ),
    ).toEqual({
      deletionProtectionEnabled: { value: true },
      ipConfiguration: { ...ip, sslMode: 'ENCRYPTED_ONLY' },
    });
    // Opted out: plaintext allowed again, and no protection.
    const open = desiredInstance(
      db({ security: { requireTLS: false, deletionProtection: false } }),
      config,
    );
    expect(patchSettings(open, inSync())).toEqual({
      deletionProtectionEnabled: { value: false },
      ipConfiguration: {
        ipv4Enabled: { value: true },
        sslMode: 'ALLOW_UNENCRYPTED_AND_ENCRYPTED',
      },
    });
  });

  it('turns backups off with retentionDays 0, and point-in-time recovery with them', () => {
    const off = desiredInstance(db({ backup: { retentionDays: 0 } }), config);
    expect(settingsDrift(off, inSync({ backupsEnabled: false }))).toEqual([]);
    expect(patchSettings(off, inSync())).toEqual({
      backupConfiguration: {
        enabled: { value: false },
        pointInTimeRecoveryEnabled: { value: false },
      },
    });
  });
});
