/**
 * Self-fencing (docs/design/fencing.md), the instance agent's half, against a real kube-apiserver:
 * the agent (instance-agent.sh under dash, with real curl) renews its cluster's Lease with a token
 * the API server issued to the instances' ServiceAccount, bound by the Role the controller renders
 * (`renderInstanceAccount`); PostgreSQL is the stub server of instance-agent.test.ts (it logs the
 * signal that stops it). What is proven:
 *
 * - a primary cut off from the API server (it is stopped) stops its server by itself before the
 *   Lease's duration has passed since its last renewal, and not long before; it does not start
 *   again while cut off, and starts again once the API server is back and the Lease still names it;
 * - a Lease taken for another pod (a failover) stops it within about a second, for good;
 * - the token can renew that one Lease and nothing else (RBAC of the real API server).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeClient, Leases, RoleBindings, Roles, ServiceAccounts } from '@steward/kube';
import { PostgresCluster } from '@steward/postgres-cluster-api';
import { controlPlaneSuite } from '@steward/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { renderInstanceAccount } from '../src/children/instance-account.js';
import { childNames } from '../src/children/names.js';
import { microTime, type LeaseObject } from '../src/fence/lease.js';

const namespace = 'fencing';
const cluster = 'orders';
const names = childNames(cluster);
const Pod = `${cluster}-0`;
const BoundSeconds = 5;
const shell = existsSync('/bin/dash') ? '/bin/dash' : '/bin/sh';
const here = import.meta.dirname;
const scriptPath = join(here, '..', 'src', 'children', 'instance-agent.sh');
const StubScript = readFileSync(join(here, 'fixtures', 'instance-agent-stub.sh'), 'utf8');
const Stubs = ['initdb', 'pg_basebackup', 'pg_rewind', 'postgres', 'psql', 'rclone'];

const api = controlPlaneSuite(
  { beforeAll, afterAll },
  { namespaces: [namespace] },
  (kubeConfig) => new KubeClient(kubeConfig, { fieldManager: 'fencing-agent-test' }),
);

for (const tool of ['curl', shell])
  if (!existsSync(tool) && !process.env.PATH?.split(':').some((d) => existsSync(join(d, tool))))
    throw new Error(`the fencing agent test needs ${tool} on PATH`);

let tokenDir: string;

beforeAll(async () => {
  const owner = {
    apiVersion: PostgresCluster.apiVersion,
    kind: 'PostgresCluster',
    metadata: { name: cluster, namespace },
    spec: { version: '17' },
  } as PostgresCluster;
  const account = renderInstanceAccount({
    cluster: owner,
    image: 'unused',
    storage: { size: '1Gi' },
  });
  await api.client.create(ServiceAccounts, account.serviceAccount as never);
  await api.client.create(Roles, account.role as never);
  await api.client.create(RoleBindings, account.roleBinding as never);
  // What the kubelet projects into the pod: a token of the instances' account, and the CA.
  const review = await api.client.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${namespace}/serviceaccounts/${names.instanceAccount}/token`,
    body: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    },
    verb: 'create',
  });
  tokenDir = mkdtempSync(join(tmpdir(), 'steward-fence-token-'));
  writeFileSync(join(tokenDir, 'token'), review.status.token);
  const ca = api.plane.kubeConfig.getCurrentCluster()?.caData;
  if (!ca) throw new Error('the control plane kubeconfig has no CA data');
  writeFileSync(join(tokenDir, 'ca.crt'), Buffer.from(ca, 'base64'));
});

afterAll(() => {
  if (tokenDir) rmSync(tokenDir, { recursive: true, force: true });
});

/** The Lease as the controller creates it, naming `holder`. */
async function lease(holder: string): Promise<LeaseObject> {
  const at = microTime(new Date());
  const existing = await api.client
    .get<LeaseObject>(Leases, names.lease, namespace)
    .catch(() => undefined);
  const spec = {
    holderIdentity: holder,
    leaseDurationSeconds: BoundSeconds,
    acquireTime: at,
    renewTime: at,
  };
  if (existing)
    return api.client.update<LeaseObject>(Leases, {
      ...existing,
      spec: { ...existing.spec, ...spec },
    });
  return api.client.create<LeaseObject>(Leases, {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: names.lease, namespace },
    spec,
  });
}
const renewTime = async () =>
  (await api.client.get<LeaseObject>(Leases, names.lease, namespace)).spec?.renewTime;

interface Agent {
  dir: string;
  stubs: string;
  process: ChildProcess;
  stderr: () => string;
}
const agents: Agent[] = [];

