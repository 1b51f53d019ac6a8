// What the PostgresCluster benches share: the application's login through the read-write
// Service, a client committing numbered rows, and how a figure is printed.
import { Secrets, Services, type KubeClient, type KubeObject } from '@steward/kube';
import pg from 'pg';

/** The application role's login through `<name>-rw` (its ClusterIP), with the given timeouts. */
export async function appLogin(
  admin: KubeClient,
  ns: string,
  name: string,
  timeouts: { connectMs: number; queryMs?: number },
) {
  const secret = await admin.get<KubeObject & { data: Record<string, string> }>(
    Secrets,
    `${name}-app`,
    ns,
  );
  const data = (k: string) => Buffer.from(secret.data[k]!, 'base64').toString('utf8');
  const rw = await admin.get<KubeObject & { spec: { clusterIP: string } }>(
    Services,
    `${name}-rw`,
    ns,
  );
  return {
    host: rw.spec.clusterIP,
    port: 5432,
    user: data('username'),
    password: data('password'),
    database: data('database'),
    connectionTimeoutMillis: timeouts.connectMs,
    ...(timeouts.queryMs !== undefined ? { query_timeout: timeouts.queryMs } : {}),
  };
}

export type Login = Awaited<ReturnType<typeof appLogin>>;

/**
 * A client committing a numbered row (from `first` + 1 up) into `ledger` every 20 ms, reconnecting
 * on errors; `acked` holds (n, when) of each acknowledged one.
 */
export function startWriter(login: Login & { stream?: pg.ClientConfig['stream'] }, first = 0) {
  const acked: { n: number; at: number }[] = [];
  let stopped = false;
  const done = (async () => {
    let client: pg.Client | undefined;
    let n = first;
    while (!stopped) {
      try {
        if (!client) {
          client = new pg.Client(login);
          client.on('error', () => undefined);
          await client.connect();
        }
        const next = ++n;
        await client.query('INSERT INTO ledger (n) VALUES ($1)', [next]);
        acked.push({ n: next, at: performance.now() });
      } catch {
        await client?.end().catch(() => undefined);
        client = undefined;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    await client?.end().catch(() => undefined);
  })();
  return {
    acked,
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `1.6 s (0.9–1.9)`: the median and range of the figures given (`—` when none). */
export function seconds(xs: readonly (number | undefined)[]): string {
  const ys = xs.filter((x): x is number => x !== undefined);
  return ys.length === 0
    ? '—'
    : `${median(ys).toFixed(1)} s (${Math.min(...ys).toFixed(1)}–${Math.max(...ys).toFixed(1)})`;
}
