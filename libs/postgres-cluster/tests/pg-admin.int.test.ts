/**
 * The PostgreSQL admin layer against real PostgreSQL 15 and 17 pods on the node tier: observe a
 * primary and its streaming standbys, WAL positions advancing and converging, ALTER SYSTEM
 * (synchronous replication, quoting, pending restarts), promotion, the bootstrap of a role and a
 * database, and what a deleted pod, a closed port and a wrong password look like.
 *
 * The pods are bare Pods reached at their pod IPs from this process (the host reaches pod IPs
 * over the tier's bridge). A primary runs the image as it is meant to run (its entrypoint initdb's
 * with POSTGRES_PASSWORD as the `postgres` superuser's password), with one addition: an
 * hba_file in /tmp that also lets hosts connect for replication (the image's pg_hba.conf has
 * `host all all all scram-sha-256`, and `all` does not cover replication connections). A
 * standby clones its primary with `pg_basebackup -X stream -R` (password from a PGPASSFILE in
 * /tmp, which -R writes into primary_conninfo) and then runs postgres on the copy.
 */
import { eventually, observations } from '@steward/testing';
import { barePodsOnNodeTier, restrictedPod, type LocalImage } from '@steward/testing-node-tier';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  lsnDiff,
  maxLsn,
  pgAdmin,
  PgAdminError,
  verifierMatches,
  type PgAdmin,
  type PgEndpoint,
} from '../src/pg/index.js';

const password = `pw-${randomBytes(12).toString('hex')}`;
const port = 5432;
const majors = [15, 17] as const;
type Major = (typeof majors)[number];

/** Every password the tests use. */
const passwords = [password];

const podName = (major: Major, role: 'p' | 's1' | 's2') => `pg${major}-${role}`;

/** The pg_hba.conf every pod uses: the image's rules, plus replication from any host. */
const hba = [
  'local all all trust',
  'host all all all scram-sha-256',
  'host replication all all scram-sha-256',
].join('\\n');
/** The image's Cmd, plus the hba_file above. */
const serverArgs = [
  "-c 'listen_addresses=*'",
  '-c unix_socket_directories=/run/postgresql',
  '-c hba_file=/tmp/pg_hba.conf',
].join(' ');

const primaryScript = `set -eu
printf '${hba}\\n' >/tmp/pg_hba.conf
exec steward-postgres-entrypoint ${serverArgs}`;

const standbyScript = `set -eu
umask 077
printf '${hba}\\n' >/tmp/pg_hba.conf
printf '*:*:*:postgres:%s\\n' "$POSTGRES_PASSWORD" >/tmp/pgpass
export PGPASSFILE=/tmp/pgpass
if [ ! -s /data/pgdata/PG_VERSION ]; then
  until pg_basebackup -h "$PRIMARY_HOST" -U postgres -D /data/pgdata -X stream -R \\
      -d "application_name=$APPLICATION_NAME"; do
    rm -rf /data/pgdata
    sleep 1
  done
fi
exec postgres -D /data/pgdata ${serverArgs}`;

/** A bare Pod as the images are meant to run: non-root 999:999, read-only root, no capabilities. */
function serverPod(
  name: string,
  image: LocalImage,
  script: string,
  env: Record<string, string> = {},
) {
  return restrictedPod(
    { name, labels: { app: 'pg-admin-test', server: name } },
    {
      name: 'postgres',
      image: image.ref,
      command: ['/bin/sh', '-c', script],
      env: Object.entries({ POSTGRES_PASSWORD: password, ...env }).map(([k, value]) => ({
        name: k,
        value,
      })),
      ports: [{ containerPort: port }],
      readinessProbe: {
        exec: { command: ['pg_isready', '-q', '-h', '/run/postgresql', '-p', String(port)] },
        periodSeconds: 1,
        timeoutSeconds: 5,
      },
    },
    { data: '/data', tmp: '/tmp', run: '/run/postgresql' },
  );
}

