/**
 * What the CacheCluster e2e suites do as a Redis client, apart from the controller: connect with
 * bounded timeouts and no retries of ioredis' own, ask a server what it is (`INFO`, `ROLE`), and
 * write numbered keys through a Service the way an application would — reconnecting on any error
 * — keeping every acknowledgement, to count afterwards what a failover or switchover lost.
 */
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';

/** A client that fails fast: no offline queue, no retries, no reconnects of its own. */
export const connect = (host: string, password: string, timeoutMs = 1000): Redis => {
  const client = new Redis({
    host,
    port: 6379,
    password,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
  });
  client.on('error', () => undefined);
  return client;
};

export async function withRedis<T>(host: string, password: string, work: (c: Redis) => Promise<T>) {
  const client = connect(host, password);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

export const infoField = (info: string, field: string) =>
  new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();

/** What a server says of itself: `INFO server` + `INFO replication` + `ROLE`. */
export interface Seen {
  runId: string;
  role: string;
  masterHost?: string;
  linkUp?: boolean;
}

export const seenAt = (host: string, password: string): Promise<Seen> =>
  withRedis(host, password, async (c) => {
    const [server, replication, role] = await Promise.all([
      c.info('server'),
      c.info('replication'),
      c.call('ROLE') as Promise<unknown[]>,
    ]);
    const masterHost = infoField(replication, 'master_host');
    return {
      runId: infoField(server, 'run_id') ?? '',
      role: String(role[0]),
      ...(masterHost ? { masterHost } : {}),
      ...(role[0] === 'slave'
        ? { linkUp: infoField(replication, 'master_link_status') === 'up' }
        : {}),
    };
  });

/** The bytes `SET key value` takes in the replication stream (RESP, as propagated). */
const bulk = (s: string) => `$${Buffer.byteLength(s)}\r\n${s}\r\n`;
export const streamBytes = (key: string, value: string) =>
  Buffer.byteLength(`*3\r\n${bulk('SET')}${bulk(key)}${bulk(value)}`);

export interface Ack {
  key: string;
  value: string;
  /** Date.now() when the acknowledgement arrived (the controller runs on this host's clock). */
  at: number;
  /** The run id of the server whose connection acknowledged it. */
  runId: string;
}

/**
 * A client writing numbered keys through `host` (the read-write Service's ClusterIP) one after
 * another, reconnecting on any error (a refused or reset connection, READONLY from a fenced or
 * demoted server, a timeout): a new connection goes to wherever kube-proxy sends it now. Each
 * connection asks its server's run id first, so each acknowledgement says which server gave it.
 */
export function startWriter(host: string, password: string, prefix: string) {
  const acks: Ack[] = [];
  let failures = 0;
  let stopped = false;
  let n = 0;
  const done = (async () => {
    let client: Redis | undefined;
    let runId = '';
    while (!stopped) {
      try {
        if (!client) {
          client = connect(host, password, 500);
          await client.connect();
          runId = infoField(await client.info('server'), 'run_id') ?? '';
        }
        const key = `${prefix}:${String(n++).padStart(7, '0')}`;
        const value = `${key}:${'x'.repeat(40)}`;
        await client.set(key, value);
        acks.push({ key, value, at: Date.now(), runId });
        await sleep(2);
      } catch {
        failures++;
        client?.disconnect();
        client = undefined;
        await sleep(20);
      }
    }
    client?.disconnect();
  })();
  return {
    acks,
    failures: () => failures,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** The acknowledged writes the server at `host` does not hold (read back in batches). */
export async function missingAt(host: string, password: string, acks: Ack[]): Promise<Ack[]> {
  const values = await withRedis(host, password, async (c) => {
    const all: (string | null)[] = [];
    for (let i = 0; i < acks.length; i += 500)
      all.push(...(await c.mget(...acks.slice(i, i + 500).map((a) => a.key))));
    return all;
  });
  return acks.filter((a, i) => values[i] !== a.value);
}

/** The longest time between two consecutive acknowledgements: how long writes were refused. */
export const longestGap = (acks: { at: number }[]) =>
  acks.reduce((gap, a, i) => (i === 0 ? 0 : Math.max(gap, a.at - acks[i - 1]!.at)), 0);
