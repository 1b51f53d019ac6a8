/**
 * Throttling and 5xx from the provider → retries with backoff, then recovery without intervention:
 * a fault proxy answers every call about one DatabaseInstance with the provider's own throttling
 * (RDS `Throttling` 400, Cloud SQL 429 RESOURCE_EXHAUSTED) or unavailable (503) error for a while,
 * then steps aside. The four cases run at once against one controller process; each fault touches
 * only its own instance's calls.
 */
import { findCondition, type Condition } from '@steward/conditions';
import { StalledCondition } from '@steward/controller';
import { cloudSqlInstanceName, rdsIdentifier } from '@steward/database-instance';
import { Reasons } from '@steward/external';
import { eventually, gitOpsReading } from '@steward/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import {
  controllerBundle,
  startController,
  type ControllerProcess,
} from './support/controller-process.js';
import { startFaultProxy, type FaultProxy, type ProviderErrorKind } from './support/fault-proxy.js';
import {
  createNamespace,
  createProfile,
  databaseInstance,
  Instances,
  startPlatform,
  type DB,
  type Platform,
  type Provider,
} from './support/platform.js';

const ns = 'backoff';
/** How long each fault lasts, from the first call it answered. */
const FAULT_WINDOW_MS = 12_000;

/**
 * Provider calls per reconcile of a not-yet-created instance while every call fails: RDS observes
 * with one DescribeDBInstances, which the AWS SDK's standard retry mode sends up to 3 times
 * (Throttling and 5xx are retryable); the Cloud SQL client never retries (its v1 methods are
 * configured non-idempotent), so one instances.get.
 */
const CALLS_PER_RECONCILE: Record<Provider, number> = { aws: 3, gcp: 1 };

/**
 * The most reconciles the workqueue's per-item exponential backoff (5 ms · 2^(n−1), up to 1000 s)
 * allows in `windowMs`, even if a reconcile took no time: the n-th starts no earlier than
 * 5 ms · (2^(n−1) − 1) after the first.
 */
function maxReconcilesUnderBackoff(windowMs: number, baseMs = 5): number {
  return Math.floor(Math.log2(windowMs / baseMs + 1)) + 1;
}

/** What a user sees of an object: its conditions, by type. */
function conditionsOf(obj: DB): Record<string, Condition | undefined> {
  const conditions = obj.status?.conditions;
  return {
    Ready: findCondition(conditions, 'Ready'),
    Synced: findCondition(conditions, 'Synced'),
    Stalled: findCondition(conditions, StalledCondition),
  };
}

interface Case {
  provider: Provider;
  fault: ProviderErrorKind;
  /** What the condition message must contain: the provider's error message. */
  names: string;
}

const cases: Case[] = [
  { provider: 'aws', fault: 'throttling', names: 'Rate exceeded' },
  { provider: 'aws', fault: 'unavailable', names: 'Service is unavailable' },
  { provider: 'gcp', fault: 'throttling', names: 'Quota exceeded' },
  { provider: 'gcp', fault: 'unavailable', names: 'The service is currently unavailable' },
];