afterEach(() => {
  for (const agent of agents.splice(0)) {
    agent.process.kill('SIGKILL');
    // the agent's watchdog and a stub server it left running
    for (const pid of lines(join(agent.stubs, 'server.pids')))
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    try {
      process.kill(-agent.process.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
    rmSync(agent.dir, { recursive: true, force: true });
  }
});

const lines = (file: string) =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
const events = (agent: Agent) => lines(join(agent.stubs, 'events.log'));

/** The agent of a primary whose data directory exists, told `primary`, fencing with the Lease. */
function startPrimary(): Agent {
  const dir = mkdtempSync(join(tmpdir(), 'steward-fencing-agent-'));
  const bin = join(dir, 'bin');
  const stubs = join(dir, 'stubs');
  const pgdata = join(dir, 'data', 'pgdata');
  for (const d of [bin, stubs, pgdata, join(dir, 'pod')]) mkdirSync(d, { recursive: true });
  writeFileSync(join(pgdata, 'PG_VERSION'), '17\n');
  for (const name of Stubs) writeFileSync(join(bin, name), StubScript, { mode: 0o755 });
  // The stub server answers `select pg_is_in_recovery()` with f: a primary.
  writeFileSync(join(stubs, 'psql.in-recovery'), 'f\n');
  writeFileSync(join(dir, 'pod', 'instruction'), 'primary');
  const child = spawn(shell, [scriptPath], {
    cwd: dir,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      PGDATA: pgdata,
      POD_NAME: Pod,
      POSTGRES_PASSWORD: 'secret',
      STEWARD_INSTRUCTION_FILE: join(dir, 'pod', 'instruction'),
      STEWARD_RUN_DIR: join(dir, 'run'),
      STEWARD_TERMINATION_LOG: join(dir, 'termination-log'),
      STEWARD_LEASE: names.lease,
      STEWARD_NAMESPACE: namespace,
      STEWARD_API_URL: api.plane.server,
      STEWARD_TOKEN_DIR: tokenDir,
      STUB_DIR: stubs,
      STUB_NODE: process.execPath,
    },
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const agent = { dir, stubs, process: child, stderr: () => stderr };
  agents.push(agent);
  return agent;
}

async function until(
  agent: Agent,
  what: string,
  ready: () => boolean | Promise<boolean>,
  ms = 20_000,
) {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}; the agent said:\n${agent.stderr()}`);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the instance agent fences itself with its Lease (real API server, real curl)', () => {
  it('renews while it serves; cut off from the API server it stops PostgreSQL within the bound and stays stopped; back, it starts again', async () => {
    await lease(Pod);
    const agent = startPrimary();
    await until(agent, 'PostgreSQL started', () => events(agent).includes('ready'));
    // Renewed, again and again, by the pod's own token.
    const first = await renewTime();
    await until(agent, 'a renewal', async () => (await renewTime()) !== first, 5_000);
    const second = await renewTime();
    await until(agent, 'another renewal', async () => (await renewTime()) !== second, 5_000);
    expect(events(agent)).toEqual(['ready']);

    const cut = Date.now();
    await api.plane.stopApiServer();
    try {
      await until(agent, 'the fence', () => events(agent).includes('stopped by SIGINT'), 15_000);
      const fenced = (Date.now() - cut) / 1000;
      // The last renewal began at most ~1 s before the cut: stopped before the bound has run out
      // since it, and not before the margin (1.5 s) allows.
      expect(fenced).toBeLessThan(BoundSeconds);
      expect(fenced).toBeGreaterThan(BoundSeconds - 1.5 - 2);
      expect(agent.stderr()).toContain('fenced: no proof of the primary role');
      // Cut off, it does not start again.
      await sleep(2_000);
      expect(events(agent)).toEqual(['ready', 'stopped by SIGINT']);
      expect(agent.stderr()).toContain(
        `waiting for lease ${names.lease} before starting as primary`,
      );
    } finally {
      await api.plane.startApiServer();
    }
    // Back, and the Lease still names it (no failover happened): it starts again as primary.
    await until(
      agent,
      'PostgreSQL started again',
      () => events(agent).filter((e) => e === 'ready').length === 2,
    );
  }, 90_000);

  it('a Lease taken for another instance (a failover) stops it within about a second, for good', async () => {
    await lease(Pod);
    const agent = startPrimary();
    await until(agent, 'PostgreSQL started', () => events(agent).includes('ready'));
    const taken = Date.now();
    await lease(`${cluster}-1`);
    await until(agent, 'the fence', () => events(agent).includes('stopped by SIGINT'), 10_000);
    expect(Date.now() - taken).toBeLessThan(2_500);
    expect(agent.stderr()).toContain('is held by another instance');
    await sleep(2_500);
    expect(events(agent)).toEqual(['ready', 'stopped by SIGINT']);
  }, 60_000);

  it("the instances' token renews that one Lease and can do nothing else", async () => {
    await lease(Pod);
    const token = readFileSync(join(tokenDir, 'token'), 'utf8');
    const ca = readFileSync(join(tokenDir, 'ca.crt'));
    const as = (path: string, method = 'GET', body?: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(path, api.plane.server);
        const req = request(
          url,
          {
            method,
            ca,
            headers: {
              authorization: `Bearer ${token}`,
              ...(body ? { 'content-type': 'application/json-patch+json' } : {}),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const leases = `/apis/coordination.k8s.io/v1/namespaces/${namespace}`;
    const patch = JSON.stringify([
      { op: 'add', path: '/spec/renewTime', value: microTime(new Date()) },
    ]);
    expect(await as(`${leases}/leases/${names.lease}`)).toBe(200);
    expect(await as(`${leases}/leases/${names.lease}`, 'PATCH', patch)).toBe(200);
    expect(await as(`${leases}/leases/someone-elses-primary`)).toBe(403);
    expect(await as(`${leases}/leases`)).toBe(403);
    expect(await as(`/api/v1/namespaces/${namespace}/secrets`)).toBe(403);
    expect(await as(`/api/v1/namespaces/${namespace}/pods`)).toBe(403);
    expect(await as(`${leases}/leases/${names.lease}`, 'DELETE')).toBe(403);
  });
});
