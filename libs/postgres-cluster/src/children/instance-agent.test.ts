import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PassFile, standbyConninfo } from './conninfo.js';
import { InstanceScript } from './instance-script.js';

/**
 * The instance agent (instance-agent.sh), run as the pods run it — `/bin/sh` (dash, as in the
 * images) — against stub PostgreSQL programs on PATH: each records its argv to calls.log and does
 * the least the agent relies on (initdb and pg_basebackup leave a PG_VERSION; `postgres` as a
 * server runs until SIGINT; rclone serves a real tar.gz). A file `exit.<stub>` in the stub folder
 * makes that stub fail with its code. The agent's test seams (STEWARD_INSTRUCTION_FILE,
 * STEWARD_RUN_DIR, STEWARD_TERMINATION_LOG, STEWARD_POLL_SECONDS) point it at the temp dir.
 */

const scriptPath = join(import.meta.dirname, 'instance-agent.sh');
const shell = existsSync('/bin/dash') ? '/bin/dash' : '/bin/sh';
const Pod = 'orders-1';
const Primary = '10.88.0.7';
/** A password the passfile must escape (`:` and `\`) and ALTER ROLE must quote (`'`). */
const Password = "Qz7:s\\e'cret";
/** The replication role's password (escaped alike). */
const ReplicationPassword = 'Rp9:x\\y';
const Config = '/etc/steward/config';

/** The stub every PostgreSQL program is (its header says what it does). */
const StubScript = readFileSync(
  join(import.meta.dirname, '..', '..', 'tests', 'fixtures', 'instance-agent-stub.sh'),
  'utf8',
);
const Stubs = [
  'initdb',
  'pg_basebackup',
  'pg_rewind',
  'postgres',
  'psql',
  'rclone',
  'pg_verifybackup',
  'pg_waldump',
  'pg_controldata',
];

interface Agent {
  dir: string;
  pgdata: string;
  run: string;
  stubs: string;
  process: ChildProcess;
  exited: Promise<number>;
  stderr: () => string;
}

const agents: Agent[] = [];

afterEach(async () => {
  for (const agent of agents.splice(0)) {
    if (agent.process.exitCode === null) agent.process.kill('SIGKILL');
    // a stub server the agent left running (a test that failed half-way)
    for (const pid of readLines(join(agent.stubs, 'server.pids'))) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    rmSync(agent.dir, { recursive: true, force: true });
  }
});

function readLines(file: string): string[] {
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

/** The argv of every stub call, in order: `[name, ...args]`. */
function calls(agent: Agent): string[][] {
  return readLines(join(agent.stubs, 'calls.log')).map((line) => line.split('\t'));
}
const callsOf = (agent: Agent, name: string) =>
  calls(agent)
    .filter(([n]) => n === name)
    .map(([, ...args]) => args);
/** `postgres` started as a server (not asked `-C`). */
const serverStarts = (agent: Agent) => callsOf(agent, 'postgres').filter((a) => !a.includes('-C'));
const events = (agent: Agent) => readLines(join(agent.stubs, 'events.log'));
const terminationLog = (agent: Agent) =>
  existsSync(join(agent.dir, 'termination-log'))
    ? readFileSync(join(agent.dir, 'termination-log'), 'utf8')
    : '';

interface Setup {
  /** The instruction file's content; undefined: no file (no annotation). */
  instruction?: string;
  /** Stubs that fail, with their exit codes (`postgres-check`, `postgres-server` for postgres). */
  failing?: Record<string, number>;
  env?: Record<string, string>;
  /** Arranges PGDATA (and the stub folder) before the agent starts. */
  arrange?: (paths: { pgdata: string; stubs: string }) => void;
}

function startAgent(setup: Setup = {}): Agent {
  const dir = mkdtempSync(join(tmpdir(), 'steward-instance-agent-'));
  const bin = join(dir, 'bin');
  const stubs = join(dir, 'stubs');
  const run = join(dir, 'run');
  const pgdata = join(dir, 'data', 'pgdata');
  mkdirSync(bin);
  mkdirSync(stubs);
  mkdirSync(join(dir, 'data'));
  mkdirSync(join(dir, 'pod'));
  for (const name of Stubs) writeFileSync(join(bin, name), StubScript, { mode: 0o755 });
  for (const [name, code] of Object.entries(setup.failing ?? {})) {
    writeFileSync(join(stubs, `exit.${name}`), `${code}\n`);
  }
  if (setup.instruction !== undefined) setInstructionIn(dir, setup.instruction);
  setup.arrange?.({ pgdata, stubs });
  const child = spawn(shell, [scriptPath], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      PGDATA: pgdata,
      POD_NAME: Pod,
      POSTGRES_PASSWORD: Password,
      STEWARD_REPLICATION_PASSWORD: ReplicationPassword,
      STEWARD_INSTRUCTION_FILE: join(dir, 'pod', 'instruction'),
      STEWARD_RUN_DIR: run,
      STEWARD_TERMINATION_LOG: join(dir, 'termination-log'),
      STEWARD_POLL_SECONDS: '0.05',
      STUB_DIR: stubs,
      STUB_NODE: process.execPath,
      ...setup.env,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 : -1))),
  );
  const agent = { dir, pgdata, run, stubs, process: child, exited, stderr: () => stderr };
  agents.push(agent);
  return agent;
}