const pods = barePodsOnNodeTier(
  { beforeAll, afterAll },
  { images: ['postgres-15', 'postgres-17'], namespace: 'pg-admin' },
);
let admin: PgAdmin;
beforeAll(async () => {
  const image = (major: Major) => pods.images[`postgres-${major}`]!;
  await pods.run(
    majors.map((major) => serverPod(podName(major, 'p'), image(major), primaryScript)),
  );
  const standbys = majors.flatMap((major) =>
    (['s1', 's2'] as const).map((role) => ({ major, role, name: podName(major, role) })),
  );
  await pods.run(
    standbys.map(({ major, role, name }) =>
      serverPod(name, image(major), standbyScript, {
        PRIMARY_HOST: pods.ip(podName(major, 'p')),
        APPLICATION_NAME: role,
      }),
    ),
  );
  admin = pgAdmin();
});
afterAll(() => admin?.close());

const endpoint = (name: string, overrides: Partial<PgEndpoint> = {}): PgEndpoint => ({
  host: pods.ip(name),
  port,
  user: 'postgres',
  password,
  ...overrides,
});

/** Every observation's and admin error's text is kept in `errors`, to check none carries a password. */
const {
  observe,
  reachable,
  unreachable: untilUnreachable,
  failure,
  errors,
} = observations(() => admin, endpoint);
const signal = pods.signal;

