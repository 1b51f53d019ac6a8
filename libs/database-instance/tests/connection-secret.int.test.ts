import { DatabaseInstance } from '@steward/database-instance-api';
import { KubeClient, Namespaces, Secrets, type KubeObject } from '@steward/kube';
import { startControlPlane, type ControlPlane } from '@steward/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectionSecretName,
  ensureMasterPassword,
  masterUsername,
  publishEndpoint,
} from '../src/connection-secret.js';

let plane: ControlPlane;
let client: KubeClient;
const ns = 'secrets';

beforeAll(async () => {
  plane = await startControlPlane();
  client = new KubeClient(plane.kubeConfig, { fieldManager: 'test' });
  await client.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterAll(async () => {
  await client?.close();
  await plane?.stop();
});

const instance = (name: string, spec: Partial<DatabaseInstance['spec']> = {}): DatabaseInstance =>
  ({
    apiVersion: DatabaseInstance.apiVersion,
    kind: 'DatabaseInstance',
    metadata: { name, namespace: ns, uid: `uid-${name}` },
    spec: {
      providerProfileRef: { name: 'aws' },
      engine: 'postgres',
      version: '16',
      size: 'small',
      storageGiB: 20,
      deletionPolicy: 'Retain',
      ...spec,
    },
  }) as DatabaseInstance;

type Secret = KubeObject & { data?: Record<string, string> };
const decode = (s: string | undefined) => Buffer.from(s ?? '', 'base64').toString('utf8');

describe('the connection Secret', () => {
  it('stores a generated password before it is handed out, and hands out the same one afterwards', async () => {
    const db = instance('orders', { writeConnectionSecretToRef: { name: 'orders-db' } });
    const first = await ensureMasterPassword(client, db);
    expect(first.length).toBeGreaterThanOrEqual(32);
    const secret = await client.get<Secret>(Secrets, 'orders-db', ns);
    expect(decode(secret.data?.password)).toBe(first);
    expect(decode(secret.data?.username)).toBe(masterUsername);
    expect(await ensureMasterPassword(client, db)).toBe(first);
  });

  it('survives the object with deletionPolicy Retain (no owner), and is owned with Delete', async () => {
    await ensureMasterPassword(client, instance('kept'));
    expect(
      (await client.get<Secret>(Secrets, 'kept-connection', ns)).metadata.ownerReferences,
    ).toBeUndefined();
    await ensureMasterPassword(client, instance('doomed', { deletionPolicy: 'Delete' }));
    expect(
      (await client.get<Secret>(Secrets, 'doomed-connection', ns)).metadata.ownerReferences?.[0],
    ).toMatchObject({
      kind: 'DatabaseInstance',
      name: 'doomed',
    });
  });

  it('publishes host and port, writing only when they change', async () => {
    const db = instance('endpoint');
    await ensureMasterPassword(client, db);
    expect(await publishEndpoint(client, db, { host: 'db.example', port: 5432 })).toBe(true);
    expect(await publishEndpoint(client, db, { host: 'db.example', port: 5432 })).toBe(false);
    const secret = await client.get<Secret>(Secrets, connectionSecretName(db), ns);
    expect(decode(secret.data?.host)).toBe('db.example');
    expect(decode(secret.data?.port)).toBe('5432');
  });

  it('concurrent first calls agree on one password', async () => {
    const db = instance('racy');
    const passwords = await Promise.all([
      ensureMasterPassword(client, db),
      ensureMasterPassword(client, db),
      ensureMasterPassword(client, db),
    ]);
    const stored = decode(
      (await client.get<Secret>(Secrets, 'racy-connection', ns)).data?.password,
    );
    // every caller that returned a value other than the stored one would open nothing
    expect(passwords.filter((p) => p === stored).length).toBe(3);
  });
});
