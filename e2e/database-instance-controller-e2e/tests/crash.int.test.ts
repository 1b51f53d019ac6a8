/**
 * Crash safety of the create path: the controller process is SIGKILLed at each step of it — before
 * the provider's create call, after the call but before its outcome reaches the ledger, and after
 * the ledger write — and a new process takes over. Exactly one instance must exist at the provider
 * afterwards, every time, for both providers, opened by the password the connection Secret held
 * before the create. A fault proxy between the process and moto / the local Cloud SQL API sees
 * (and times the kill on) every provider call.
 */
import { DescribeDBInstancesCommand, type DBInstance, type RDSClient } from '@aws-sdk/client-rds';
import { findCondition } from '@steward/conditions';
import { StalledCondition } from '@steward/controller';
import { cloudSqlInstanceName, rdsIdentifier } from '@steward/database-instance';
import { ExternalAnnotations, ledgerState } from '@steward/external';
import { Secrets } from '@steward/kube';
import { eventually } from '@steward/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  controllerBundle,
  startController,
  type ControllerProcess,
} from './support/controller-process.js';
import { startFaultProxy, type FaultProxy, type ProxiedRequest } from './support/fault-proxy.js';
import {
  createNamespace,
  createProfile,
  databaseInstance,
  Instances,
  startPlatform,
  type DB,
  type Platform,
  type Provider,
  type Secret,
} from './support/platform.js';

const ns = 'crash';

/** Where on the create path the process dies. */
type Step = 'before-create' | 'lost-answer' | 'after-ledger';

const steps: Record<Step, string> = {
  'before-create': 'before the create call',
  'lost-answer': 'after the create call, before the ledger write',
  'after-ledger': 'after the ledger write',
};

const CREATE = { aws: 'CreateDBInstance', gcp: 'instances.insert' } as const;

/** Every provider × step, twice ("every time"), each run with an object of its own. */
const runs = (['aws', 'gcp'] as const).flatMap((provider) =>
  (Object.keys(steps) as Step[]).flatMap((step) => [1, 2].map((run) => ({ provider, step, run }))),
);

/** The master/root password a create call sent to the provider. */
function passwordSent(provider: Provider, request: ProxiedRequest): string | undefined {
  return provider === 'aws'
    ? request.form['MasterUserPassword']
    : (request.json as { rootPassword?: string } | undefined)?.rootPassword;
}

const decode = (value: string | undefined) => Buffer.from(value ?? '', 'base64').toString('utf8');