/** A plain client of our own, for what the admin layer never does (writes, logins as others). */
async function withDataClient<T>(
  target: PgEndpoint,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({
    host: target.host,
    port: target.port,
    user: target.user,
    password: target.password,
    database: target.database ?? 'postgres',
    connectionTimeoutMillis: 5000,
    ssl: false,
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe.each(majors)('pgAdmin on real PostgreSQL %i pods', (major) => {
  const primary = podName(major, 'p');
  const s1 = podName(major, 's1');
  const s2 = podName(major, 's2');

  /**
   * The primary, once both standbys stream from it and have replied at least once (a walsender's
   * flush and replay positions stay null until its standby's first status message).
   */
  const bothStreaming = () =>
    eventually(
      async () => {
        const o = await reachable(primary);
        return (
          o.replication.length === 2 &&
          o.replication.every(
            (r) => r.state === 'streaming' && r.flushLsn !== undefined && r.replayLsn !== undefined,
          ) &&
          o
        );
      },
      { timeoutMs: 60_000, description: `${primary} streaming to 2 standbys that have replied` },
    );

  it('observes the primary: not in recovery, timeline 1, its WAL position and both walsenders', async () => {
    const o = await bothStreaming();
    expect(o).toMatchObject({
      reachable: true,
      inRecovery: false,
      timeline: 1,
      primaryConninfo: '',
      synchronousStandbyNames: '',
      pendingRestart: [],
    });
    expect(Math.floor(o.serverVersion / 10_000)).toBe(major);
    expect(o.systemIdentifier).toMatch(/^\d{10,20}$/);
    expect(o.currentLsn).toBeGreaterThan(0n);
    expect(Date.parse(o.postmasterStartTime)).toBeLessThanOrEqual(Date.parse(o.observedAt));
    for (const absent of ['receiveLsn', 'replayLsn', 'replayPaused', 'walReceiver'])
      expect(o).not.toHaveProperty(absent);
    expect(o.replication.map((r) => r.applicationName)).toEqual(['s1', 's2']);
    expect(o.replication.map((r) => r.clientAddr)).toEqual([pods.ip(s1), pods.ip(s2)]);
    for (const peer of o.replication) {
      expect(peer.syncState).toBe('async');
      expect(peer.sentLsn).toBeLessThanOrEqual(o.currentLsn!);
      expect(peer.flushLsn).toBeDefined();
      expect(peer.replayLsn).toBeDefined();
    }
  });

  it('observes a standby: in recovery, receive and replay positions, its WAL receiver streaming', async () => {
    const p = await reachable(primary);
    const o = await eventually(
      async () => {
        const s = await reachable(s1);
        return s.walReceiver?.status === 'streaming' && s;
      },
      { timeoutMs: 60_000, description: `${s1} streaming` },
    );
    expect(o).toMatchObject({
      inRecovery: true,
      timeline: 1,
      replayPaused: false,
      systemIdentifier: p.systemIdentifier,
      serverVersion: p.serverVersion,
      replication: [],
      walReceiver: {
        status: 'streaming',
        senderHost: pods.ip(primary),
        senderPort: port,
        receivedTli: 1,
      },
    });
    expect(o).not.toHaveProperty('currentLsn');
    expect(o.receiveLsn).toBeGreaterThan(0n);
    expect(o.replayLsn).toBeLessThanOrEqual(o.receiveLsn!);
    expect(o.receiveLsn).toBeLessThanOrEqual(p.currentLsn!);
    // pg_basebackup -R wrote it: the password file's path, never the password
    expect(o.primaryConninfo).toContain(`host=${pods.ip(primary)}`);
    expect(o.primaryConninfo).toContain('application_name=s1');
    expect(o.primaryConninfo).toContain("passfile='/tmp/pgpass'");
    expect(o.primaryConninfo).not.toContain(password);
  });

  it('sees the WAL advance with writes, and the standbys catch up to zero lag', async () => {
    const before = await reachable(primary);
    await withDataClient(endpoint(primary), async (client) => {
      await client.query('CREATE TABLE filler (id int PRIMARY KEY, v text)');
      await client.query(
        "INSERT INTO filler SELECT g, repeat('x', 100) FROM generate_series(1, 10000) g",
      );
    });
    const converged = await eventually(
      async () => {
        const [p, a, b] = await Promise.all([reachable(primary), reachable(s1), reachable(s2)]);
        const lagA = lsnDiff(p.currentLsn!, a.receiveLsn!);
        const lagB = lsnDiff(p.currentLsn!, b.receiveLsn!);
        return lagA === 0n && lagB === 0n && a.replayLsn === a.receiveLsn && { p, a, b };
      },
      { timeoutMs: 60_000, description: `both standbys of ${primary} at zero lag` },
    );
    // 10 000 rows of ~130 bytes are well over a megabyte of WAL
    expect(lsnDiff(converged.p.currentLsn!, before.currentLsn!)).toBeGreaterThan(1_000_000n);
    const peers = converged.p.replication;
    expect(
      peers.every((r) => r.flushLsn !== undefined && r.flushLsn <= converged.p.currentLsn!),
    ).toBe(true);
    const count = await withDataClient(endpoint(s2), (client) =>
      client.query<{ n: string }>('SELECT count(*) AS n FROM filler'),
    );
    expect(count.rows[0]!.n).toBe('10000');
  });

  it('sets synchronous_standby_names through ALTER SYSTEM: the standbys turn sync, then quorum, then async again', async () => {
    const target = endpoint(primary);
    const syncStates = (wanted: string[], names: string) =>
      eventually(
        async () => {
          const o = await reachable(primary);
          const states = o.replication.map((r) => r.syncState);
          return (
            o.synchronousStandbyNames === names &&
            JSON.stringify(states) === JSON.stringify(wanted) &&
            o
          );
        },
        { timeoutMs: 30_000, description: `${primary} with sync states ${wanted.join(', ')}` },
      );

    expect(await admin.alterSystem(target, { synchronous_standby_names: 'FIRST 1 (s1)' })).toEqual([
      'synchronous_standby_names',
    ]);
    await syncStates(['sync', 'async'], 'FIRST 1 (s1)');
    // the same value again: nothing written, nothing reloaded
    expect(await admin.alterSystem(target, { synchronous_standby_names: 'FIRST 1 (s1)' })).toEqual(
      [],
    );
    // a synchronous commit needs s1's confirmation: it gets it
    await withDataClient(target, (client) =>
      client.query('INSERT INTO filler VALUES (-1, $1)', ['sync']),
    );

    expect(
      await admin.alterSystem(target, { synchronous_standby_names: 'ANY 1 (s1, s2)' }),
    ).toEqual(['synchronous_standby_names']);
    await syncStates(['quorum', 'quorum'], 'ANY 1 (s1, s2)');

    expect(await admin.alterSystem(target, { synchronous_standby_names: null })).toEqual([
      'synchronous_standby_names',
    ]);
    await syncStates(['async', 'async'], '');
    expect(await admin.alterSystem(target, { synchronous_standby_names: null })).toEqual([]);
  });

  it('writes values with quotes and backslashes as they are, and reports what needs a restart', async () => {
    const target = endpoint(primary);
    const prefix = "%m [%p] it's a \\ test ";
    expect(await admin.alterSystem(target, { log_line_prefix: prefix, work_mem: '8MB' })).toEqual([
      'log_line_prefix',
      'work_mem',
    ]);
    expect(await admin.alterSystem(target, { log_line_prefix: prefix, work_mem: '8MB' })).toEqual(
      [],
    );
    // reloaded: a new session runs with them
    const shown = await eventually(
      () =>
        withDataClient(target, async (client) => {
          const r = await client.query<{ prefix: string; work_mem: string }>(
            "SELECT current_setting('log_line_prefix') AS prefix, current_setting('work_mem') AS work_mem",
          );
          return r.rows[0]!.work_mem === '8MB' && r.rows[0]!;
        }),
      { timeoutMs: 30_000, description: 'the new settings in a new session' },
    );
    expect(shown.prefix).toBe(prefix);

    expect(await admin.alterSystem(target, { max_connections: '150' })).toEqual([
      'max_connections',
    ]);
    await eventually(
      async () => (await reachable(primary)).pendingRestart.includes('max_connections'),
      { timeoutMs: 30_000, description: 'max_connections pending a restart' },
    );
    expect(
      await admin.alterSystem(target, {
        max_connections: null,
        log_line_prefix: null,
        work_mem: null,
      }),
    ).toEqual(['max_connections', 'log_line_prefix', 'work_mem']);
    await eventually(async () => (await reachable(primary)).pendingRestart.length === 0, {
      timeoutMs: 30_000,
      description: 'nothing pending a restart after the reset',
    });

    const unknown = await failure(
      admin.alterSystem(target, { no_such_parameter: '1', work_mem: '1MB' }),
    );
    expect(unknown).toBeInstanceOf(PgAdminError);
    expect(unknown).toMatchObject({ code: '42704' });
    expect((unknown as Error).message).toContain('no_such_parameter');
    // nothing was changed before the refusal
    expect(await admin.alterSystem(target, { work_mem: null })).toEqual([]);
  });

  it('promotes a standby to a primary on timeline 2, once: the second time it is already one', async () => {
    const before = await reachable(s2);
    expect(before.inRecovery).toBe(true);
    expect(await admin.promote(endpoint(s2), { waitSeconds: 60 })).toBe('promoted');
    const promoted = await reachable(s2);
    expect(promoted).toMatchObject({
      inRecovery: false,
      timeline: 2,
      systemIdentifier: before.systemIdentifier,
      postmasterStartTime: before.postmasterStartTime,
      primaryConninfo: expect.stringContaining('application_name=s2'),
    });
    expect(promoted.currentLsn).toBeGreaterThanOrEqual(before.replayLsn!);
    expect(promoted).not.toHaveProperty('walReceiver');
    expect(await admin.promote(endpoint(s2))).toBe('already-primary');
    expect(await admin.promote(endpoint(primary))).toBe('already-primary');
    // it takes writes now
    await withDataClient(endpoint(s2), (client) =>
      client.query('INSERT INTO filler VALUES (-2, $1)', ['after promotion']),
    );
    // the old primary stays on timeline 1 and streams to s1 only
    const p = await eventually(
      async () => {
        const o = await reachable(primary);
        return o.replication.length === 1 && o;
      },
      { timeoutMs: 30_000, description: `${primary} streaming to s1 only` },
    );
    expect(p.timeline).toBe(1);
    expect(p.replication[0]!.applicationName).toBe('s1');
  });

  it('bootstraps a role and its database, idempotently, with a password PostgreSQL accepts', async () => {
    const target = endpoint(primary);
    const ownerPassword = `app-${randomBytes(9).toString('hex')}`;
    passwords.push(ownerPassword);
    const spec = { database: 'app', owner: 'app', ownerPassword };
    expect(await admin.bootstrap(target, spec)).toEqual([
      'role app created',
      'database app created',
    ]);
    expect(await admin.bootstrap(target, spec)).toEqual([]);

    const app = { ...target, user: 'app', password: ownerPassword, database: 'app' };
    const who = await withDataClient(app, async (client) => {
      await client.query('CREATE TABLE owned (id int)');
      const r = await client.query<{ u: string; d: string }>(
        'SELECT current_user AS u, current_database() AS d',
      );
      return r.rows[0]!;
    });
    expect(who).toEqual({ u: 'app', d: 'app' });
    const wrong = await withDataClient({ ...app, password: `${ownerPassword}x` }, () =>
      Promise.resolve(),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(wrong).toMatchObject({ code: '28P01' });

    // what is stored is our verifier (4096 iterations), and it replicated to the standby
    const stored = await withDataClient(endpoint(s1), async (client) => {
      const r = await client.query<{ rolpassword: string }>(
        "SELECT rolpassword FROM pg_authid WHERE rolname = 'app'",
      );
      return r.rows[0]?.rolpassword;
    });
    expect(stored).toMatch(/^SCRAM-SHA-256\$4096:/);
    expect(verifierMatches(stored!, ownerPassword)).toBe(true);

    // a new password: only the role's password changes, and only the new one logs in
    const newPassword = `app-${randomBytes(9).toString('hex')}`;
    passwords.push(newPassword);
    expect(await admin.bootstrap(target, { ...spec, ownerPassword: newPassword })).toEqual([
      'role app password set',
    ]);
    await withDataClient({ ...app, password: newPassword }, (client) => client.query('SELECT 1'));
    await expect(withDataClient(app, () => Promise.resolve())).rejects.toMatchObject({
      code: '28P01',
    });

    // a standby is read-only: bootstrap there fails with the server's reason
    const onStandby = await failure(
      admin.bootstrap(endpoint(s1), { database: 'other', owner: 'other', ownerPassword }),
    );
    expect(onStandby).toBeInstanceOf(PgAdminError);
    expect(onStandby).toMatchObject({ kind: 'server', code: '25006' });
  });

  it('bootstraps the replication role: REPLICATION LOGIN, no superuser, EXECUTE on pg_rewind’s functions only; it streams', async () => {
    const target = endpoint(primary);
    const ownerPassword = `app-${randomBytes(9).toString('hex')}`;
    const replicationPassword = `rep-${randomBytes(9).toString('hex')}`;
    passwords.push(ownerPassword, replicationPassword);
    const spec = { database: 'app', owner: 'app', ownerPassword, replicationPassword };
    const changed = await admin.bootstrap(target, spec);
    expect(changed).toEqual(
      expect.arrayContaining([
        'role steward_replication created',
        'role steward_replication may execute pg_ls_dir(text, boolean, boolean)',
        'role steward_replication may execute pg_stat_file(text, boolean)',
        'role steward_replication may execute pg_read_binary_file(text)',
        'role steward_replication may execute pg_read_binary_file(text, bigint, bigint, boolean)',
      ]),
    );
    expect(await admin.bootstrap(target, spec)).toEqual([]);
    const role = await withDataClient(target, async (client) => {
      const r = await client.query<Record<string, boolean>>(
        `SELECT rolreplication, rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, rolbypassrls,
           has_function_privilege('steward_replication', 'pg_catalog.pg_read_binary_file(text, bigint, bigint, boolean)', 'EXECUTE') AS rewind,
           has_function_privilege('steward_replication', 'pg_catalog.pg_read_file(text)', 'EXECUTE') AS read_file,
           pg_has_role('steward_replication', 'pg_read_server_files', 'MEMBER') AS server_files
         FROM pg_roles WHERE rolname = 'steward_replication'`,
      );
      return r.rows[0];
    });
    expect(role).toEqual({
      rolreplication: true,
      rolcanlogin: true,
      rolsuper: false,
      rolcreaterole: false,
      rolcreatedb: false,
      rolbypassrls: false,
      rewind: true,
      read_file: false,
      server_files: false,
    });
    // A physical replication connection as it (what a standby's walreceiver opens).
    const replication = new pg.Client({
      ...target,
      user: 'steward_replication',
      password: replicationPassword,
      database: 'postgres',
      replication: 'true',
      connectionTimeoutMillis: 5000,
    } as pg.ClientConfig);
    replication.on('error', () => undefined);
    await replication.connect();
    try {
      const system = await replication.query<{ systemid: string }>('IDENTIFY_SYSTEM');
      expect(system.rows[0]?.systemid).toMatch(/^\d+$/);
    } finally {
      await replication.end();
    }
    // A pg_hba.conf rewritten after the server loaded it (as the kubelet rewrites a ConfigMap's):
    // reloaded once, then not again.
    await eventually(async () => !(await admin.reloadChangedHba(target)), {
      description: `${primary}: its pg_hba.conf loaded`,
      timeoutMs: 10_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // (COPY opens its file before its query runs: the lines are read into a table first.)
    await withDataClient(target, async (client) => {
      await client.query(
        `CREATE TEMP TABLE hba AS SELECT line, n
           FROM unnest(string_to_array(rtrim(pg_read_file('/tmp/pg_hba.conf'), E'\\n'), E'\\n'))
             WITH ORDINALITY AS l(line, n)`,
      );
      await client.query(`COPY (SELECT line FROM hba ORDER BY n) TO '/tmp/pg_hba.conf'`);
    });
    expect(await admin.reloadChangedHba(target)).toBe(true);
    await eventually(async () => !(await admin.reloadChangedHba(target)), {
      description: `${primary}: reloaded once`,
      timeoutMs: 10_000,
    });
    // A changed password is set again, not a new role.
    const newPassword = `rep-${randomBytes(9).toString('hex')}`;
    passwords.push(newPassword);
    expect(await admin.bootstrap(target, { ...spec, replicationPassword: newPassword })).toEqual([
      'role steward_replication password set',
    ]);
  });

  it('holds connections for everyone but the superuser, ends every other session, and gives the limits back', async () => {
    const target = endpoint(primary);
    const appPassword = `hold-${randomBytes(9).toString('hex')}`;
    passwords.push(appPassword);
    await admin.bootstrap(target, { database: 'app', owner: 'app', ownerPassword: appPassword });
    await withDataClient(target, (client) =>
      client.query('CREATE DATABASE "Odd-Name" CONNECTION LIMIT 7'),
    );
    const app = { ...target, user: 'app', password: appPassword, database: 'app' };
    const limits = await admin.connectionLimits(target);
    expect(limits).toEqual([
      { name: 'Odd-Name', connectionLimit: 7 },
      { name: 'app', connectionLimit: -1 },
      { name: 'postgres', connectionLimit: -1 },
      { name: 'template1', connectionLimit: -1 },
    ]);
    // Two sessions open before the hold, one naming itself as the controller does.
    const open = await Promise.all(
      ['steward-postgres-cluster', 'writer'].map(async (application_name) => {
        const client = new pg.Client({ ...app, application_name, connectionTimeoutMillis: 5000 });
        client.on('error', () => undefined);
        await client.connect();
        return client;
      }),
    );
    expect((await admin.holdConnections(target)).sort()).toEqual(
      ['Odd-Name', 'app', 'postgres', 'template1'].sort(),
    );
    expect(await admin.holdConnections(target)).toEqual([]);
    expect(await admin.endClientSessions(target)).toBeGreaterThanOrEqual(2);
    for (const client of open) {
      await expect(client.query('SELECT 1')).rejects.toThrow();
      await client.end().catch(() => undefined);
    }
    // New sessions: refused for the application role, on the primary and (replicated) a standby.
    const refused = /too many connections for database "app"/;
    await expect(withDataClient(app, () => Promise.resolve())).rejects.toThrow(refused);
    await eventually(
      () =>
        withDataClient({ ...app, host: pods.ip(s1) }, () => Promise.resolve()).then(
          () => false,
          (e: unknown) => refused.test(String(e)),
        ),
      { description: `${s1} refusing the application role`, timeoutMs: 10_000 },
    );
    // The superuser connects and writes, whatever the default says.
    await withDataClient({ ...target, database: 'app' }, (client) =>
      client.query('BEGIN READ WRITE; CREATE TABLE held (n int); DROP TABLE held; COMMIT'),
    );
    expect((await reachable(primary)).inRecovery).toBe(false);

    expect((await admin.releaseConnections(target, limits)).sort()).toEqual(
      ['Odd-Name', 'app', 'postgres', 'template1'].sort(),
    );
    expect(await admin.releaseConnections(target, limits)).toEqual([]);
    expect(await admin.connectionLimits(target)).toEqual(limits);
    await withDataClient(app, (client) => client.query('SELECT 1'));
    await withDataClient(target, (client) => client.query('DROP DATABASE "Odd-Name"'));
    await expect(
      admin.releaseConnections(target, [{ name: 'app', connectionLimit: -2 }]),
    ).rejects.toThrow(TypeError);
  });

  it('checks verifiers PostgreSQL computed itself', async () => {
    const plain = `plain-${randomBytes(6).toString('hex')}`;
    passwords.push(plain);
    const stored = await withDataClient(endpoint(primary), async (client) => {
      await client.query("SET password_encryption = 'scram-sha-256'");
      await client.query(`CREATE ROLE probe PASSWORD '${plain}'`);
      const r = await client.query<{ rolpassword: string }>(
        "SELECT rolpassword FROM pg_authid WHERE rolname = 'probe'",
      );
      await client.query('DROP ROLE probe');
      return r.rows[0]!.rolpassword;
    });
    expect(verifierMatches(stored, plain)).toBe(true);
    expect(verifierMatches(stored, `${plain}!`)).toBe(false);
  });
});

describe('what unreachable and refusing servers look like', () => {
  it('reports a closed port on a pod unreachable at once (ECONNREFUSED)', async () => {
    const started = Date.now();
    const o = await observe(endpoint(podName(17, 's1'), { port: 5433 }));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(o).toMatchObject({ reachable: false, error: expect.stringMatching(/ECONNREFUSED/) });
    const error = await failure(admin.promote(endpoint(podName(17, 's1'), { port: 5433 })));
    expect(error).toMatchObject({ kind: 'unreachable' });
  });

  it('observes a crashed and restarted standby again (new start time, streaming again), on a new connection', async () => {
    const name = podName(17, 's1');
    const before = await reachable(name);
    await signal(name, 'SIGKILL');
    // the pooled connection died with the server: the admin drops it and reconnects by itself
    const restarted = await eventually(
      async () => {
        const o = await observe(endpoint(name));
        return (
          o.reachable &&
          o.postmasterStartTime !== before.postmasterStartTime &&
          o.walReceiver?.status === 'streaming' &&
          o.replayLsn !== undefined &&
          o.replayLsn >= before.replayLsn! &&
          o
        );
      },
      { timeoutMs: 120_000, description: `${name} back, streaming, replayed as far as before` },
    );
    expect(restarted).toMatchObject({
      inRecovery: true,
      timeline: 1,
      systemIdentifier: before.systemIdentifier,
    });
    expect(Date.parse(restarted.postmasterStartTime)).toBeGreaterThan(
      Date.parse(before.postmasterStartTime),
    );
    // not receiveLsn: a restarted WAL receiver streams again from the start of the segment it
    // needs, so pg_last_wal_receive_lsn() can go back (seen: 0/569C810 before, 0/5000000 after)
    expect(maxLsn(restarted.receiveLsn, restarted.replayLsn)).toBeGreaterThanOrEqual(
      before.replayLsn!,
    );
  });

  it('reports a deleted pod unreachable, within the connect timeout for a new connection', async () => {
    const name = podName(15, 's2');
    const gone = endpoint(name);
    // the admin holds an idle connection to it: the server going away must not crash anything
    expect((await observe(gone)).reachable).toBe(true);
    await pods.delete(name);
    const unreachable = await untilUnreachable(gone, 'the deleted pod unreachable');
    expect(unreachable.error).toMatch(/connect|closed|EHOSTUNREACH|ECONNREFUSED|no reply/);
    await pods.gone(name);
    // once its sandbox is gone too, nothing answers at its IP any more (no refusal): a new
    // connection gives up within about the connect timeout (3 s), never hangs
    const fresh = pgAdmin();
    try {
      await eventually(
        async () => {
          const o = await observe(gone, fresh);
          return !o.reachable && !/ECONNREFUSED/.test(o.error);
        },
        { timeoutMs: 120_000, description: `nothing answering at ${gone.host}` },
      );
      const started = Date.now();
      const o = await observe(gone, fresh);
      const elapsed = Date.now() - started;
      expect(o).toMatchObject({
        reachable: false,
        error: expect.stringMatching(/^connect timed out after 3000 ms$|EHOSTUNREACH/),
      });
      expect(elapsed).toBeLessThan(6000);
    } finally {
      await fresh.close();
    }
  });

  it('reports a wrong password as an authentication failure, and the right one works again', async () => {
    const wrongPassword = `${password}-wrong`;
    passwords.push(wrongPassword);
    const wrong = await observe(endpoint(podName(17, 'p'), { password: wrongPassword }));
    expect(wrong).toMatchObject({
      reachable: false,
      error: expect.stringMatching(/^authentication failed: .*postgres.*\(SQLSTATE 28P01\)$/),
    });
    const error = await failure(
      admin.alterSystem(endpoint(podName(17, 'p'), { password: wrongPassword }), {
        work_mem: '1MB',
      }),
    );
    expect(error).toMatchObject({ kind: 'auth', code: '28P01' });
    expect((await reachable(podName(17, 'p'))).inRecovery).toBe(false);
  });

  it('reports an unknown user and an unknown database, naming them', async () => {
    const noUser = await observe(endpoint(podName(17, 'p'), { user: 'nobody' }));
    expect(!noUser.reachable && noUser.error).toMatch(/authentication failed.*nobody/);
    const noDb = await observe(endpoint(podName(17, 'p'), { database: 'nowhere' }));
    expect(!noDb.reachable && noDb.error).toMatch(/nowhere.*3D000/);
  });
});

describe('what the admin layer reports', () => {
  it('never puts a password in an error', () => {
    expect(errors.length).toBeGreaterThan(5);
    for (const error of errors) for (const secret of passwords) expect(error).not.toContain(secret);
  });
});