function setInstructionIn(dir: string, instruction: string): void {
  // as the kubelet does: a new file renamed into place
  writeFileSync(join(dir, 'pod', 'instruction.tmp'), instruction);
  execFileSync('mv', [join(dir, 'pod', 'instruction.tmp'), join(dir, 'pod', 'instruction')]);
}
const instruct = (agent: Agent, instruction: string) => setInstructionIn(agent.dir, instruction);

/** Polls until `ready()` holds; fails naming `what` and the agent's log after 20 s. */
async function until(agent: Agent, what: string, ready: () => boolean): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (ready()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}; the agent said:\n${agent.stderr()}`);
}
/** Until the stub server has started `n` times and installed its signal handlers. */
const serving = (agent: Agent, n = 1) =>
  until(
    agent,
    `PostgreSQL started ${n} time(s)`,
    () => events(agent).filter((e) => e === 'ready').length >= n,
  );

/** The agent's exit code; fails naming the agent's log if it still runs after 20 s. */
async function exitCode(agent: Agent): Promise<number> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`the agent did not exit; it said:\n${agent.stderr()}`)),
      20_000,
    );
  });
  try {
    return await Promise.race([agent.exited, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGTERM, as at pod deletion: the agent's exit code. */
async function terminate(agent: Agent): Promise<number> {
  agent.process.kill('SIGTERM');
  return exitCode(agent);
}

/** Enough poll rounds (STEWARD_POLL_SECONDS=0.05) for the agent to have seen a change. */
const someRounds = () => new Promise((r) => setTimeout(r, 400));

const withPgData =
  (files: Record<string, string>) =>
  ({ pgdata }: { pgdata: string }): void => {
    mkdirSync(pgdata, { recursive: true });
    for (const [name, text] of Object.entries({ PG_VERSION: '17\n', ...files })) {
      writeFileSync(join(pgdata, name), text);
    }
  };

const serverArgs = (pgdata: string) => [
  '-D',
  pgdata,
  '-c',
  `config_file=${Config}/postgresql.conf`,
];
const conninfoFor = (agent: Agent, host: string) =>
  standbyConninfo(host, Pod).replace(PassFile, join(agent.run, 'pgpass'));

describe('the instance agent (instance-agent.sh under dash, stub PostgreSQL programs)', () => {
  it('is the text InstanceScript ships in the ConfigMap (the generated module is current)', () => {
    expect(InstanceScript).toBe(readFileSync(scriptPath, 'utf8'));
  });

  it('boots as primary from a fresh initdb: the superuser password through files, never argv; SIGTERM is a fast shutdown', async () => {
    const agent = startAgent({ instruction: 'initdb' });
    await serving(agent);
    expect(calls(agent).map(([name]) => name)).toEqual(['initdb', 'postgres', 'postgres']);
    expect(callsOf(agent, 'postgres')[0]).toEqual([
      ...serverArgs(agent.pgdata),
      '-C',
      'server_version_num',
    ]);
    expect(callsOf(agent, 'initdb')).toEqual([
      [
        `--pgdata=${agent.pgdata}`,
        '--username=postgres',
        `--pwfile=${join(agent.run, 'initdb-password')}`,
        '--auth-local=peer',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C.UTF-8',
        '--data-checksums',
      ],
    ]);
    expect(serverStarts(agent)).toEqual([serverArgs(agent.pgdata)]);
    expect(readFileSync(join(agent.stubs, 'initdb.pwfile'), 'utf8')).toBe(`${Password}\n`);
    expect(readFileSync(join(agent.run, 'pgpass'), 'utf8')).toBe(
      "*:*:*:postgres:Qz7\\:s\\\\e'cret\n*:*:*:steward_replication:Rp9\\:x\\\\y\n",
    );
    expect(statSync(join(agent.run, 'pgpass')).mode & 0o777).toBe(0o600);
    for (const secret of ['Qz7', 'Rp9']) {
      expect(readFileSync(join(agent.stubs, 'calls.log'), 'utf8')).not.toContain(secret);
      expect(agent.stderr()).not.toContain(secret);
    }
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(false);

    expect(await terminate(agent)).toBe(0);
    expect(events(agent)).toEqual(['ready', 'stopped by SIGINT']);
  });

  it('restarted with initdb over an initialised PGDATA, runs it as primary without a second initdb', async () => {
    const agent = startAgent({
      instruction: 'initdb',
      arrange: withPgData({
        'standby.signal': '',
        'postgresql.auto.conf': `work_mem = '8MB'\nprimary_conninfo = 'host=10.0.0.9'\n`,
      }),
    });
    await serving(agent);
    expect(callsOf(agent, 'initdb')).toEqual([]);
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(false);
    expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
      `work_mem = '8MB'\n`,
    );
  });

  it('without an instruction (or told wait) starts nothing, and carries out the instruction once it comes', async () => {
    const agent = startAgent({ arrange: withPgData({}) });
    await someRounds();
    instruct(agent, 'wait');
    await someRounds();
    expect(calls(agent)).toEqual([]);
    expect(agent.stderr()).toContain('waiting for an instruction in');
    expect(agent.stderr()).toContain('instruction: wait');

    instruct(agent, 'primary');
    await serving(agent);
    expect(serverStarts(agent)).toEqual([serverArgs(agent.pgdata)]);
  });

  it('a running primary told wait (fenced) is stopped with a fast shutdown and not started again', async () => {
    const agent = startAgent({ instruction: 'primary', arrange: withPgData({}) });
    await serving(agent);
    instruct(agent, 'wait');
    await until(agent, 'PostgreSQL stopped', () => events(agent).includes('stopped by SIGINT'));
    await someRounds();
    expect(serverStarts(agent)).toHaveLength(1);
    expect(agent.process.exitCode).toBeNull();
    expect(await terminate(agent)).toBe(0);
  });

  it('joins as a standby by cloning an empty PGDATA with pg_basebackup: standby.signal and primary_conninfo', async () => {
    const agent = startAgent({ instruction: `standby ${Primary}` });
    await serving(agent);
    expect(callsOf(agent, 'pg_basebackup')).toEqual([
      [
        '-d',
        conninfoFor(agent, Primary),
        '-D',
        `${agent.pgdata}.clone`,
        '-X',
        'stream',
        '-c',
        'fast',
        '--no-password',
      ],
    ]);
    expect(callsOf(agent, 'pg_rewind')).toEqual([]);
    expect(existsSync(join(agent.pgdata, 'cloned'))).toBe(true);
    expect(existsSync(`${agent.pgdata}.clone`)).toBe(false);
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(true);
    expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
      `primary_conninfo = '${conninfoFor(agent, Primary)}'\n`,
    );
    expect(serverStarts(agent)).toEqual([serverArgs(agent.pgdata)]);
  });

  it('without the replication password (a pod of an older template) clones as the superuser', async () => {
    const agent = startAgent({
      instruction: `standby ${Primary}`,
      env: { STEWARD_REPLICATION_PASSWORD: '' },
    });
    await serving(agent);
    const asSuperuser = conninfoFor(agent, Primary).replace(
      'user=steward_replication',
      'user=postgres',
    );
    expect(callsOf(agent, 'pg_basebackup')[0]?.[1]).toBe(asSuperuser);
    expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
      `primary_conninfo = '${asSuperuser}'\n`,
    );
    expect(readFileSync(join(agent.run, 'pgpass'), 'utf8')).toBe(
      "*:*:*:postgres:Qz7\\:s\\\\e'cret\n",
    );
  });

  it.each([
    ['a former primary (no standby.signal) told standby', 'standby', {}, true],
    ['a standby told rewind (its timeline forked)', 'rewind', { 'standby.signal': '' }, true],
    ['a standby told standby (a restart)', 'standby', { 'standby.signal': '' }, false],
  ])('%s: rewound first = %s', async (_, verb, files, rewound) => {
    const agent = startAgent({
      instruction: `${verb} ${Primary}`,
      arrange: withPgData({
        ...files,
        'postgresql.auto.conf': `work_mem = '8MB'\n  primary_conninfo = 'host=10.0.0.9'\n`,
      }),
    });
    await serving(agent);
    expect(callsOf(agent, 'pg_rewind')).toEqual(
      rewound
        ? [
            // First a dry run: what it wrote beyond the primary's history is saved (salvage).
            [
              '--dry-run',
              `--target-pgdata=${agent.pgdata}`,
              `--source-server=${conninfoFor(agent, Primary)}`,
              `--config-file=${Config}/postgresql.conf`,
            ],
            [
              `--target-pgdata=${agent.pgdata}`,
              `--source-server=${conninfoFor(agent, Primary)}`,
              `--config-file=${Config}/postgresql.conf`,
              '--progress',
            ],
          ]
        : [],
    );
    expect(callsOf(agent, 'pg_basebackup')).toEqual([]);
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(true);
    expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
      `work_mem = '8MB'\nprimary_conninfo = '${conninfoFor(agent, Primary)}'\n`,
    );
    const names = calls(agent).map(([name]) => name);
    expect(names[names.length - 1]).toBe('postgres');
  });

  it('a former primary keeps the WAL it wrote beyond the new primary’s history before it is rewound (salvage), with a manifest the controller reports', async () => {
    const wal = '000000010000000000000003';
    const agent = startAgent({
      instruction: `standby ${Primary}`,
      arrange: (paths) => {
        withPgData({})(paths);
        mkdirSync(join(paths.pgdata, 'pg_wal'));
        // Timeline 1's segments 2 and 3, and the new timeline's 3 (a history it does not keep).
        for (const f of ['000000010000000000000002', wal, '000000020000000000000003'])
          writeFileSync(join(paths.pgdata, 'pg_wal', f), f);
        writeFileSync(
          join(paths.stubs, 'rewind.dry'),
          'pg_rewind: servers diverged at WAL location 0/3000060 on timeline 1\n',
        );
        writeFileSync(
          join(paths.stubs, 'waldump.err'),
          'pg_waldump: error: error in WAL record at 0/3000F80: invalid record length at 0/3001000: expected at least 24, got 0\n',
        );
        writeFileSync(
          join(paths.stubs, 'controldata'),
          'Database cluster state:               shut down\n',
        );
      },
    });
    await serving(agent);
    const root = join(agent.dir, 'data', 'salvage');
    const latest = JSON.parse(readFileSync(join(root, 'latest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(latest).toMatchObject({
      phase: 'Saved',
      from: '0/3000060',
      to: '0/3001000',
      timeline: 1,
      bytes: 0x3001000 - 0x3000060,
    });
    const dir = latest['location'] as string;
    expect(dir.startsWith(`${root}/`)).toBe(true);
    // The segments of timeline 1 from the divergence on, and the manifest; nothing else.
    expect(readdirSync(dir).sort()).toEqual([wal, 'manifest.json']);
    expect(readFileSync(join(dir, wal), 'utf8')).toBe(wal);
    // Saved before the rewind, which ran after the dry run.
    expect(callsOf(agent, 'pg_rewind').map((a) => a[0])).toEqual([
      '--dry-run',
      `--target-pgdata=${agent.pgdata}`,
    ]);
    expect(agent.stderr()).toContain(`kept ${0x3001000 - 0x3000060} bytes of WAL`);
  });

  it('when pg_rewind fails, exits 1 with the reason in the termination log and leaves PGDATA as it was (the controller re-clones)', async () => {
    const agent = startAgent({
      instruction: `standby ${Primary}`,
      failing: { pg_rewind: 1 },
      arrange: withPgData({ 'postgresql.auto.conf': `work_mem = '8MB'\n` }),
    });
    expect(await exitCode(agent)).toBe(1);
    expect(terminationLog(agent)).toBe(
      `pg_rewind against ${Primary} failed: the data directory is kept as it is; the controller re-clones this instance\n`,
    );
    expect(serverStarts(agent)).toEqual([]);
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(false);
    expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
      `work_mem = '8MB'\n`,
    );
  });

  it('reclone moves PGDATA aside to PGDATA.old (replacing an earlier one) and clones afresh', async () => {
    const agent = startAgent({
      instruction: `reclone ${Primary}`,
      arrange: ({ pgdata }) => {
        withPgData({ 'standby.signal': '', mine: 'the diverged copy' })({ pgdata });
        withPgData({ older: '' })({ pgdata: `${pgdata}.old` });
      },
    });
    await serving(agent);
    expect(readFileSync(join(`${agent.pgdata}.old`, 'mine'), 'utf8')).toBe('the diverged copy');
    expect(existsSync(join(`${agent.pgdata}.old`, 'older'))).toBe(false);
    expect(callsOf(agent, 'pg_basebackup')).toHaveLength(1);
    expect(callsOf(agent, 'pg_rewind')).toEqual([]);
    expect(existsSync(join(agent.pgdata, 'cloned'))).toBe(true);
    expect(existsSync(join(agent.pgdata, 'standby.signal'))).toBe(true);
  });

  it('a running standby told primary keeps running (the controller promotes it); told rewind, it restarts rewound', async () => {
    const agent = startAgent({
      instruction: `standby ${Primary}`,
      arrange: withPgData({ 'standby.signal': '' }),
    });
    await serving(agent);
    instruct(agent, 'primary');
    await someRounds();
    expect(serverStarts(agent)).toHaveLength(1);
    expect(events(agent)).toEqual(['ready']);

    // running as primary now: a new primary's host means a restart as a rewound standby
    instruct(agent, 'rewind 10.88.0.8');
    await serving(agent, 2);
    expect(events(agent)).toEqual(['ready', 'stopped by SIGINT', 'ready']);
    expect(callsOf(agent, 'pg_rewind')).toHaveLength(2);
    expect(callsOf(agent, 'pg_rewind')[1]).toContain(
      `--source-server=${conninfoFor(agent, '10.88.0.8')}`,
    );
  });

  it('a standby whose primary changed is not restarted (the controller repoints it with ALTER SYSTEM)', async () => {
    const agent = startAgent({
      instruction: `standby ${Primary}`,
      arrange: withPgData({ 'standby.signal': '' }),
    });
    await serving(agent);
    instruct(agent, 'standby 10.88.0.8');
    await someRounds();
    expect(events(agent)).toEqual(['ready']);
    expect(serverStarts(agent)).toHaveLength(1);
  });

  describe('restore from a backup', () => {
    const Backup = '20261203T030000Z';
    const restoreEnv = {
      STEWARD_RESTORE_PATH: 'backups/shop/orders/7715084825864298526',
      STEWARD_RESTORE_BACKUP: Backup,
      STEWARD_RESTORE_TARGET_TIME: '2026-12-03 04:00:00+00',
    };
    /** A base.tar.gz as a backup Job writes it: the source's settings and leftovers included. */
    const arrangeBackup = ({ stubs }: { stubs: string }): void => {
      const base = join(stubs, 'base');
      withPgData({
        'postgresql.auto.conf': `primary_conninfo = 'host=10.1.1.1'\nsynchronous_standby_names = 'ANY 1 (a)'\nwork_mem = '8MB'\n`,
        'standby.signal': '',
        'postmaster.pid': '42\n',
      })({ pgdata: base });
      execFileSync('tar', ['-czf', join(stubs, 'base.tar.gz'), '-C', base, '.']);
      writeFileSync(join(stubs, 'backup_manifest'), '{"PostgreSQL-Backup-Manifest-Version": 1}\n');
    };

    it('fetches, verifies and unpacks the base backup, recovers up to the target, then takes this cluster’s password over the socket', async () => {
      const agent = startAgent({ instruction: 'restore', env: restoreEnv, arrange: arrangeBackup });
      await serving(agent);
      const src = `source:${restoreEnv.STEWARD_RESTORE_PATH}/base/${Backup}`;
      expect(callsOf(agent, 'rclone')).toEqual([
        ['cat', `${src}/base.tar.gz`],
        ['copyto', `${src}/backup_manifest`, `${agent.pgdata}.restore/backup_manifest`],
      ]);
      expect(callsOf(agent, 'pg_verifybackup')).toEqual([
        ['--no-parse-wal', '--quiet', `${agent.pgdata}.restore`],
      ]);
      expect(callsOf(agent, 'initdb')).toEqual([]);
      expect(serverStarts(agent)).toEqual([
        [
          ...serverArgs(agent.pgdata),
          '-c',
          `restore_command=/bin/sh ${Config}/restore-wal.sh %f %p`,
          '-c',
          'recovery_target_action=promote',
          '-c',
          `recovery_target_time=${restoreEnv.STEWARD_RESTORE_TARGET_TIME}`,
        ],
      ]);
      for (const kept of ['PG_VERSION', 'backup_manifest', 'recovery.signal', 'steward.restored']) {
        expect(existsSync(join(agent.pgdata, kept)), kept).toBe(true);
      }
      for (const gone of ['standby.signal', 'postmaster.pid']) {
        expect(existsSync(join(agent.pgdata, gone)), gone).toBe(false);
      }
      expect(existsSync(`${agent.pgdata}.restore`)).toBe(false);
      expect(readFileSync(join(agent.pgdata, 'postgresql.auto.conf'), 'utf8')).toBe(
        `work_mem = '8MB'\n`,
      );

      // still recovering: the password waits; promoted: ALTER ROLE on stdin, once
      await someRounds();
      expect(existsSync(join(agent.stubs, 'psql.stdin'))).toBe(false);
      writeFileSync(join(agent.stubs, 'psql.in-recovery'), 'f\n');
      await until(
        agent,
        'the password set',
        () => !existsSync(join(agent.pgdata, 'steward.restored')),
      );
      expect(readFileSync(join(agent.stubs, 'psql.stdin'), 'utf8')).toBe(
        "ALTER ROLE postgres PASSWORD 'Qz7:s\\e''cret';\n",
      );
      expect(callsOf(agent, 'psql').at(-1)).toEqual([
        '-h',
        '/run/postgresql',
        '-U',
        'postgres',
        '-d',
        'postgres',
        '-X',
        '-q',
        '-v',
        'ON_ERROR_STOP=1',
      ]);
      expect(events(agent)).toEqual(['ready']);
    });

    it('a backup that does not match its manifest stops the restore: exit 1, the reason in the termination log, PGDATA untouched', async () => {
      const agent = startAgent({
        instruction: 'restore',
        env: restoreEnv,
        failing: { pg_verifybackup: 1 },
        arrange: arrangeBackup,
      });
      expect(await exitCode(agent)).toBe(1);
      expect(terminationLog(agent)).toMatch(
        new RegExp(`^backup ${Backup} does not match its manifest: `),
      );
      expect(existsSync(agent.pgdata)).toBe(false);
      expect(serverStarts(agent)).toEqual([]);
    });

    it('told restore with no backup named, fails saying so', async () => {
      const agent = startAgent({ instruction: 'restore' });
      expect(await exitCode(agent)).toBe(1);
      expect(terminationLog(agent)).toBe(
        'told to restore, but no backup is named (STEWARD_RESTORE_PATH, STEWARD_RESTORE_BACKUP)\n',
      );
    });
  });

  it.each<[string, Setup, string | RegExp]>([
    [
      'told primary with no cluster in PGDATA (a cluster is never initialised twice)',
      { instruction: 'primary' },
      /^told to run as primary but .* holds no cluster: /,
    ],
    [
      'told standby with no host',
      { instruction: 'standby', arrange: withPgData({}) },
      'instruction standby names no primary to stream from\n',
    ],
    [
      'told something unknown',
      { instruction: 'promote now' },
      'unknown instruction: promote now\n',
    ],
    [
      'initdb fails',
      { instruction: 'initdb', failing: { initdb: 1 } },
      'initdb failed (see the log above)\n',
    ],
    [
      'pg_basebackup fails',
      { instruction: `standby ${Primary}`, failing: { pg_basebackup: 1 } },
      `pg_basebackup from ${Primary} failed (see the log above)\n`,
    ],
    [
      'PostgreSQL refuses the configuration',
      { instruction: 'primary', arrange: withPgData({}), failing: { 'postgres-check': 1 } },
      'PostgreSQL refuses the configuration: FATAL:  bad value DETAIL:  wal_level \n',
    ],
    [
      'PostgreSQL exits by itself',
      { instruction: 'primary', arrange: withPgData({}), failing: { 'postgres-server': 3 } },
      'PostgreSQL exited (status 3) while running as primary\n',
    ],
    [
      'the superuser password is empty',
      { instruction: 'initdb', env: { POSTGRES_PASSWORD: '' } },
      'POSTGRES_PASSWORD is empty: refusing to start without the superuser password\n',
    ],
  ])('exits 1 with the reason in the termination log when %s', async (_, setup, reason) => {
    const agent = startAgent(setup);
    expect(await exitCode(agent)).toBe(1);
    if (typeof reason === 'string') expect(terminationLog(agent)).toBe(reason);
    else expect(terminationLog(agent)).toMatch(reason);
    expect(agent.stderr()).toContain(`steward-instance: ${terminationLog(agent).trim()}`);
  });
});
