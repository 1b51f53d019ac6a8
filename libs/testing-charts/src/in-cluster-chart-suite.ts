/**
 * What every Steward controller promises once its chart is installed for real (see
 * {@link installControllerChart}), as `it` blocks each in-cluster suite registers inside its own
 * `describe` after installing: the pods of the local image run under the chart's ServiceAccount
 * with a projected token and the restricted security context, the bundle runs as PID 1 on the
 * image's Node.js, and one pod holds the Lease. The suite adds what only its controller does.
 */
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { repoRoot } from '@steward/testing';
import { type LocalImage, type NodeTier } from '@steward/testing-node-tier';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type InstalledControllerChart } from './in-cluster-chart.js';

/** What the shared tests read once the suite's `beforeAll` has installed the chart. */
export interface InstalledControllerContext {
  app: string;
  tier: NodeTier;
  image: LocalImage;
  chart: InstalledControllerChart;
  /** How many replicas the suite installed. */
  replicas: number;
}

/** The Node.js the controllers' base image ships (apps/Dockerfile's NODE_IMAGE in the node tier). */
export const controllerNodeVersion = /^NODE_24_NODE_VERSION=(.+)$/m.exec(
  readFileSync(join(repoRoot(), 'tools/node-tier/images/versions.env'), 'utf8'),
)?.[1];

/** Registers the shared tests; `context()` is read when they run (after `beforeAll`). */
export function itRunsAsInstalledController(context: () => InstalledControllerContext): void {
  const name = (pod: V1Pod): string => pod.metadata!.name!;

  it('runs Ready pods of the local image under the chart’s ServiceAccount, with a projected token and the restricted security context', async () => {
    const { app, tier, image, chart, replicas } = context();
    const pods = await chart.readyPods(replicas);
    const core = tier.kubeConfig.makeApiClient(CoreV1Api);
    const serviceAccount = await core.readNamespacedServiceAccount({
      name: `steward-${app}`,
      namespace: chart.namespace,
    });
    // The ServiceAccount mounts no token for other pods; the controller's pod asks for one.
    expect(serviceAccount.automountServiceAccountToken).toBe(false);
    for (const pod of pods) {
      const spec = pod.spec!;
      expect(spec.serviceAccountName).toBe(`steward-${app}`);
      expect(spec.automountServiceAccountToken).toBe(true);
      // The ServiceAccount admission plugin's bound token: a projected volume with an expiring,
      // audience-bound token, the cluster CA and the namespace.
      const tokenVolume = spec.volumes?.find((v) => v.name.startsWith('kube-api-access-'));
      expect(tokenVolume?.projected?.sources).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            serviceAccountToken: expect.objectContaining({ path: 'token' }),
          }),
        ]),
      );
      const controller = spec.containers.find((c) => c.name === 'controller')!;
      expect(controller.volumeMounts).toContainEqual(
        expect.objectContaining({
          name: tokenVolume!.name,
          mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
        }),
      );
      expect(controller.image).toBe(image.ref);
      expect(controller.imagePullPolicy).toBe('Never');
      expect(spec.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 65532,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      expect(controller.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: true, restartCount: 0 });
    }
  });

  it(`runs the bundle as PID 1 on the image’s Node.js ${controllerNodeVersion}`, async () => {
    const { chart, replicas } = context();
    const [pod] = await chart.readyPods(replicas);
    const { stdout } = await chart.exec(pod!, [
      'node',
      '-e',
      `const fs = require('node:fs');
       console.log(JSON.stringify({
         version: process.version,
         execPath: process.execPath,
         pid1: fs.readlinkSync('/proc/1/exe'),
         cmdline: fs.readFileSync('/proc/1/cmdline', 'utf8').split('\\0').filter(Boolean),
         cwd: fs.readlinkSync('/proc/1/cwd'),
       }));`,
    ]);
    const runtime = JSON.parse(stdout) as Record<string, unknown>;
    expect(runtime['version']).toBe(`v${controllerNodeVersion}`);
    // PID 1 (the controller) is that same node binary, running the image's entrypoint.
    expect(runtime['pid1']).toBe(runtime['execPath']);
    expect(runtime).toMatchObject({ cmdline: ['node', 'main.js'], cwd: '/app' });
  });

  it('wins its Lease: the holder is one of its pods, by pod name', async () => {
    const { chart } = context();
    const leader = await chart.leader();
    const pods = (await chart.pods()).map(name);
    expect(pods).toContain(await chart.leaseHolder());
    expect(await chart.leaseHolder()).toBe(name(leader));
  });
}

/**
 * Waits (generously: the lease duration is 15 s, the standby retries every 2 s, the machine is
 * shared) for a Lease holder other than `leader`, checks that it is a live pod of the release,
 * and reports how long it took since `since` and who won. Two candidates run meanwhile: the warm
 * standby and the pod the Deployment starts in place of the old leader; which one writes the Lease
 * first is a race the election does not decide (both wait out the same Lease), so either may win.
 */
export async function awaitLeaderTakeover(
  chart: InstalledControllerChart,
  options: { app: string; leader: V1Pod; standby: V1Pod; how: string; since: number },
): Promise<{ successor: string; ms: number; released: boolean }> {
  const { app, leader, standby, how, since } = options;
  const name = (pod: V1Pod): string => pod.metadata!.name!;
  const observed = new Set<string>();
  const successor = await chart.until(
    async () => {
      const holder = (await chart.leaseHolder()) ?? '(none)';
      observed.add(holder);
      return holder !== name(leader) && holder !== '(none)' ? holder : undefined;
    },
    {
      description: `a new Lease holder after ${name(leader)} was ${how}`,
      timeoutMs: 90_000,
      intervalMs: 100,
    },
  );
  const ms = Date.now() - since;
  const released = observed.has('(none)');
  const winner = successor === name(standby) ? 'the warm standby' : 'the replacement pod';
  process.stdout.write(
    `${app} leader takeover after the leader was ${how}: ${ms} ms to ${successor} (${winner}) ` +
      `holding the Lease; holders seen: ${[...observed].join(' → ')}` +
      (released ? ' (the old leader released the Lease)\n' : ' (the Lease expired)\n'),
  );
  expect((await chart.pods()).map(name), `takeover after ${ms} ms`).toContain(successor);
  return { successor, ms, released };
}
