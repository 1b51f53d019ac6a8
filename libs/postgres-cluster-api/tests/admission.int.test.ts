import { PostgresCluster, RefusedParameters } from '../src/index.js';
import { isInvalid, KubeClient } from '@steward/kube';
import { controlPlaneSuite, customObject, examplesOf, refusalOf } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const namespace = 'databases';
const Kind = PostgresCluster.resourceType;

// The CRD as this library generates it (the chart that ships it comes with the app).
const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { generatedCrds: [PostgresCluster.crd()], namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'postgres-cluster-api-test' }),
);

const cluster = (name: string, spec: Record<string, unknown>) =>
  customObject<PostgresCluster>(PostgresCluster, { name, namespace }, spec);

/** The server's refusal message of `call` (fails the test when the server accepts it). */
const rejection = (call: Promise<unknown>) => refusalOf(call, isInvalid);

const base = { version: '17' };

describe('PostgresCluster admission (the real API server)', () => {
  it('defaults a minimal spec: 1 replica, async, failover after 10s within 16 MiB, app/app, Retain', async () => {
    const created = await api.client.create<PostgresCluster>(Kind, cluster('minimal', base));
    expect(created.spec).toMatchObject({
      version: '17',
      replicas: 1,
      deletionPolicy: 'Retain',
    });
    const full = await api.client.create<PostgresCluster>(
      Kind,
      cluster('defaults', {
        ...base,
        replicas: 3,
        replication: {},
        failover: {},
        bootstrap: {},
      }),
    );
    expect(full.spec).toMatchObject({
      replication: { mode: 'async' },
      failover: { enabled: true, after: '10s', maxLagBytes: 16 * 1024 * 1024 },
      bootstrap: { database: 'app', owner: 'app' },
    });
  });

  it.each([
    ['no version', {}, 'spec.version: Required value'],
    ['a version that is not a major', { version: '17.2' }, 'spec.version'],
    ['no instances', { ...base, replicas: 0 }, 'spec.replicas'],
    ['too many instances', { ...base, replicas: 10 }, 'spec.replicas'],
    [
      'an operator-owned parameter',
      { ...base, parameters: { wal_level: 'minimal' } },
      'spec.parameters may not set wal_level: the operator owns it',
    ],
    [
      'the replication settings as parameters',
      { ...base, parameters: { synchronous_standby_names: '*' } },
      'spec.parameters may not set synchronous_standby_names',
    ],
    [
      'a parameter name PostgreSQL never has',
      { ...base, parameters: { 'Max Connections': '10' } },
      'spec.parameters keys must be PostgreSQL setting names',
    ],
    [
      'a parameter value with a newline',
      { ...base, parameters: { work_mem: "4MB'\nlisten_addresses = '*" } },
      'spec.parameters',
    ],
    [
      'sync replication with one instance',
      { ...base, replication: { mode: 'sync' } },
      'spec.replication.mode sync needs spec.replicas of at least 2',
    ],
    [
      'an unknown replication mode',
      { ...base, replication: { mode: 'semi' } },
      'Unsupported value: "semi"',
    ],
    [
      'a negative maxLagBytes',
      { ...base, failover: { maxLagBytes: -1 } },
      'spec.failover.maxLagBytes',
    ],
    [
      'a failover detection time of an hour',
      { ...base, failover: { after: '60m' } },
      'spec.failover.after must be between 1s and 10m',
    ],
    [
      'a storage size that is not a quantity',
      { ...base, storage: { size: 'big' } },
      'spec.storage.size: not a quantity',
    ],
    [
      'a bootstrap owner that is not an identifier',
      { ...base, bootstrap: { owner: 'App-Owner' } },
      'spec.bootstrap.owner',
    ],
    [
      'requests above limits',
      { ...base, resources: { requests: { memory: '2Gi' }, limits: { memory: '1Gi' } } },
      'spec.resources.requests.memory may not exceed spec.resources.limits.memory',
    ],
    [
      'an unknown deletion policy',
      { ...base, deletionPolicy: 'Orphan' },
      'Unsupported value: "Orphan"',
    ],
  ])('refuses %s', async (_, spec, message) => {
    const refused = await rejection(
      api.client.create(Kind, cluster(`bad-${Math.random().toString(36).slice(2, 8)}`, spec)),
    );
    expect(refused).toContain(message);
  });

  /** Creates `spec` without storing it (dryRun): the server's defaulting and admission only. */
  const admitted = (spec: Record<string, unknown>) =>
    api.client.create<PostgresCluster>(Kind, cluster(`ok-${++probes}`, spec), { dryRun: true });
  let probes = 0;
  const refusal = (spec: Record<string, unknown>) =>
    rejection(api.client.create(Kind, cluster(`bad-${++probes}`, spec), { dryRun: true }));

  describe('quantities: above 0, and whole bytes for memory and volumes', () => {
    it.each<[string, Record<string, unknown>]>([
      ['a 1Gi volume', { storage: { size: '1Gi' } }],
      ['a 1.5Gi volume (1610612736 bytes)', { storage: { size: '1.5Gi' } }],
      ['a volume in plain bytes', { storage: { size: '1073741824' } }],
      ['a volume in decimal units with a fraction', { storage: { size: '1.5G' } }],
      ['a volume of 3.5Ti', { storage: { size: '3.5Ti' } }],
      ['a volume with an exponent', { storage: { size: '5e9' } }],
      [
        'half a cpu and 1m of one',
        { resources: { requests: { cpu: '1m' }, limits: { cpu: '0.5' } } },
      ],
      [
        'memory in every binary and decimal unit',
        { resources: { requests: { memory: '1G' }, limits: { memory: '1Gi' } } },
      ],
    ])('accepts %s', async (_, spec) => {
      await expect(admitted({ ...base, ...spec })).resolves.toBeDefined();
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a volume of 0', { storage: { size: '0' } }, 'spec.storage.size must be greater than 0'],
      [
        'a negative volume',
        { storage: { size: '-1Gi' } },
        'spec.storage.size must be greater than 0',
      ],
      [
        'half a byte of volume',
        { storage: { size: '0.5' } },
        'spec.storage.size must be a whole number of bytes',
      ],
      [
        'a volume in millibytes',
        { storage: { size: '1500m' } },
        'spec.storage.size must be a whole number of bytes',
      ],
      [
        'a volume of 1.1Gi (1181116006.4 bytes)',
        { storage: { size: '1.1Gi' } },
        'spec.storage.size must be a whole number of bytes',
      ],
      [
        'a volume with a negative exponent',
        { storage: { size: '15e-1' } },
        'spec.storage.size must be a whole number of bytes',
      ],
      [
        'a cpu request of 0',
        { resources: { requests: { cpu: '0' } } },
        'spec.resources.requests.cpu must be greater than 0',
      ],
      [
        'a negative cpu limit',
        { resources: { limits: { cpu: '-500m' } } },
        'spec.resources.limits.cpu must be greater than 0',
      ],
      [
        'a memory limit of 0',
        { resources: { limits: { memory: '0' } } },
        'spec.resources.limits.memory must be greater than 0',
      ],
      [
        'a memory request in millibytes',
        { resources: { requests: { memory: '100m' } } },
        'spec.resources.requests.memory must be a whole number of bytes',
      ],
      [
        'a memory that is no quantity',
        { resources: { requests: { memory: '1GB' } } },
        'spec.resources.requests.memory: not a quantity such as 256Mi or 1Gi',
      ],
    ])('refuses %s', async (_, spec, message) => {
      expect(await refusal({ ...base, ...spec })).toContain(message);
    });
  });

  describe('backup schedules: what the controller’s cron parser takes', () => {
    const destination = { bucket: 'team-backups', credentialsSecretRef: { name: 'backup-keys' } };
    const scheduled = (schedule: string) => ({ ...base, backup: { destination, schedule } });

    it.each([
      '0 3 * * *',
      '*/15 0-23 * * 1-5',
      '59 23 31 12 7',
      '0 0 1 1 0',
      '00 03 01 01 *',
      '0,30 9-17/2 1,15 * *',
      '0-59/60 */24 */31 */12 */7',
      '0 0 * JAN-MAR,oct MON-FRI',
      '0 0 * * FRI-SUN',
      '0 0 L * *',
      '0 0 LW * *',
      '0 0 L,15W * *',
      '0 0 * * 5L',
      '0 0 * * MON#2,5#L',
      '  0 3 * * *  ',
    ])('accepts %j', async (schedule) => {
      await expect(admitted(scheduled(schedule))).resolves.toBeDefined();
    });

    const fieldMessage = (n: number, name: string, range: string) =>
      `spec.backup.schedule: the ${name} (field ${n}) must be ${range}`;
    const minute = fieldMessage(1, 'minute', '0-59');
    const hour = fieldMessage(2, 'hour', '0-23');
    const day = fieldMessage(3, 'day of the month', '1-31');
    const month = fieldMessage(4, 'month', '1-12 or JAN-DEC');
    const weekday = fieldMessage(5, 'day of the week', '0-7 (0 and 7 are Sunday) or SUN-SAT');
    const goesDown = 'spec.backup.schedule: a range a-b may not go down';
    const fiveFields = 'spec.backup.schedule must be a cron expression of five fields';

    it.each([
      ['60 * * * *', minute],
      ['0-60 * * * *', minute],
      ['*/0 * * * *', minute],
      ['*/61 * * * *', minute],
      ['5/15 * * * *', minute],
      ['1.5 * * * *', minute],
      ['? * * * *', minute],
      ['0 24 * * *', hour],
      ['0 */25 * * *', hour],
      ['0 0 0 * *', day],
      ['0 0 32 * *', day],
      ['0 0 ? * *', day],
      ['0 0 32W * *', day],
      ['0 0 LW,15 * *', day],
      ['0 0 * * 6-8/3', weekday],
      ['0 0 * 0 *', month],
      ['0 0 * 13 *', month],
      ['0 0 * JANUARY *', month],
      ['0 0 * * 8', weekday],
      ['0 0 * * SUNDAY', weekday],
      ['0 0 * * 1#6', weekday],
      ['5-1 * * * *', goesDown],
      ['0 0 * DEC-JAN *', goesDown],
      ['0 0 * * FRI-MON', goesDown],
      ['0 0 * * 7-1', goesDown],
      ['@daily', fiveFields],
      ['0 3 * *', fiveFields],
      ['0 3 * * * 2026', fiveFields],
    ])('refuses %j, naming the field and its range', async (schedule, message) => {
      expect(await refusal(scheduled(schedule))).toContain(message);
    });

    it('checks the restore rehearsals’ schedule the same way', async () => {
      expect(
        await refusal({
          ...base,
          backup: { destination, verify: { schedule: '0 5 * * 8' } },
        }),
      ).toContain('spec.backup.verify.schedule: the day of the week (field 5) must be 0-7');
    });
  });

  describe('backup buckets and endpoints', () => {
    const credentialsSecretRef = { name: 'backup-keys' };
    const to = (destination: Record<string, unknown>) => ({
      ...base,
      backup: { destination: { credentialsSecretRef, ...destination } },
    });
    const from = (destination: Record<string, unknown>) => ({
      ...base,
      bootstrap: {
        recovery: { source: { destination: { credentialsSecretRef, ...destination } } },
      },
    });

    it.each<[string, Record<string, unknown>]>([
      ['a bucket with dots and hyphens', { bucket: 'team.backups-1' }],
      ['a bucket of 3 characters', { bucket: 'abc' }],
      ['a bucket of 63 characters', { bucket: 'b'.repeat(63) }],
      ['an endpoint with a port', { bucket: 'abc', endpoint: 'http://127.0.0.1:9000' }],
      ['an endpoint with a path', { bucket: 'abc', endpoint: 'https://minio.storage:9000/s3/' }],
      ['an AWS endpoint', { bucket: 'abc', endpoint: 'https://s3.eu-west-1.amazonaws.com' }],
      ['an IPv6 endpoint', { bucket: 'abc', endpoint: 'http://[fd00::1]:9000' }],
    ])('accepts %s', async (_, destination) => {
      await expect(admitted(to(destination))).resolves.toBeDefined();
    });

    const bucketName =
      'must be an S3 bucket name: 3-63 lowercase letters, digits, dots and hyphens';
    const url =
      'must be a URL http(s)://host[:port][/path] such as https://minio.storage:9000, without a user or password';
    it.each<[string, Record<string, unknown>, string]>([
      [
        'an uppercase bucket',
        { bucket: 'Backups' },
        `spec.backup.destination.bucket: Invalid value: "Backups": ${bucketName}`,
      ],
      ['a bucket ending in a hyphen', { bucket: 'backups-' }, bucketName],
      ['a bucket with an underscore', { bucket: 'team_backups' }, bucketName],
      ['a bucket of two characters', { bucket: 'ab' }, 'spec.backup.destination.bucket'],
      ['a bucket of 64 characters', { bucket: 'b'.repeat(64) }, 'spec.backup.destination.bucket'],
      [
        'a bucket that is an IP address',
        { bucket: '192.168.5.4' },
        'an S3 bucket name may not be an IP address',
      ],
      [
        'a bucket with two dots in a row',
        { bucket: 'team..backups' },
        'an S3 bucket name may not have two dots in a row',
      ],
      [
        'an endpoint with a user and password',
        { bucket: 'abc', endpoint: 'https://key:secret@minio.storage:9000' },
        `spec.backup.destination.endpoint: Invalid value: "https://key:secret@minio.storage:9000": ${url}`,
      ],
      [
        'an endpoint with a query',
        { bucket: 'abc', endpoint: 'https://minio.storage:9000/?region=x' },
        url,
      ],
      ['an endpoint with a fragment', { bucket: 'abc', endpoint: 'https://minio.storage#x' }, url],
      ['an endpoint of another scheme', { bucket: 'abc', endpoint: 'ftp://minio.storage' }, url],
      ['an endpoint without a scheme', { bucket: 'abc', endpoint: 'minio.storage:9000' }, url],
      [
        'an endpoint with a port above 65535',
        { bucket: 'abc', endpoint: 'http://minio.storage:70000' },
        'the port of the URL must be 1-65535',
      ],
    ])('refuses %s', async (_, destination, message) => {
      expect(await refusal(to(destination))).toContain(message);
    });

    it('checks a recovery source’s destination the same way', async () => {
      expect(await refusal(from({ bucket: '10.0.0.1' }))).toContain(
        'spec.bootstrap.recovery.source.destination.bucket: Invalid value: "10.0.0.1": an S3 bucket name may not be an IP address',
      );
      expect(
        await refusal(from({ bucket: 'abc', endpoint: 'http://me:pw@10.0.0.1:9000' })),
      ).toContain(
        `spec.bootstrap.recovery.source.destination.endpoint: Invalid value: "http://me:pw@10.0.0.1:9000": ${url}`,
      );
    });
  });

  describe('bootstrap names', () => {
    it.each<[string, Record<string, unknown>]>([
      ['the defaults', {}],
      ['names that only begin like reserved ones', { database: 'postgres_app', owner: 'pgapp' }],
      ['63-character identifiers', { database: 'd'.repeat(63), owner: 'o'.repeat(63) }],
    ])('accepts %s', async (_, bootstrap) => {
      await expect(admitted({ ...base, bootstrap })).resolves.toBeDefined();
    });

    const database =
      'spec.bootstrap.database may not be postgres, template0, template1 or begin with pg_';
    const owner =
      'spec.bootstrap.owner may not be postgres, public, none, current_user, current_role, session_user or begin with pg_';
    it.each<[string, Record<string, unknown>, string]>([
      ['the postgres database', { database: 'postgres' }, database],
      ['template0', { database: 'template0' }, database],
      ['template1', { database: 'template1' }, database],
      ['a pg_ database', { database: 'pg_app' }, database],
      ['the superuser as owner', { owner: 'postgres' }, owner],
      ['a pg_ role', { owner: 'pg_monitor' }, owner],
      ['public', { owner: 'public' }, owner],
      ['current_user', { owner: 'current_user' }, owner],
      ['a 64-character database', { database: 'd'.repeat(64) }, 'spec.bootstrap.database'],
      ['a 64-character owner', { owner: 'o'.repeat(64) }, 'spec.bootstrap.owner'],
      ['an owner that is no identifier', { owner: 'app-owner' }, 'spec.bootstrap.owner'],
    ])('refuses %s', async (_, bootstrap, message) => {
      expect(await refusal({ ...base, bootstrap })).toContain(message);
    });
  });

  describe('parameters that run commands, include files or name the operator’s files', () => {
    it.each(Object.keys(RefusedParameters))('refuses %s', async (key) => {
      expect(await refusal({ ...base, parameters: { [key]: 'x' } })).toContain(
        `spec.parameters may not set ${key}: ${RefusedParameters[key]}`,
      );
    });

    it('takes shared_preload_libraries by library name, not by path', async () => {
      await expect(
        admitted({
          ...base,
          parameters: { shared_preload_libraries: 'pg_stat_statements,auto_explain' },
        }),
      ).resolves.toBeDefined();
      expect(
        await refusal({ ...base, parameters: { shared_preload_libraries: '/tmp/evil.so' } }),
      ).toContain(
        'spec.parameters.shared_preload_libraries names libraries of the image, such as pg_stat_statements, not paths',
      );
    });

    it('refuses at least the settings that run commands or include files', () => {
      for (const key of [
        'include',
        'include_dir',
        'include_if_exists',
        'archive_command',
        'archive_library',
        'restore_command',
        'archive_cleanup_command',
        'recovery_end_command',
        'ssl_passphrase_command',
        'data_directory',
        'config_file',
        'hba_file',
        'ident_file',
        'external_pid_file',
        'unix_socket_directories',
        'dynamic_library_path',
        'local_preload_libraries',
        'session_preload_libraries',
        'listen_addresses',
        'port',
        'log_destination',
      ]) {
        expect(RefusedParameters).toHaveProperty(key);
      }
    });
  });

  describe('spec.scheduling (the shared fragment: libs/crd/tests/scheduling.int.test.ts has every rule)', () => {
    it('spreads over nodes and zones, preferred, by default; takes a Required spread with a node pool', async () => {
      const plain = await api.client.create<PostgresCluster>(Kind, cluster('spread-default', base));
      expect(plain.spec.scheduling).toEqual({ spread: { nodes: 'Preferred', zones: 'Preferred' } });
      const scheduling = {
        spread: { nodes: 'Required', zones: 'Required' },
        nodeSelector: { 'node.example.com/pool': 'data' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'data', effect: 'NoSchedule' }],
      };
      const strict = await api.client.create<PostgresCluster>(
        Kind,
        cluster('spread-required', { ...base, scheduling }),
      );
      expect(strict.spec.scheduling).toEqual(scheduling);
    });

    it('refuses a Required zone spread beside the constraints that would replace it', async () => {
      const spec = {
        ...base,
        scheduling: {
          spread: { zones: 'Required' },
          topologySpreadConstraints: [
            {
              maxSkew: 1,
              topologyKey: 'topology.kubernetes.io/zone',
              whenUnsatisfiable: 'DoNotSchedule',
            },
          ],
        },
      };
      expect(await rejection(api.client.create(Kind, cluster('spread-twice', spec)))).toContain(
        'spec.scheduling.spread.zones Required does not apply when spec.scheduling.topologySpreadConstraints is given',
      );
    });
  });

  it('admits every example PostgresCluster', async () => {
    const examples = await examplesOf<PostgresCluster>(
      'postgres-cluster',
      'PostgresCluster',
      namespace,
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples)
      await expect(api.client.create(Kind, example, { dryRun: true })).resolves.toBeDefined();
  });

  it('refuses a name longer than the StatefulSet revision label allows (an upgrade’s set <name>-v<major> included)', async () => {
    expect(await rejection(api.client.create(Kind, cluster('a'.repeat(49), base)))).toContain(
      'metadata.name must be a DNS label of at most 48 characters',
    );
  });

  describe('changes', () => {
    const update = async (
      name: string,
      spec: Record<string, unknown>,
      next: Record<string, unknown>,
    ) => {
      const created = await api.client.create<PostgresCluster>(Kind, cluster(name, spec));
      return rejection(
        api.client.update(Kind, {
          ...created,
          spec: { ...created.spec, ...next },
        } as PostgresCluster),
      );
    };

    it('refuses a storage shrink, naming both sizes', async () => {
      expect(
        await update(
          'shrink',
          { ...base, storage: { size: '500Gi' } },
          { storage: { size: '100Gi' } },
        ),
      ).toContain('spec.storage.size may only grow (from 500Gi to 100Gi)');
    });

    it('refuses a version downgrade, naming both versions', async () => {
      expect(await update('downgrade', base, { version: '15' })).toContain(
        'spec.version may not go down (from 17 to 15)',
      );
    });

    it('refuses a changed or added storage class', async () => {
      expect(
        await update(
          'class',
          { ...base, storage: { size: '1Gi', storageClassName: 'fast' } },
          { storage: { size: '1Gi', storageClassName: 'slow' } },
        ),
      ).toContain('spec.storage.storageClassName is immutable');
      expect(
        await update(
          'class-added',
          { ...base, storage: { size: '1Gi' } },
          { storage: { size: '1Gi', storageClassName: 'slow' } },
        ),
      ).toContain('spec.storage.storageClassName is immutable');
    });

    it('refuses a changed or added bootstrap', async () => {
      expect(
        await update(
          'boot',
          { ...base, bootstrap: { database: 'shop' } },
          { bootstrap: { database: 'other' } },
        ),
      ).toContain('spec.bootstrap is immutable');
      expect(await update('boot-added', base, { bootstrap: { database: 'other' } })).toContain(
        'spec.bootstrap is immutable',
      );
    });

    it('accepts growing the storage and raising the version', async () => {
      const created = await api.client.create<PostgresCluster>(
        Kind,
        cluster('grow', { version: '15', storage: { size: '1Gi' } }),
      );
      const grown = await api.client.update<PostgresCluster>(Kind, {
        ...created,
        spec: { ...created.spec, version: '17', storage: { size: '2Gi' } },
      } as PostgresCluster);
      expect(grown.spec).toMatchObject({ version: '17', storage: { size: '2Gi' } });
    });
  });
});