describe('crash safety: the controller process killed at each step of the create path', () => {
  let platform: Platform;
  let rds: RDSClient;
  const proxies = {} as Record<Provider, FaultProxy>;
  /** The process running now; each test kills it and leaves the one it restarted running. */
  let controller: ControllerProcess | undefined;
  let started = 0;
  const report: string[] = [];

  const startOne = async (): Promise<ControllerProcess> => {
    const next = await startController({
      kubeConfig: platform.plane.kubeConfig,
      name: `dic-crash-${++started}`,
    });
    await next.ready();
    return next;
  };

  /**
   * Every instance at the provider that is this object's — by its external name or by its owner
   * mark (tags / labels naming the object) — with the uid of its owner mark.
   */
  const instancesAt = async (
    provider: Provider,
    name: string,
    external: string,
  ): Promise<{ name: string; ownerUid: string | undefined }[]> => {
    if (provider === 'aws') {
      const all = (await rds.send(new DescribeDBInstancesCommand({}))).DBInstances ?? [];
      const tag = (i: DBInstance, key: string) => i.TagList?.find((t) => t.Key === key)?.Value;
      return all
        .filter(
          (i) =>
            i.DBInstanceIdentifier === external ||
            (tag(i, 'steward.dev/namespace') === ns && tag(i, 'steward.dev/name') === name),
        )
        .map((i) => ({ name: i.DBInstanceIdentifier!, ownerUid: tag(i, 'steward.dev/owner-uid') }));
    }
    return platform.cloudSql
      .instances()
      .filter(
        (i) =>
          i.name === external ||
          (i.userLabels['steward-owner-namespace'] === ns &&
            i.userLabels['steward-owner-name'] === name),
      )
      .map((i) => ({ name: i.name, ownerUid: i.userLabels['steward-owner-uid'] }));
  };

  beforeAll(async () => {
    controllerBundle();
    platform = await startPlatform();
    rds = platform.moto.rdsClient();
    proxies.aws = await startFaultProxy(platform.moto.endpoint, 'rds');
    proxies.gcp = await startFaultProxy(platform.cloudSql.baseUrl, 'cloudsql');
    for (const provider of ['aws', 'gcp'] as const) {
      await createProfile(platform, provider, `${provider}-crash`, {
        endpoint: proxies[provider].url,
      });
    }
    await createNamespace(platform.admin, ns);
  });
  afterAll(async () => {
    if (report.length) console.log(`crash runs:\n${report.join('\n')}`);
    await controller?.kill();
    rds?.destroy();
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await platform?.stop();
  });

  for (const { provider, step, run } of runs) {
    it(`${provider}, killed ${steps[step]} (run ${run}): after a restart the object is Ready and exactly one instance exists, with the password stored before the create`, async () => {
      const { admin } = platform;
      const proxy = proxies[provider];
      const name = `${provider}-${step}-${run}`;
      const external =
        provider === 'aws' ? rdsIdentifier(ns, name) : cloudSqlInstanceName(ns, name);
      const creates = { action: CREATE[provider], instance: external };

      controller ??= await startOne();
      const doomed = controller;
      let killed = false;
      const kill = async () => {
        killed = true;
        await doomed.kill();
      };
      const rule =
        step === 'before-create'
          ? proxy.addRule({
              match: creates,
              times: 1,
              onRequest: async () => {
                await kill();
                return 'drop' as const;
              },
            })
          : step === 'lost-answer'
            ? proxy.addRule({
                match: creates,
                times: 1,
                onResponse: async () => {
                  await kill();
                  return 'drop' as const;
                },
              })
            : undefined;

      await admin.create<DB>(Instances, databaseInstance(ns, name, `${provider}-crash`));
      if (step === 'after-ledger') {
        await eventually(
          async () => {
            const obj = await admin.get<DB>(Instances, name, ns);
            return obj.metadata.annotations?.[ExternalAnnotations.createSucceeded] !== undefined;
          },
          { description: `${name} ${ExternalAnnotations.createSucceeded}`, intervalMs: 20 },
        );
        await kill();
      } else {
        await eventually(() => killed && !doomed.process.running, {
          description: `the kill ${steps[step]} of ${name}`,
        });
      }
      rule?.remove();
      controller = undefined;

      // What the dead process left: the ledger at its step, and the password it generated.
      const left = await admin.get<DB>(Instances, name, ns);
      const annotations = left.metadata.annotations ?? {};
      expect(annotations[ExternalAnnotations.externalName]).toBe(external);
      // Killed before the outcome reached the ledger, the create is pending; after it, succeeded.
      expect(ledgerState(annotations)).toBe(step === 'after-ledger' ? 'succeeded' : 'pending');
      const before = await admin.get<Secret>(Secrets, `${name}-conn`, ns);
      const password = decode(before.data?.['password']);
      expect(password.length).toBeGreaterThan(0);
      expect(await instancesAt(provider, name, external)).toHaveLength(
        step === 'before-create' ? 0 : 1,
      );

      // A new process takes over.
      controller = await startOne();
      const ready = await eventually(
        async () => {
          const obj = await admin.get<DB>(Instances, name, ns);
          return findCondition(obj.status?.conditions, 'Ready')?.status === 'True'
            ? obj
            : undefined;
        },
        { description: `${name} Ready after the restart`, timeoutMs: 60_000 },
      );
      expect(findCondition(ready.status?.conditions, 'Synced')?.status).toBe('True');
      expect(findCondition(ready.status?.conditions, StalledCondition)).toBeUndefined();
      expect(ready.status?.externalName).toBe(external);

      // Exactly one instance: the one of the deterministic name, marked as this object's — and it
      // stays one while the new process keeps polling.
      const one = [{ name: external, ownerUid: ready.metadata.uid }];
      expect(await instancesAt(provider, name, external)).toEqual(one);
      await sleep(1_500);
      expect(await instancesAt(provider, name, external)).toEqual(one);

      // The password the Secret held before the create is the one every create call sent, and it
      // is unchanged after the restart; host and port join it once the instance is Ready.
      const createCalls = proxy.requests(creates);
      const reached = createCalls.filter((r) => r.outcome === 'forwarded' || r.outcome === 'lost');
      expect(reached.length).toBeGreaterThan(0);
      expect(createCalls.map((r) => passwordSent(provider, r))).toEqual(
        createCalls.map(() => password),
      );
      const after = await eventually(
        async () => {
          const secret = await admin.get<Secret>(Secrets, `${name}-conn`, ns);
          return secret.data?.['host'] ? secret : undefined;
        },
        { description: `${name}-conn with host and port` },
      );
      expect(decode(after.data?.['password'])).toBe(password);
      expect(Object.keys(after.data ?? {})).toEqual(
        expect.arrayContaining(['host', 'port', 'username', 'password']),
      );

      report.push(
        `  ${provider} ${steps[step]} #${run}: create calls ${createCalls.length} ` +
          `(${createCalls.map((r) => r.outcome).join(', ')}), reached the provider ${reached.length}, ` +
          `instances 1; Ready at the kill: ${findCondition(left.status?.conditions, 'Ready')?.status ?? 'none'}`,
      );
    });
  }
});
