/**
 * The Redis admin layer against real Redis and Valkey pods on the node tier: observe, replicate,
 * promote, hand the primary role over (FAILOVER TO, and one that times out), and what a stopped,
 * crashed, deleted, closed or wrongly authenticated node looks like.
 * The pods are bare Pods reached at their pod IPs from this process (the host reaches pod IPs
 * over the tier's bridge); replicas reach their primary at its pod IP too.
 */
import { execFileSync } from 'node:child_process';
import { kubeletRoots } from './kubelet-roots.js';
import { randomBytes } from 'node:crypto';
import { eventually, freePort, observations } from '@steward/testing';
import { barePodsOnNodeTier, restrictedPod } from '@steward/testing-node-tier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  redisAdmin,
  RedisAdminError,
  type RedisAdmin,
  type RedisEndpoint,
} from '../src/redis/index.js';

const port = 6379;
/** This run's password: every server's, checked never to appear in an error. */
const password = `pw-${randomBytes(12).toString('hex')}`;

interface Server {
  image: 'redis-7.0' | 'redis-8.0' | 'valkey-8.1';
  binary: 'redis-server' | 'valkey-server';
}
const servers: Record<string, Server> = {
  r0: { image: 'redis-7.0', binary: 'redis-server' },
  r1: { image: 'redis-7.0', binary: 'redis-server' },
  r2: { image: 'redis-7.0', binary: 'redis-server' },
  e0: { image: 'redis-8.0', binary: 'redis-server' },
  e1: { image: 'redis-8.0', binary: 'redis-server' },
  v0: { image: 'valkey-8.1', binary: 'valkey-server' },
  v1: { image: 'valkey-8.1', binary: 'valkey-server' },
};

const pods = barePodsOnNodeTier(
  { beforeAll, afterAll },
  { images: ['redis-7.0', 'redis-8.0', 'valkey-8.1'], namespace: 'redis-admin' },
);
let admin: RedisAdmin;
beforeAll(async () => {
  await pods.run(Object.entries(servers).map(([name, server]) => serverPod(name, server)));
  admin = redisAdmin();
});
afterAll(() => admin?.close());

/** A bare Pod running the server with a password, as the images are meant to run: non-root, read-only root. */
function serverPod(name: string, { image, binary }: Server) {
  return restrictedPod(
    { name, labels: { app: 'redis-admin-test', server: name } },
    {
      name: 'server',
      image: pods.images[image]!.ref,
      command: [
        binary,
        ...['--bind', '0.0.0.0', '--protected-mode', 'no', '--port', String(port)],
        ...['--dir', '/data', '--save', '', '--appendonly', 'no'],
        ...['--requirepass', password, '--masterauth', password],
        // as the controller renders it for Replicated pods (salvage sets dbfilename)
        ...['--enable-protected-configs', 'yes'],
      ],
      ports: [{ containerPort: port }],
      readinessProbe: { tcpSocket: { port }, periodSeconds: 1 },
    },
    { data: '/data', tmp: '/tmp' },
  );
}

const endpoint = (name: string, pw = password): RedisEndpoint => ({
  host: pods.ip(name),
  port,
  password: pw,
});

/** Every observation's error is kept in `errors`, to check none carries the password. */
const {
  observe,
  reachable,
  unreachable: untilUnreachable,
  errors,
} = observations(() => admin, endpoint);

/** Waits until `name` is a replica of `primary` with the link up. */
const replicating = (name: string, primary: string) =>
  eventually(
    async () => {
      const o = await reachable(name);
      const link = o.primary;
      if (o.role !== 'replica' || !link || o.syncInProgress) return undefined;
      return link.host === pods.ip(primary) && link.port === port && link.linkUp && o;
    },
    { timeoutMs: 60_000, description: `${name} replicating from ${primary} with the link up` },
  );

const signal = pods.signal;

