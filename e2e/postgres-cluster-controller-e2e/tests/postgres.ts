/**
 * What the postgres-cluster-controller e2e suites do to and read from PostgresClusters, their pods
 * and their databases: create, read and wait on the objects; log in as the application role
 * (through the read-write Service's ClusterIP) or as the superuser (on one pod's IP); and a client
 * committing numbered rows continuously, so that a failover's real losses can be counted.
 */
import { findCondition } from '@steward/conditions';
import { childNames, Labels, type Pod } from '@steward/postgres-cluster';
import { PostgresCluster, type PostgresClusterSpec } from '@steward/postgres-cluster-api';
import {
  Events,
  isNotFound,
  Pods,
  Secrets,
  Services,
  type KubeClient,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { eventually } from '@steward/testing';
import { startMoto, type Moto } from '@steward/testing-backends';
import { type NodeTier } from '@steward/testing-node-tier';
import { ProviderProfile } from '@steward/provider-profile-api';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

export const Kind = PostgresCluster.resourceType;

/**
 * A bucket the pods reach: moto's S3 API on the node tier's host address, `bucket` created in it,
 * and the Secret `backup-credentials` in `namespace` holding its keys. `s3` is a client of it for
 * the test (closed by `stop`).
 */
export async function backupBucket(
  tier: NodeTier,
  admin: KubeClient,
  namespace: string,
  bucket: string,
) {
  const moto: Moto = await startMoto({ host: tier.hostAddress });
  const s3 = new S3Client({
    endpoint: moto.endpoint,
    region: moto.region,
    credentials: moto.credentials,
    forcePathStyle: true,
  });
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  await admin.create(Secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'backup-credentials', namespace },
    stringData: {
      AWS_ACCESS_KEY_ID: moto.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: moto.credentials.secretAccessKey,
    },
  } as KubeObject);
  return {
    moto,
    s3,
    destination: {
      bucket,
      endpoint: moto.endpoint,
      credentialsSecretRef: { name: 'backup-credentials' },
    },
    async stop() {
      s3.destroy();
      await moto.stop();
    },
  };
}

/**
 * A kubernetes ProviderProfile `name` for `namespace` whose PostgresClusters may name backup
 * destinations of their own on `endpoint` (allowWorkloadDestinations, allowedEndpoints): the
 * controller connects only to endpoints a profile names, so the suites that back up to moto make
 * it their chart's defaultProviderProfile. `images`: the catalogue (engine postgres).
 */
export async function workloadBackupsProfile(
  admin: KubeClient,
  name: string,
  namespace: string,
  endpoint: string,
  images: { version: string; image: string }[],
): Promise<string> {
  await admin.create<ProviderProfile>(ProviderProfile.resourceType, {
    apiVersion: ProviderProfile.apiVersion,
    kind: 'ProviderProfile',
    metadata: { name },
    spec: {
      provider: 'kubernetes',
      namespaces: [namespace],
      kubernetes: {
        images: images.map((i) => ({ engine: 'postgres', ...i })),
        backup: { allowWorkloadDestinations: true, allowedEndpoints: [endpoint] },
      },
    },
  } as ProviderProfile);
  return name;
}

export const long = { timeoutMs: 240_000 };

export interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { kind?: string; name?: string };
  reportingController?: string;
  series?: { count?: number };
}
interface PodSpec {
  containers: {
    name: string;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  }[];
}
export type FullPod = Pod & { spec?: PodSpec };

export interface Login {
  host: string;
  user: string;
  password: string;
  database: string;
}

export /** 0/0 → the number of bytes of WAL an LSN (`X/Y`) is from the start. */
const lsnBytes = (lsn: string): bigint => {
  const [hi, lo] = lsn.split('/') as [string, string];
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
};