describe('provider throttling and 5xx: backoff, then recovery without intervention', () => {
  let platform: Platform;
  let controller: ControllerProcess | undefined;
  const proxies = {} as Record<Provider, FaultProxy>;
  const measured: string[] = [];

  beforeAll(async () => {
    controllerBundle();
    platform = await startPlatform();
    proxies.aws = await startFaultProxy(platform.moto.endpoint, 'rds');
    proxies.gcp = await startFaultProxy(platform.cloudSql.baseUrl, 'cloudsql');
    for (const provider of ['aws', 'gcp'] as const) {
      await createProfile(platform, provider, `${provider}-flaky`, {
        endpoint: proxies[provider].url,
      });
    }
    await createNamespace(platform.admin, ns);
    controller = await startController({
      kubeConfig: platform.plane.kubeConfig,
      name: 'dic-backoff',
    });
    await controller.ready();
  });
  afterAll(async () => {
    if (measured.length) console.log(`backoff measurements:\n${measured.join('\n')}`);
    await controller?.kill();
    await Promise.all(Object.values(proxies).map((p) => p.close()));
    await platform?.stop();
  });

  for (const { provider, fault, names } of cases) {
    it.concurrent(
      `${provider} ${fault}: Synced=False and Ready=False with a transient reason naming the error, never Stalled, calls bounded by the backoff, then Ready by itself`,
      async ({ expect }) => {
        const { admin } = platform;
        const proxy = proxies[provider];
        const name = `${provider}-${fault}`;
        const instance =
          provider === 'aws' ? rdsIdentifier(ns, name) : cloudSqlInstanceName(ns, name);
        const error = proxy.providerError(fault);
        const rule = proxy.addRule({ match: { instance }, onRequest: () => error });

        await admin.create<DB>(Instances, databaseInstance(ns, name, `${provider}-flaky`));
        const firstCall = await eventually(() => proxy.requests({ instance })[0], {
          description: `the first ${provider} call about ${instance}`,
          timeoutMs: 60_000,
        });

        // During the fault: what the user sees, sampled until the window closes.
        const seen: Record<string, Condition | undefined>[] = [];
        while (Date.now() < firstCall.at + FAULT_WINDOW_MS) {
          seen.push(conditionsOf(await admin.get<DB>(Instances, name, ns)));
          await sleep(250);
        }
        // Retrying is observed and reads InProgress to GitOps tools (kstatus), never Failed.
        const retrying = await gitOpsReading(await admin.get<DB>(Instances, name, ns));
        rule.remove();
        const cleared = Date.now();
        expect(retrying, 'kstatus while the provider fails').toMatchObject({
          kstatus: 'InProgress',
          unobserved: [],
        });

        const failing = seen.filter((c) => c['Synced']?.status === 'False');
        expect(failing.length, 'Synced=False while the provider fails').toBeGreaterThan(0);
        const during = failing.at(-1)!;
        expect(during['Synced']).toMatchObject({ status: 'False', reason: Reasons.ReconcileError });
        expect(during['Synced']?.message).toContain(names);
        // Soft, so that the checks below still run when it fails: an instance never seen Ready
        // is Ready=False while it retries (libs/external managed-reconciler.ts, reportFailure).
        expect(during['Ready'], 'Ready=False while the provider fails').toMatchObject({
          status: 'False',
        });
        expect(
          seen.filter((c) => c['Stalled']?.status === 'True'),
          'never Stalled',
        ).toEqual([]);
        expect(seen.filter((c) => c['Ready']?.status === 'True')).toEqual([]);

        // Backoff: the calls the fault answered stay within what the per-item exponential backoff
        // allows (a retry storm would be hundreds in a few seconds).
        const window = cleared - firstCall.at;
        const faulted = proxy.requests({ instance, until: cleared });
        const reconciles = maxReconcilesUnderBackoff(window);
        // +2: slack for reconciles an event starts outside the backoff, e.g. the ProviderProfile's
        // Ready condition changing (it re-enqueues the profile's instances). None are expected
        // here: the profiles were Ready before, and the controller's own status and ledger writes
        // do not pass its event filter.
        const bound = CALLS_PER_RECONCILE[provider] * (reconciles + 2);
        expect(faulted.every((r) => r.outcome === 'answered')).toBe(true);
        expect(faulted.length, 'retried at least once').toBeGreaterThanOrEqual(2);
        expect(faulted.length).toBeLessThanOrEqual(bound);
        expect(
          proxy.count({
            instance,
            action: ['CreateDBInstance', 'instances.insert'],
            until: cleared,
          }),
        ).toBe(0);

        // After the fault: Ready without anyone touching anything.
        const ready = await eventually(
          async () => {
            const obj = await admin.get<DB>(Instances, name, ns);
            return conditionsOf(obj)['Ready']?.status === 'True' ? obj : undefined;
          },
          { description: `${name} Ready after the fault cleared`, timeoutMs: 90_000 },
        );
        const readyAt = Date.now();
        const after = conditionsOf(ready);
        expect(after['Synced']).toMatchObject({ status: 'True', reason: Reasons.ReconcileSuccess });
        expect(after['Stalled']).toBeUndefined();
        expect(
          proxy.count({
            instance,
            action: ['CreateDBInstance', 'instances.insert'],
            reachedProvider: true,
          }),
        ).toBe(1);

        const gaps = faulted.slice(1).map((r, i) => r.at - faulted[i]!.at);
        measured.push(
          `  ${provider} ${fault}: ${faulted.length} calls answered with the fault in ${window} ms ` +
            `(bound ${bound} = ${CALLS_PER_RECONCILE[provider]} × (${reconciles} + 2)); ` +
            `${JSON.stringify(proxy.countsByAction({ instance, until: cleared }))}; ` +
            `gaps ms [${gaps.join(', ')}]; Ready ${readyAt - cleared} ms after the fault cleared; ` +
            `Synced message during the fault: ${JSON.stringify(during['Synced']?.message)}`,
        );
      },
    );
  }
});