/** A plain client of our own, for writes the admin layer never makes. */
function dataClient(name: string): Redis {
  const client = new Redis({
    ...endpoint(name),
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  return client;
}

describe('redisAdmin on real redis 7.0 pods', () => {
  let freshReplId = '';

  it('observes every fresh pod as a primary without replicas, redis 7.0.15', async () => {
    for (const name of ['r0', 'r1', 'r2']) {
      const o = await eventually(() => reachable(name), {
        timeoutMs: 30_000,
        description: `${name} observed`,
      });
      expect(o).toMatchObject({
        role: 'primary',
        replicas: [],
        loading: false,
        syncInProgress: false,
        engine: 'redis',
        version: '7.0.15',
        persistence: { aofEnabled: false },
      });
      expect(o.runId).toMatch(/^[0-9a-f]{40}$/);
      expect(o.replId).toMatch(/^[0-9a-f]{40}$/);
      expect(o.primary).toBeUndefined();
      expect(o.memory.used).toBeGreaterThan(0);
      expect(o.memory.max).toBe(0);
      expect(o.persistence.rdbLastSaveTime).toBeGreaterThan(0);
    }
    freshReplId = (await reachable('r0')).replId;
  });

  it('makes two pods replicas of the first: link up, and the primary lists both', async () => {
    await admin.replicaOf(endpoint('r1'), { host: pods.ip('r0'), port });
    await admin.replicaOf(endpoint('r2'), { host: pods.ip('r0'), port });
    const replicas = [await replicating('r1', 'r0'), await replicating('r2', 'r0')];
    const primary = await eventually(
      async () => {
        const o = await reachable('r0');
        return o.replicas.length === 2 && o.replicas.every((r) => r.state === 'online') && o;
      },
      { timeoutMs: 60_000, description: 'r0 listing 2 online replicas' },
    );
    // a primary without a backlog starts a new history when its first replica attaches; the
    // replicas take it over
    expect(primary.replId).not.toBe(freshReplId);
    for (const replica of replicas) expect(replica.replId).toBe(primary.replId);
    expect(primary.role).toBe('primary');
    expect(primary.replicas.map((r) => r.host).sort()).toEqual(
      [pods.ip('r1'), pods.ip('r2')].sort(),
    );
    expect(primary.replicas.map((r) => r.port)).toEqual([port, port]);
  });

  it('treats replicaOf the primary a replica already follows as a no-op (no new sync)', async () => {
    const before = await replicating('r1', 'r0');
    await admin.replicaOf(endpoint('r1'), { host: pods.ip('r0'), port });
    const after = await reachable('r1');
    expect(after).toMatchObject({
      role: 'replica',
      runId: before.runId,
      replId: before.replId,
      primary: { host: pods.ip('r0'), port, linkUp: true },
      syncInProgress: false,
    });
  });

  it('sees the replicas reach the offset of the primary after writes', async () => {
    const before = await reachable('r0');
    const client = dataClient('r0');
    try {
      await client.connect();
      const pipeline = client.pipeline();
      for (let i = 0; i < 500; i++) pipeline.set(`key:${i}`, `value-${i}-${'x'.repeat(64)}`);
      await pipeline.exec();
    } finally {
      client.disconnect();
    }
    const converged = await eventually(
      async () => {
        const [p, a, b] = await Promise.all([reachable('r0'), reachable('r1'), reachable('r2')]);
        return (
          p.offset > before.offset &&
          a.offset === p.offset &&
          b.offset === p.offset &&
          p.replicas.every((r) => r.offset === p.offset) && { p, a, b }
        );
      },
      { timeoutMs: 60_000, description: 'both replicas at the primary offset' },
    );
    // 500 SETs of ~80 bytes each are well over 40 kB of replication stream
    expect(converged.p.offset - before.offset).toBeGreaterThan(40_000);
    const replica = dataClient('r2');
    try {
      await replica.connect();
      expect(await replica.get('key:499')).toBe(`value-499-${'x'.repeat(64)}`);
    } finally {
      replica.disconnect();
    }
  });

  it('promotes a replica: primary with a new replication id, and can repoint the others to it', async () => {
    const before = await reachable('r1');
    await admin.promote(endpoint('r1'));
    const promoted = await eventually(
      async () => {
        const o = await reachable('r1');
        return o.role === 'primary' && o;
      },
      { timeoutMs: 30_000, description: 'r1 a primary' },
    );
    expect(promoted.replId).not.toBe(before.replId);
    expect(promoted.runId).toBe(before.runId);
    expect(promoted.primary).toBeUndefined();
    expect(promoted.offset).toBeGreaterThanOrEqual(before.offset);
    // promoting a primary changes nothing
    await admin.promote(endpoint('r1'));
    expect((await reachable('r1')).replId).toBe(promoted.replId);

    // fence the old primary and move the other replica: both follow r1, which lists them
    await admin.replicaOf(endpoint('r2'), { host: pods.ip('r1'), port });
    await admin.replicaOf(endpoint('r0'), { host: pods.ip('r1'), port });
    await replicating('r2', 'r1');
    const old = await replicating('r0', 'r1');
    expect(old.replId).toBe(promoted.replId);
    await eventually(
      async () => {
        const o = await reachable('r1');
        return o.replicas.length === 2 && o.replicas.every((r) => r.state === 'online');
      },
      { timeoutMs: 60_000, description: 'r1 listing 2 online replicas' },
    );
  });

  it('reports a SIGSTOPped node unreachable (it answers nothing), and observes it again once continued', async () => {
    const before = await reachable('r0');
    await signal('r0', 'SIGSTOP');
    try {
      const stopped = await observe(endpoint('r0'));
      expect(stopped.reachable).toBe(false);
      expect(!stopped.reachable && stopped.error).toMatch(/no reply within/);
      // still unreachable on a fresh connection: the kernel accepts it, the server never answers
      const again = await observe(endpoint('r0'));
      expect(!again.reachable && again.error).toMatch(/no reply within|timed out/);
      // the other pods are unaffected
      expect((await reachable('r1')).role).toBe('primary');
    } finally {
      await signal('r0', 'SIGCONT');
    }
    const back = await eventually(() => reachable('r0'), {
      timeoutMs: 30_000,
      description: 'r0 observed again after SIGCONT',
    });
    expect(back.runId).toBe(before.runId);
  });

  it('observes a crashed and restarted server again, with a new run id', async () => {
    const before = await reachable('r2');
    await signal('r2', 'SIGKILL');
    const restarted = await eventually(
      async () => {
        const o = await observe(endpoint('r2'));
        return o.reachable && o.runId !== before.runId && o;
      },
      { timeoutMs: 120_000, description: 'r2 back with a new run id' },
    );
    // no persistence and no config file: it comes back as an empty primary
    expect(restarted.role).toBe('primary');
  });

  it('reports a deleted pod, and a closed port on the host, unreachable', async () => {
    const gone = endpoint('r2');
    await pods.delete('r2');
    const unreachable = await untilUnreachable(gone, 'the deleted pod unreachable');
    expect(unreachable.error).toMatch(/connect|closed|EHOSTUNREACH|ECONNREFUSED|no reply/);

    const closedPort = await freePort(pods.tier.hostAddress);
    const refused = await observe({ host: pods.tier.hostAddress, port: closedPort, password });
    expect(refused).toEqual({ reachable: false, error: expect.stringMatching(/ECONNREFUSED/) });
    await expect(
      admin.promote({ host: pods.tier.hostAddress, port: closedPort, password }),
    ).rejects.toThrow(RedisAdminError);
  });

  it('reports a wrong or missing password as an authentication failure, and the right one works again', async () => {
    const wrong = await observe(endpoint('r1', `${password}-wrong`));
    expect(wrong.reachable).toBe(false);
    expect(!wrong.reachable && wrong.error).toMatch(/authentication failed/);
    expect(!wrong.reachable && wrong.error).toMatch(/WRONGPASS/);

    const missing = await observe(endpoint('r1', ''));
    expect(!missing.reachable && missing.error).toMatch(/authentication failed.*NOAUTH/);

    const error = await admin.replicaOf(endpoint('r1', 'nope'), { host: pods.ip('r0'), port }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisAdminError);
    expect((error as RedisAdminError).kind).toBe('auth');

    expect((await reachable('r1')).role).toBe('primary');
  });

  it('FAILOVER that the replica cannot catch up with pauses writes until its timeout, then the primary resumes them', async () => {
    await replicating('r0', 'r1');
    const client = dataClient('r1');
    await client.connect();
    try {
      await signal('r0', 'SIGSTOP');
      try {
        // The replica misses these: FAILOVER waits for it to have them, and it never does.
        for (let i = 0; i < 50; i++) await client.set(`paused:${i}`, `v${i}`);
        await expect(
          admin.failover(endpoint('r1'), { host: pods.ip('r0'), port }, 2000),
        ).resolves.toBe('started');
        const waiting = await reachable('r1');
        expect(waiting).toMatchObject({ role: 'primary', failoverState: 'waiting-for-sync' });
        // Sent again while one is under way: nothing to do.
        await expect(
          admin.failover(endpoint('r1'), { host: pods.ip('r0'), port }, 2000),
        ).resolves.toBe('inProgress');
        // A write is not acknowledged while writes are paused, then is, on the primary.
        const started = Date.now();
        const blocked = new Redis({
          ...endpoint('r1'),
          maxRetriesPerRequest: 0,
          retryStrategy: () => null,
        });
        blocked.on('error', () => undefined);
        try {
          expect(await blocked.set('after-abort', 'yes')).toBe('OK');
        } finally {
          blocked.disconnect();
        }
        expect(Date.now() - started).toBeGreaterThan(500);
        const resumed = await eventually(
          async () => {
            const o = await reachable('r1');
            return o.role === 'primary' && o.failoverState === undefined && o;
          },
          { timeoutMs: 30_000, description: 'r1 primary again, no FAILOVER under way' },
        );
        expect(resumed.replicas.map((r) => r.host)).toContain(pods.ip('r0'));
      } finally {
        await signal('r0', 'SIGCONT');
      }
    } finally {
      client.disconnect();
    }
  });

  it('hands the primary role over with FAILOVER TO a caught-up replica: it serves with every write, the old primary follows it', async () => {
    await failsOver('r1', 'r0', 'redis');
    // On a replica FAILOVER is refused: a command error naming the node.
    const error = await admin.failover(endpoint('r1'), { host: pods.ip('r0'), port }, 1000).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RedisAdminError);
    expect((error as RedisAdminError).kind).toBe('command');
    expect((error as Error).message).toContain(`on ${pods.ip('r1')}:${port} failed`);
  });
});

/**
 * `primary` hands over to `replica` (linked to it) with FAILOVER while a client wrote to it: the
 * replica serves as primary holding every acknowledged write, the old primary is its replica.
 */
async function failsOver(primary: string, replica: string, engine: 'redis' | 'valkey') {
  await replicating(replica, primary);
  const client = dataClient(primary);
  await client.connect();
  let acked = 0;
  try {
    for (; acked < 300; acked++) await client.set(`handover:${acked}`, `v${acked}`);
  } finally {
    client.disconnect();
  }
  const before = await reachable(primary);
  expect(await admin.failover(endpoint(primary), { host: pods.ip(replica), port }, 5000)).toBe(
    'started',
  );
  const promoted = await eventually(
    async () => {
      const o = await reachable(replica);
      return o.role === 'primary' && o;
    },
    { timeoutMs: 30_000, description: `${replica} primary after FAILOVER` },
  );
  expect(promoted.engine).toBe(engine);
  expect(promoted.offset).toBeGreaterThanOrEqual(before.offset);
  const old = await replicating(primary, replica);
  expect(old.failoverState).toBeUndefined();
  const reader = dataClient(replica);
  await reader.connect();
  try {
    const values = await reader.mget(...Array.from({ length: acked }, (_, i) => `handover:${i}`));
    expect(values.filter((v, i) => v !== `v${i}`)).toEqual([]);
    expect(await reader.set('handover:after', 'yes')).toBe('OK');
  } finally {
    reader.disconnect();
  }
}

describe.each([
  { engine: 'redis', version: '8.0.2', primary: 'e0', replica: 'e1' },
  { engine: 'valkey', version: '8.1.1', primary: 'v0', replica: 'v1' },
] as const)('redisAdmin on real $engine $version pods', ({ engine, version, primary, replica }) => {
  it(`observes ${engine} ${version}, and replicates one pod from the other`, async () => {
    const p = await eventually(() => reachable(primary), {
      timeoutMs: 30_000,
      description: `${primary} observed`,
    });
    expect(p).toMatchObject({ role: 'primary', engine, version, replicas: [], loading: false });
    await admin.replicaOf(endpoint(replica), { host: pods.ip(primary), port });
    const r = await replicating(replica, primary);
    expect(r).toMatchObject({ role: 'replica', engine, version });
    const listed = await eventually(
      async () => {
        const o = await reachable(primary);
        return o.replicas.length === 1 && o.replicas[0]!.state === 'online' && o;
      },
      { timeoutMs: 60_000, description: `${primary} listing ${replica}` },
    );
    expect(listed.replicas[0]).toMatchObject({ host: pods.ip(replica), port });
    // as with redis 7.0: a new history once the first replica attached, shared by the replica
    expect(listed.replId).not.toBe(p.replId);
    expect((await reachable(replica)).replId).toBe(listed.replId);
    await eventually(
      async () => {
        const [a, b] = await Promise.all([reachable(primary), reachable(replica)]);
        return a.offset === b.offset;
      },
      { timeoutMs: 60_000, description: `${replica} at ${primary}'s offset` },
    );
  });

  it(`hands the primary role over with FAILOVER TO on ${engine} ${version}`, async () => {
    await failsOver(primary, replica, engine);
  });

  it(`salvages a diverged old primary on ${engine} ${version}: its dataset saved as an RDB in its data directory, then a replica, its fence set as asked`, async () => {
    // After the handover `primary` follows `replica`: cut loose, it takes writes of its own.
    await admin.promote(endpoint(primary));
    const client = dataClient(primary);
    await client.connect();
    try {
      for (let i = 0; i < 100; i++) await client.set(`diverged:${i}`, `d${i}`);
    } finally {
      client.disconnect();
    }
    const before = await reachable(primary);
    expect(before.fence).toEqual({ minReplicas: 0, maxLagSeconds: 10 });
    const file = `salvage-test-${engine}.rdb`;
    const saved = await admin.salvageThenFollow(
      endpoint(primary),
      file,
      { host: pods.ip(replica), port },
      30_000,
      { minReplicas: 1, maxLagSeconds: 3 },
    );
    expect(saved.offset).toBeGreaterThanOrEqual(before.offset);
    const after = await replicating(primary, replica);
    expect(after.fence).toEqual({ minReplicas: 1, maxLagSeconds: 3 });
    // The file, in the pod's emptyDir on this host (the kubelet's root is under the tier's data).
    const pod = await pods.core.readNamespacedPod({ name: primary, namespace: pods.namespace });
    const found = execFileSync('find', [
      ...kubeletRoots(),
      '-path',
      `*${pod.metadata!.uid!}*`,
      '-name',
      file,
      '-size',
      '+0',
    ]).toString();
    expect(found.trim(), `${file} in ${primary}'s data directory`).not.toBe('');
    // Its own writes are gone from it now (a full resync), kept only in the file.
    const reader = dataClient(primary);
    await reader.connect();
    try {
      expect(await reader.get('diverged:0')).toBeNull();
    } finally {
      reader.disconnect();
    }
  });
});

describe('what the admin layer reports', () => {
  it('never puts the password in an error', () => {
    expect(errors.length).toBeGreaterThan(0);
    for (const error of errors) expect(error).not.toContain(password);
  });
});