export /** One statement on a fresh connection. */
async function query<T = Record<string, unknown>>(
  login: Login,
  sql: string,
  values: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ ...login, port: 5432, connectionTimeoutMillis: 3000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The suite's admin client and namespace, filled in by its beforeAll. */
export interface SuiteContext {
  admin: KubeClient;
  ns: string;
}

/** The helpers, bound to the suite's admin client and namespace. */
export function postgresHelpers(ctx: SuiteContext) {
  const create = (name: string, spec: PostgresClusterSpec) =>
    ctx.admin.create<PostgresCluster>(Kind, {
      apiVersion: PostgresCluster.apiVersion,
      kind: 'PostgresCluster',
      metadata: { name, namespace: ctx.ns },
      spec,
    } as PostgresCluster);
  const read = (name: string) => ctx.admin.get<PostgresCluster>(Kind, name, ctx.ns);
  const patchSpec = (name: string, spec: Record<string, unknown>) =>
    ctx.admin.mergePatch<PostgresCluster>(Kind, name, ctx.ns, { spec });

  /** Ready=True for the object's generation, every instance ready, and `extra`. */
  const ready = (name: string, extra: (o: PostgresCluster) => boolean = () => true) =>
    eventually(
      async () => {
        const obj = await read(name);
        const cond = findCondition(obj.status?.conditions, 'Ready');
        return cond?.status === 'True' &&
          cond.observedGeneration === obj.metadata.generation &&
          obj.status?.observedGeneration === obj.metadata.generation &&
          obj.status?.readyReplicas === obj.spec.replicas &&
          extra(obj)
          ? obj
          : undefined;
      },
      { description: `${name} Ready`, ...long },
    );

  /** Ready=False with `reason`, for the object's generation. */
  const refused = (name: string, reason: string) =>
    eventually(
      async () => {
        const obj = await read(name);
        const cond = findCondition(obj.status?.conditions, 'Ready');
        return cond?.status === 'False' &&
          cond.reason === reason &&
          cond.observedGeneration === obj.metadata.generation
          ? obj
          : undefined;
      },
      { description: `${name} Ready=False ${reason}` },
    );

  const secretOf = async (name: string) => {
    const secret = await ctx.admin.get<KubeObject & { data: Record<string, string> }>(
      Secrets,
      name,
      ctx.ns,
    );
    return Object.fromEntries(
      Object.entries(secret.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
    );
  };
  const getPod = (name: string) => ctx.admin.get<FullPod>(Pods, name, ctx.ns);
  const podIp = async (name: string) => (await getPod(name)).status?.podIP ?? '';
  const serviceIp = async (service: string) =>
    (await ctx.admin.get<KubeObject & { spec: { clusterIP: string } }>(Services, service, ctx.ns))
      .spec.clusterIP;

  /** The application role of `name` (its Secret) through its read-write Service's ClusterIP. */
  async function appLogin(name: string): Promise<Login> {
    const app = await secretOf(childNames(name).appSecret);
    return {
      host: await serviceIp(childNames(name).readWrite),
      user: app['username']!,
      password: app['password']!,
      database: app['database']!,
    };
  }
  /** The superuser on one pod, in `database` (the application's tables are in its own). */
  const superuserAt = async (name: string, pod: string, database = 'postgres'): Promise<Login> => ({
    host: await podIp(pod),
    user: 'postgres',
    password: (await secretOf(childNames(name).superuserSecret))['password']!,
    database,
  });

  const eventsOf = async (name: string, reason: string) =>
    (await ctx.admin.list<Event>(Events, { namespace: ctx.ns })).items.filter(
      (e) =>
        e.regarding?.kind === 'PostgresCluster' && e.regarding.name === name && e.reason === reason,
    );
  const eventNamed = (name: string, reason: string, note: RegExp) =>
    eventually(
      async () => {
        const seen = await eventsOf(name, reason);
        const found = seen.find((e) => note.test(e.note ?? ''));
        if (!found)
          throw new Error(`${reason} Events about ${name}: ${seen.map((e) => e.note).join(' | ')}`);
        return found;
      },
      { description: `Event ${reason} about ${name} saying ${note}` },
    );

  const exists = (kind: ResourceType, name: string) =>
    ctx.admin.get(kind, name, ctx.ns).then(
      () => true,
      (e: unknown) => (isNotFound(e) ? false : Promise.reject(e)),
    );

  /**
   * A client committing numbered rows one at a time through the read-write Service, reconnecting
   * whenever the connection fails. `acked` are the rows whose COMMIT it saw succeed, each with the
   * WAL insert position just before its commit record and when the acknowledgement came
   * (`Date.now()`); `uncertain` those whose outcome it never
   * learnt (the connection broke during the statement).
   */
  function startWriter(name: string) {
    const acked: { n: number; lsn: string; at: number }[] = [];
    const uncertain: number[] = [];
    let stopped = false;
    let failures = 0;
    const done = (async () => {
      let n = 0;
      while (!stopped) {
        const login = await appLogin(name).catch(() => undefined);
        if (!login) {
          await sleep(200);
          continue;
        }
        const client = new pg.Client({
          ...login,
          port: 5432,
          connectionTimeoutMillis: 2000,
          query_timeout: 3000,
        });
        client.on('error', () => undefined);
        try {
          await client.connect();
        } catch {
          failures++;
          await client.end().catch(() => undefined);
          await sleep(200);
          continue;
        }
        while (!stopped) {
          const next = ++n;
          try {
            const { rows } = await client.query<{ lsn: string }>(
              'INSERT INTO ledger (n) VALUES ($1) RETURNING pg_current_wal_insert_lsn()::text AS lsn',
              [next],
            );
            acked.push({ n: next, lsn: rows[0]!.lsn, at: Date.now() });
          } catch {
            uncertain.push(next);
            failures++;
            break;
          }
        }
        await client.end().catch(() => undefined);
      }
    })();
    return {
      acked,
      uncertain,
      failures: () => failures,
      async stop() {
        stopped = true;
        await done;
      },
    };
  }

  /** A cluster created and Ready with a ledger table, and a writer committing to it. */
  async function readyWithLedger(name: string, spec: PostgresClusterSpec) {
    await create(name, spec);
    const before = await ready(name);
    const login = await appLogin(name);
    await eventually(
      () =>
        query(login, 'CREATE TABLE IF NOT EXISTS ledger (n int PRIMARY KEY, pad text)').then(
          () => true,
          () => false,
        ),
      { description: `${name}-rw answering`, timeoutMs: 30_000 },
    );
    const writer = startWriter(name);
    await eventually(() => writer.acked.length >= 100, {
      description: `${name}: the writer committing`,
      timeoutMs: 30_000,
    });
    return { before, writer };
  }

  /**
   * Ready with every instance ready on `timeline`, `primary` the primary in status, in the pods'
   * role labels and in PostgreSQL itself (exactly one instance out of recovery).
   */
  async function settledOn(name: string, primary: string, timeline: number) {
    const after = await ready(name, (o) =>
      (o.status?.instances ?? []).every((i) => i.ready && i.timeline === timeline),
    );
    if (after.status?.primary !== primary)
      throw new Error(`${name}: primary ${after.status?.primary}, expected ${primary}`);
    for (const i of after.status!.instances!) {
      const role = i.name === primary ? 'primary' : 'standby';
      if (i.role !== role)
        throw new Error(`${name}: ${i.name} is ${i.role} in status, not ${role}`);
    }
    const pods = (
      await ctx.admin.list<Pod>(Pods, {
        namespace: ctx.ns,
        labelSelector: `${Labels.cluster}=${name}`,
      })
    ).items;
    const labelled = pods
      .filter((p) => p.metadata.labels?.[Labels.role] === 'primary')
      .map((p) => p.metadata.name);
    if (labelled.join() !== primary)
      throw new Error(`${name}: pods labelled primary: ${labelled.join(', ')}`);
    // Asked until every one answers: an instance may still be restarting onto the new timeline a
    // moment after status last saw it ready ("the database system is shutting down", seen in CI).
    const inRecovery = await eventually(
      async () => {
        const seen: Record<string, boolean> = {};
        for (const p of pods) {
          const rows = await query<{ r: boolean }>(
            await superuserAt(name, p.metadata.name!),
            'SELECT pg_is_in_recovery() AS r',
          );
          seen[p.metadata.name!] = rows[0]!.r;
        }
        return seen;
      },
      { description: `${name}: every instance answering`, timeoutMs: 60_000 },
    );
    const primaries = Object.entries(inRecovery)
      .filter(([, r]) => !r)
      .map(([p]) => p);
    if (primaries.join() !== primary)
      throw new Error(`${name}: out of recovery: ${primaries.join(', ') || 'none'}`);
    return after;
  }

  /**
   * Acknowledged rows missing on the serving primary. Only the rows acknowledged before the read
   * count: a writer still running acknowledges more while the SELECT is under way, and those are
   * not in its snapshot without being lost.
   */
  async function lostRows<R extends { n: number }>(name: string, live: R[]): Promise<R[]> {
    const acked = live.slice();
    // Through the read-write Service, once it routes to the serving primary (kube-proxy follows
    // the role label a moment after status says Ready).
    const rows = await eventually(
      async () => query<{ n: number }>(await appLogin(name), 'SELECT n FROM ledger'),
      { description: `${name}-rw answering`, timeoutMs: 30_000 },
    );
    const present = new Set(rows.map((r) => r.n));
    return acked.filter((r) => !present.has(r.n));
  }

  /** Deleted, and gone (its finalizer done). */
  async function remove(name: string) {
    await ctx.admin.delete(Kind, name, ctx.ns);
    await eventually(
      () =>
        read(name).then(
          () => false,
          () => true,
        ),
      { description: `${name} gone`, ...long },
    );
  }

  return {
    create,
    read,
    patchSpec,
    ready,
    refused,
    secretOf,
    getPod,
    podIp,
    serviceIp,
    appLogin,
    superuserAt,
    eventsOf,
    eventNamed,
    exists,
    startWriter,
    readyWithLedger,
    settledOn,
    lostRows,
    remove,
  };
}
