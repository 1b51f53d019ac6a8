import {
  CreateDBInstanceCommand,
  CreateDBSnapshotCommand,
  DBInstanceAlreadyExistsFault,
  DBInstanceNotFoundFault,
  DeleteDBInstanceCommand,
  DescribeDBInstancesCommand,
  DescribeDBSnapshotsCommand,
  ListTagsForResourceCommand,
  ModifyDBInstanceCommand,
  RDSServiceException,
  type CreateDBInstanceCommandInput,
  type RDSClient,
} from '@aws-sdk/client-rds';
import { eventually, tcpConnect } from '@steward/testing';
import { execFileSync, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  isPortClash,
  motoServerBinary,
  parseMotoServerPath,
  startMoto,
  type Moto,
} from '../src/moto.js';

/** What the SDK surfaces when moto refuses a call: error class name, message, code, HTTP status. */
async function rejection(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof RDSServiceException)) throw error;
    return {
      error,
      name: error.name,
      message: error.message,
      status: error.$metadata.httpStatusCode,
      fault: error.$fault,
    };
  }
  throw new Error('expected the call to be rejected');
}

/** pids of moto_servers serving `port` (pgrep exits 1 when nothing matches). */
function motoServersOn(port: string): number[] {
  try {
    return execFileSync('pgrep', ['-f', `moto_server -H 127.0.0.1 -p ${port}$`], {
      encoding: 'utf8',
    })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const postgres = (id: string): CreateDBInstanceCommandInput => ({
  DBInstanceIdentifier: id,
  Engine: 'postgres',
  DBInstanceClass: 'db.t3.micro',
  AllocatedStorage: 20,
  MasterUsername: 'steward',
  MasterUserPassword: 'correct-horse-battery-staple',
});

describe('moto helpers', () => {
  it('recognises werkzeug’s port-clash messages and nothing else', () => {
    expect(isPortClash('Address already in use\nPort 4000 is in use by another program.')).toBe(
      true,
    );
    expect(isPortClash('Port 4000 is in use by another program. Either identify...')).toBe(true);
    expect(isPortClash(' * Running on http://127.0.0.1:4000')).toBe(false);
    expect(isPortClash('ModuleNotFoundError: No module named flask')).toBe(false);
  });

  it('reads the moto_server path from install.sh --print-env', () => {
    expect(parseMotoServerPath('STEWARD_MOTO_SERVER_BIN=/c/moto-5.2.5/bin/moto_server\n')).toBe(
      '/c/moto-5.2.5/bin/moto_server',
    );
    expect(parseMotoServerPath('noise\n  STEWARD_MOTO_SERVER_BIN=/x/moto_server  \n')).toBe(
      '/x/moto_server',
    );
    expect(parseMotoServerPath('moto: 5.2.5 cached at /c\n')).toBeUndefined();
    expect(parseMotoServerPath('STEWARD_MOTO_SERVER_BIN=\n')).toBeUndefined();
  });
});

describe('startMoto: the RDS API through the real @aws-sdk/client-rds', () => {
  let moto: Moto;
  let rds: RDSClient;

  beforeAll(async () => {
    moto = await startMoto();
    rds = moto.rdsClient();
  });
  afterAll(() => moto?.stop());
  beforeEach(() => moto.reset());

  it('serves on loopback with static credentials and a region', () => {
    expect(moto.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(moto.region).toBe('us-east-1');
    expect(moto.credentials.accessKeyId).toBeTruthy();
  });

  it('creates a postgres instance that is available at once, with an endpoint', async () => {
    const created = await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    expect(created.DBInstance?.DBInstanceIdentifier).toBe('orders');

    const { DBInstances } = await rds.send(
      new DescribeDBInstancesCommand({ DBInstanceIdentifier: 'orders' }),
    );
    expect(DBInstances).toHaveLength(1);
    const instance = DBInstances![0]!;
    expect(instance.DBInstanceStatus).toBe('available');
    expect(instance.Engine).toBe('postgres');
    expect(instance.DBInstanceClass).toBe('db.t3.micro');
    expect(instance.AllocatedStorage).toBe(20);
    expect(instance.Endpoint?.Address).toMatch(/^orders\..+\.us-east-1\.rds\.amazonaws\.com$/);
    expect(instance.Endpoint?.Port).toBe(5432);
    expect(instance.DBInstanceArn).toBe('arn:aws:rds:us-east-1:123456789012:db:orders');
  });

  it('refuses a second create with the same identifier: DBInstanceAlreadyExistsFault', async () => {
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    const refused = await rejection(rds.send(new CreateDBInstanceCommand(postgres('orders'))));
    expect(refused.error).toBeInstanceOf(DBInstanceAlreadyExistsFault);
    expect(refused).toMatchObject({
      name: 'DBInstanceAlreadyExistsFault',
      message: 'DB instance already exists',
      status: 400,
      fault: 'client',
    });
  });

  it('grows storage with ModifyDBInstance', async () => {
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    const modified = await rds.send(
      new ModifyDBInstanceCommand({
        DBInstanceIdentifier: 'orders',
        AllocatedStorage: 50,
        ApplyImmediately: true,
      }),
    );
    expect(modified.DBInstance?.AllocatedStorage).toBe(50);
    const { DBInstances } = await rds.send(
      new DescribeDBInstancesCommand({ DBInstanceIdentifier: 'orders' }),
    );
    expect(DBInstances?.[0]?.AllocatedStorage).toBe(50);
    expect(DBInstances?.[0]?.DBInstanceStatus).toBe('available');
  });

  it('takes a manual snapshot with CreateDBSnapshot', async () => {
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    const { DBSnapshot } = await rds.send(
      new CreateDBSnapshotCommand({
        DBInstanceIdentifier: 'orders',
        DBSnapshotIdentifier: 'orders-manual',
      }),
    );
    expect(DBSnapshot).toMatchObject({
      DBSnapshotIdentifier: 'orders-manual',
      DBInstanceIdentifier: 'orders',
      Status: 'available',
      SnapshotType: 'manual',
    });
  });

  it('deletes with a final snapshot: the snapshot stays, the instance is gone (DBInstanceNotFoundFault)', async () => {
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    const deleted = await rds.send(
      new DeleteDBInstanceCommand({
        DBInstanceIdentifier: 'orders',
        FinalDBSnapshotIdentifier: 'orders-final',
      }),
    );
    expect(deleted.DBInstance?.DBInstanceStatus).toBe('deleting');

    const { DBSnapshots } = await rds.send(
      new DescribeDBSnapshotsCommand({ DBSnapshotIdentifier: 'orders-final' }),
    );
    expect(DBSnapshots).toHaveLength(1);
    expect(DBSnapshots![0]).toMatchObject({ DBInstanceIdentifier: 'orders', Status: 'available' });

    // Gone at once: no `deleting` phase is observable through Describe.
    const gone = await rejection(
      rds.send(new DescribeDBInstancesCommand({ DBInstanceIdentifier: 'orders' })),
    );
    expect(gone.error).toBeInstanceOf(DBInstanceNotFoundFault);
    expect(gone).toMatchObject({
      name: 'DBInstanceNotFoundFault',
      message: 'DBInstance orders not found.',
      status: 404,
      fault: 'client',
    });
    // Deleting again (a retried delete) meets the same error.
    const again = await rejection(
      rds.send(
        new DeleteDBInstanceCommand({ DBInstanceIdentifier: 'orders', SkipFinalSnapshot: true }),
      ),
    );
    expect(again.name).toBe('DBInstanceNotFoundFault');
  });

  it('rejects an unknown engine with InvalidParameterValue (no modelled class in the SDK)', async () => {
    const refused = await rejection(
      rds.send(new CreateDBInstanceCommand({ ...postgres('orders'), Engine: 'nosuchdb' })),
    );
    expect(refused.error.constructor).toBe(RDSServiceException);
    expect(refused).toMatchObject({
      name: 'InvalidParameterValue',
      message:
        'Value nosuchdb for parameter Engine is invalid. Reason: engine nosuchdb not supported',
      status: 400,
      fault: 'client',
    });
  });

  it('rejects an invalid identifier with InvalidParameterValue', async () => {
    const refused = await rejection(rds.send(new CreateDBInstanceCommand(postgres('1-bad--name'))));
    expect(refused.name).toBe('InvalidParameterValue');
    expect(refused.message).toMatch(
      /^The parameter DBInstanceIdentifier is not a valid identifier/,
    );
  });

  it('does NOT validate what real RDS would refuse: our own code must (moto 5.2.5)', async () => {
    // 1 GiB of storage (RDS postgres needs >= 20), an unknown class, no master password.
    const tiny = await rds.send(
      new CreateDBInstanceCommand({
        ...postgres('tiny'),
        AllocatedStorage: 1,
        DBInstanceClass: 'db.nope',
        MasterUserPassword: undefined,
      }),
    );
    expect(tiny.DBInstance).toMatchObject({ AllocatedStorage: 1, DBInstanceStatus: 'available' });
    // Shrinking storage (RDS: InvalidParameterCombination).
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    const shrunk = await rds.send(
      new ModifyDBInstanceCommand({
        DBInstanceIdentifier: 'orders',
        AllocatedStorage: 10,
        ApplyImmediately: true,
      }),
    );
    expect(shrunk.DBInstance?.AllocatedStorage).toBe(10);
    // Deleting with neither FinalDBSnapshotIdentifier nor SkipFinalSnapshot (RDS: refused).
    const deleted = await rds.send(new DeleteDBInstanceCommand({ DBInstanceIdentifier: 'orders' }));
    expect(deleted.DBInstance?.DBInstanceStatus).toBe('deleting');
  });

  it('returns the tags given at create from ListTagsForResource', async () => {
    const tags = [
      { Key: 'steward.dev/owner', Value: 'shop/orders' },
      { Key: 'steward.dev/uid', Value: '0b7e3c1a-1111-2222-3333-444455556666' },
    ];
    const created = await rds.send(
      new CreateDBInstanceCommand({ ...postgres('orders'), Tags: tags }),
    );
    expect(created.DBInstance?.TagList).toEqual(tags);
    const { TagList } = await rds.send(
      new ListTagsForResourceCommand({ ResourceName: created.DBInstance!.DBInstanceArn! }),
    );
    expect(TagList).toEqual(tags);
    const { DBInstances } = await rds.send(
      new DescribeDBInstancesCommand({ DBInstanceIdentifier: 'orders' }),
    );
    expect(DBInstances?.[0]?.TagList).toEqual(tags);
  });

  it('filters DescribeDBInstances by identifier and engine, but not by tag', async () => {
    await rds.send(
      new CreateDBInstanceCommand({
        ...postgres('orders'),
        Tags: [{ Key: 'steward.dev/owner', Value: 'shop/orders' }],
      }),
    );
    await rds.send(new CreateDBInstanceCommand(postgres('billing')));

    const byId = await rds.send(
      new DescribeDBInstancesCommand({ Filters: [{ Name: 'db-instance-id', Values: ['orders'] }] }),
    );
    expect(byId.DBInstances?.map((i) => i.DBInstanceIdentifier)).toEqual(['orders']);
    const none = await rds.send(
      new DescribeDBInstancesCommand({ Filters: [{ Name: 'db-instance-id', Values: ['nope'] }] }),
    );
    expect(none.DBInstances).toEqual([]);
    const byEngine = await rds.send(
      new DescribeDBInstancesCommand({ Filters: [{ Name: 'engine', Values: ['postgres'] }] }),
    );
    expect(byEngine.DBInstances?.map((i) => i.DBInstanceIdentifier).sort()).toEqual([
      'billing',
      'orders',
    ]);

    // Real RDS has no tag filter on DescribeDBInstances either.
    for (const name of ['tag:steward.dev/owner', 'tag-key']) {
      const refused = await rejection(
        rds.send(new DescribeDBInstancesCommand({ Filters: [{ Name: name, Values: ['x'] }] })),
      );
      expect(refused).toMatchObject({
        name: 'InvalidParameterValue',
        message: `Unrecognized filter name: ${name}`,
        status: 400,
      });
    }
  });

  it('reset() forgets every instance', async () => {
    await rds.send(new CreateDBInstanceCommand(postgres('orders')));
    await moto.reset();
    const { DBInstances } = await rds.send(new DescribeDBInstancesCommand({}));
    expect(DBInstances).toEqual([]);
  });
});

describe('startMoto on another host address', () => {
  it('listens on that address only, and the client reaches it through the endpoint', async () => {
    const moto = await startMoto({ host: '127.0.0.2' });
    try {
      const url = new URL(moto.endpoint);
      expect(url.hostname).toBe('127.0.0.2');
      const rds = moto.rdsClient();
      await rds.send(new CreateDBInstanceCommand(postgres('orders')));
      const { DBInstances } = await rds.send(new DescribeDBInstancesCommand({}));
      expect(DBInstances?.map((i) => i.DBInstanceIdentifier)).toEqual(['orders']);
      expect(await tcpConnect('127.0.0.1', Number(url.port))).toBe('ECONNREFUSED');
    } finally {
      await moto.stop();
    }
  });
});

describe('moto_server never outlives its owner', () => {
  it('stop() leaves no moto_server process', async () => {
    const moto = await startMoto();
    const port = new URL(moto.endpoint).port;
    expect(motoServersOn(port)).toEqual([moto.pid]);
    await moto.rdsClient().send(new DescribeDBInstancesCommand({}));

    await moto.stop();
    expect(alive(moto.pid)).toBe(false);
    expect(motoServersOn(port)).toEqual([]);
    await moto.stop(); // idempotent
  });

  it('two suites run side by side, each with its own state', async () => {
    const [a, b] = await Promise.all([startMoto(), startMoto({ region: 'eu-west-1' })]);
    try {
      expect(a.endpoint).not.toBe(b.endpoint);
      await a.rdsClient().send(new CreateDBInstanceCommand(postgres('only-in-a')));
      const inB = await b.rdsClient().send(new DescribeDBInstancesCommand({}));
      expect(inB.DBInstances).toEqual([]);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('the watchdog ends moto_server when its owner is killed outright (SIGKILL)', async () => {
    const bin = await motoServerBinary();
    const moduleUrl = new URL('../src/moto.ts', import.meta.url).href;
    const script = `const { startMoto } = await import(${JSON.stringify(moduleUrl)});
      const moto = await startMoto();
      console.log(JSON.stringify({ endpoint: moto.endpoint, pid: moto.pid, logFile: moto.logFile }));
      setInterval(() => {}, 1000);`;
    const owner = spawn(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
        env: { ...process.env, STEWARD_MOTO_SERVER_BIN: bin },
      },
    );
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: owner.stdout! }).once('line', resolve);
      owner.once('exit', (code) => reject(new Error(`owner exited early with ${code}`)));
    });
    const { endpoint, pid, logFile } = JSON.parse(line) as {
      endpoint: string;
      pid: number;
      logFile: string;
    };
    const port = new URL(endpoint).port;
    expect(motoServersOn(port)).toEqual([pid]);

    const exited = new Promise((resolve) => owner.once('exit', resolve));
    owner.kill('SIGKILL');
    await exited;

    // pgrep -f, not kill -0: an orphan reaped late lingers as a zombie without a command line.
    await eventually(() => motoServersOn(port).length === 0, {
      description: `moto_server ${pid} on port ${port} to be gone`,
      timeoutMs: 30_000,
    });
    await rm(dirname(logFile), { recursive: true, force: true });
  });
});
