/**
 * A controller chart installed for real in the node tier: `helm install` of the chart from the
 * checkout with a locally built image, the controller running as pods under the chart's
 * ServiceAccount, and what a test needs to look at them — the pods, the Lease holder, `/metrics`
 * scraped at the pod IP, logs, exec — with a diagnostic dump (Deployment, pods, events, container
 * logs, Lease) attached to every failure, so that a CI failure is readable without the cluster.
 */
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  Exec,
  type CoreV1Event,
  type V1Pod,
  type V1Status,
} from '@kubernetes/client-node';
import { eventually, repoRoot, type EventuallyOptions } from '@steward/testing';
import {
  processAlive,
  stateFile,
  type LocalImage,
  type NodeTier,
  type NodeTierState,
} from '@steward/testing-node-tier';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  HelmError,
  readChartMetadata,
  runHelmWithValues,
  runHelm,
  type ChartValues,
} from './helm.js';

export interface InstallControllerChartOptions {
  /** A chart under `charts/` (e.g. `kafka-topic-controller`), or a chart directory's absolute path. */
  chart: string;
  /** The controller's image, already imported into the tier (`tier.importImage`). */
  image: LocalImage;
  /** The release namespace; it must exist (`tier.createNamespace`). */
  namespace: string;
  /** Default `steward`: the objects are then named `steward-<chart>`. */
  release?: string;
  /** Values over the chart's defaults; `image` is set from `image` (pull policy `Never`). */
  values?: ChartValues;
  /** How long the Deployment's pods may take to be Ready (and a leader to be elected). Default 3 min. */
  readyTimeoutMs?: number;
}

/** A `helm install`ed controller chart whose pods are Ready. */
export interface InstalledControllerChart {
  readonly release: string;
  readonly namespace: string;
  /** The Deployment (and, unless overridden, the ServiceAccount) name. */
  readonly fullname: string;
  /** The Lease the controller's leader election uses, in the release namespace. */
  readonly leaseName: string;
  /** `helm install`'s output. */
  readonly installOutput: string;
  /** The release's pods that are not being deleted, oldest first. */
  pods(): Promise<V1Pod[]>;
  /** Waits until exactly `count` pods of the release are Ready (none terminating) and returns them. */
  readyPods(count: number, options?: EventuallyOptions): Promise<V1Pod[]>;
  /** The Lease's `holderIdentity` (the leader's pod name); undefined while there is none. */
  leaseHolder(): Promise<string | undefined>;
  /** Waits for a Lease holder that is a Ready pod of the release (other than `not`); returns that pod. */
  leader(options?: { not?: string; timeoutMs?: number }): Promise<V1Pod>;
  /** `GET http://<podIP>:<probe port>/metrics` from this machine. */
  metrics(pod: V1Pod): Promise<string>;
  /** The controller container's log, through the API server. */
  logs(pod: V1Pod, options?: { previous?: boolean; tailLines?: number }): Promise<string>;
  /**
   * A crash, as a node failure or an OOM kill looks to the Lease: SIGKILLs the controller
   * container's process through containerd and at once deletes the pod with grace period 0, so
   * nothing runs after the kill (no Lease release) and the kubelet does not start it again.
   * (Deleting a pod with grace period 0 alone is not a kill: the kubelet still sends SIGTERM and
   * waits up to 2 s before SIGKILL, and a Steward controller releases its Lease in that time.)
   */
  crash(pod: V1Pod): Promise<void>;
  /** Runs `command` in the controller container (API server → kubelet); resolves on exit 0. */
  exec(pod: V1Pod, command: string[]): Promise<{ stdout: string; stderr: string }>;
  /** Deployment, pods, events, container logs and the Lease, as text. Never throws. */
  diagnostics(): Promise<string>;
  /** `eventually(probe)`, with {@link diagnostics} appended to the error on timeout. */
  until<T>(
    probe: () => Promise<T | undefined | false> | T | undefined | false,
    options?: EventuallyOptions,
  ): Promise<T>;
  /** `helm uninstall`, then waits for the release's pods to be gone. Idempotent. */
  uninstall(): Promise<void>;
}

const execFileAsync = promisify(execFile);

/** The name of the controller container in every Steward chart's Deployment. */
const container = 'controller';

/** `image.repository` and `image.tag` of a reference `<repository>:<tag>` (no digest). */
export function imageValues(image: LocalImage): {
  repository: string;
  tag: string;
  pullPolicy: 'Never';
} {
  const colon = image.ref.lastIndexOf(':');
  if (colon <= image.ref.lastIndexOf('/')) {
    throw new Error(`steward: image reference ${image.ref} has no tag`);
  }
  return {
    repository: image.ref.slice(0, colon),
    tag: image.ref.slice(colon + 1),
    pullPolicy: 'Never',
  };
}

/** A controller failed to come up, or a wait on it timed out; the message carries the dump. */
export class ControllerChartError extends Error {
  override name = 'ControllerChartError';
}

/**
 * `helm install`s a controller chart from the checkout into `namespace` of the node tier with
 * `image` (no `--wait`: this waits itself) and returns once every replica is Ready and, when the
 * chart's leader election is on, one of them holds the Lease. Throws a {@link ControllerChartError}
 * with the diagnostic dump when helm refuses or the pods do not come up.
 */
export async function installControllerChart(
  tier: NodeTier,
  options: InstallControllerChartOptions,
): Promise<InstalledControllerChart> {
  const chartDir = isAbsolute(options.chart)
    ? options.chart
    : join(repoRoot(), 'charts', options.chart);
  const chartName = readChartMetadata(chartDir).name;
  const release = options.release ?? 'steward';
  const { namespace } = options;
  const values: ChartValues = {
    ...options.values,
    image: { ...(options.values?.['image'] as object | undefined), ...imageValues(options.image) },
  };
  const replicas = Number(values['replicas'] ?? 1);
  const leaderElection =
    (values['leaderElection'] as { enabled?: boolean } | undefined)?.enabled !== false;
  // steward-common's names: the fullname and the app.kubernetes.io/name label honour the
  // overrides; the Lease is always named after the chart.
  const name = (values['nameOverride'] as string | undefined) || chartName;
  const fullname =
    (values['fullnameOverride'] as string | undefined) ||
    (release.includes(name) ? release : `${release}-${name}`);
  const leaseName = `${chartName}-leader`;
  const helmTarget = ['--kubeconfig', tier.kubeconfigPath, '--namespace', namespace];

  // One release of a chart in the tier at a time: its ClusterRoles are named after the release,
  // and two controllers of one kind watching every namespace would reconcile each other's objects.
  const lock = await takeChartLock(tier, chartName);

  const core = tier.kubeConfig.makeApiClient(CoreV1Api);
  const apps = tier.kubeConfig.makeApiClient(AppsV1Api);
  const coordination = tier.kubeConfig.makeApiClient(CoordinationV1Api);
  const selector = `app.kubernetes.io/name=${name},app.kubernetes.io/instance=${release}`;

  const allPods = async (): Promise<V1Pod[]> =>
    (await core.listNamespacedPod({ namespace, labelSelector: selector })).items.sort(
      (a, b) =>
        (a.metadata?.creationTimestamp?.getTime() ?? 0) -
        (b.metadata?.creationTimestamp?.getTime() ?? 0),
    );
  const pods = async (): Promise<V1Pod[]> =>
    (await allPods()).filter((p) => !p.metadata?.deletionTimestamp);
  const leaseHolder = async (): Promise<string | undefined> => {
    const lease = await coordination
      .readNamespacedLease({ name: leaseName, namespace })
      .catch(() => undefined);
    return lease?.spec?.holderIdentity || undefined;
  };
  const logs = async (
    pod: V1Pod,
    logOptions: { previous?: boolean; tailLines?: number } = {},
  ): Promise<string> =>
    core.readNamespacedPodLog({
      name: pod.metadata!.name!,
      namespace,
      container,
      ...(logOptions.previous ? { previous: true } : {}),
      ...(logOptions.tailLines ? { tailLines: logOptions.tailLines } : {}),
    });
  const diagnostics = (): Promise<string> =>
    dump({ core, apps, namespace, fullname, pods: allPods, logs, leaseHolder, leaseName });
  const until = async <T>(
    probe: () => Promise<T | undefined | false> | T | undefined | false,
    waitOptions: EventuallyOptions = {},
  ): Promise<T> => {
    try {
      return await eventually(probe, waitOptions);
    } catch (error) {
      throw new ControllerChartError(
        `${(error as Error).message}${causeOf(error)}\n\n${await diagnostics()}`,
        { cause: error },
      );
    }
  };
  const readyPods = (count: number, waitOptions: EventuallyOptions = {}): Promise<V1Pod[]> =>
    until(
      async () => {
        const all = await allPods();
        const ready = all.filter(isReady);
        return all.length === count && ready.length === count ? ready : undefined;
      },
      {
        timeoutMs: options.readyTimeoutMs ?? 3 * 60_000,
        intervalMs: 500,
        description: `${count} Ready pod(s) of ${namespace}/${fullname}`,
        ...waitOptions,
      },
    );
  const leader = (leaderOptions: { not?: string; timeoutMs?: number } = {}): Promise<V1Pod> =>
    until(
      async () => {
        const holder = await leaseHolder();
        if (!holder || holder === leaderOptions.not) return undefined;
        return (await pods()).find((p) => p.metadata?.name === holder && isReady(p));
      },
      {
        timeoutMs: leaderOptions.timeoutMs ?? 60_000,
        intervalMs: 250,
        description: `a Ready pod of ${fullname} holding Lease ${namespace}/${leaseName}${
          leaderOptions.not ? ` other than ${leaderOptions.not}` : ''
        }`,
      },
    );

  const installed = await runHelmWithValues(chartDir, ['install', release], values, helmTarget);
  if (installed.code !== 0) {
    const error = new HelmError(['install', release, chartDir, ...helmTarget], installed);
    const dump = await diagnostics();
    // a refused install still records a failed release: leave nothing that blocks the next one
    await runHelm(['uninstall', release, ...helmTarget]).catch(() => undefined);
    lock.release();
    throw new ControllerChartError(`${error.message}\n\n${dump}`, { cause: error });
  }
  let uninstalled: Promise<void> | undefined;
  const handle: InstalledControllerChart = {
    release,
    namespace,
    fullname,
    leaseName,
    installOutput: installed.stdout,
    pods,
    readyPods,
    leaseHolder,
    leader,
    metrics: async (pod) => {
      const url = `http://${podIp(pod)}:${probePort(pod)}/metrics`;
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw new Error(`steward: ${url} answered ${response.status}`);
      return response.text();
    },
    logs,
    crash: async (pod) => {
      const id = pod.status?.containerStatuses
        ?.find((c) => c.name === container)
        ?.containerID?.replace(/^containerd:\/\//, '');
      if (!id) throw new Error(`steward: pod ${pod.metadata?.name} has no running container`);
      const state = JSON.parse(await readFile(stateFile(tier.layout), 'utf8')) as NodeTierState;
      await execFileAsync(tier.binaries.ctr, [
        ...['--address', state.containerdSocket!, '--namespace', 'k8s.io'],
        ...['tasks', 'kill', '--signal', 'SIGKILL', id],
      ]);
      await core.deleteNamespacedPod({
        name: pod.metadata!.name!,
        namespace,
        gracePeriodSeconds: 0,
      });
    },
    exec: (pod, command) => execIn(tier, namespace, pod.metadata!.name!, command),
    diagnostics,
    until,
    uninstall: () =>
      (uninstalled ??= (async () => {
        const result = await runHelm(['uninstall', release, ...helmTarget]);
        if (result.code !== 0) {
          throw new HelmError(['uninstall', release, ...helmTarget], result);
        }
        await until(async () => (await allPods()).length === 0, {
          timeoutMs: 2 * 60_000,
          description: `the pods of ${namespace}/${fullname} gone after helm uninstall`,
        });
        lock.release();
      })()),
  };
  try {
    await readyPods(replicas);
    if (leaderElection) await leader();
  } catch (error) {
    // The caller gets no handle to uninstall with: leave no cluster-scoped RBAC behind.
    await handle.uninstall().catch(() => undefined);
    lock.release();
    throw error;
  }
  return handle;
}

function isReady(pod: V1Pod): boolean {
  return (
    !pod.metadata?.deletionTimestamp &&
    !!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')
  );
}

function podIp(pod: V1Pod): string {
  const ip = pod.status?.podIP;
  if (!ip) throw new Error(`steward: pod ${pod.metadata?.name} has no IP yet`);
  return ip;
}

/** The controller container's `http` port: where the probes and /metrics are served. */
function probePort(pod: V1Pod): number {
  const port = pod.spec?.containers
    .find((c) => c.name === container)
    ?.ports?.find((p) => p.name === 'http')?.containerPort;
  if (!port) throw new Error(`steward: pod ${pod.metadata?.name} declares no http port`);
  return port;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? ` (last error: ${cause.message})` : '';
}

async function execIn(
  tier: NodeTier,
  namespace: string,
  pod: string,
  command: string[],
): Promise<{ stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (chunk: string) => void) =>
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        append(chunk.toString('utf8'));
        callback();
      },
    });
  const status = await new Promise<V1Status>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`steward: exec ${command.join(' ')} in ${pod} timed out`)),
      30_000,
    );
    new Exec(tier.kubeConfig)
      .exec(
        namespace,
        pod,
        container,
        command,
        sink((s) => (stdout += s)),
        sink((s) => (stderr += s)),
        null,
        false,
        (result) => {
          clearTimeout(timer);
          resolve(result);
        },
      )
      .catch((error: unknown) => {
        clearTimeout(timer);
        reject(error as Error);
      });
  });
  if (status.status !== 'Success') {
    throw new Error(
      `steward: exec ${command.join(' ')} in ${pod} failed: ${status.message ?? status.reason}\n${stderr}`,
    );
  }
  return { stdout, stderr };
}

interface DumpSources {
  core: CoreV1Api;
  apps: AppsV1Api;
  namespace: string;
  fullname: string;
  leaseName: string;
  pods(): Promise<V1Pod[]>;
  logs(pod: V1Pod, options?: { previous?: boolean; tailLines?: number }): Promise<string>;
  leaseHolder(): Promise<string | undefined>;
}

/** The state of a release, for a failure message: every step guarded, so it never throws. */
async function dump(s: DumpSources): Promise<string> {
  const section = async (title: string, body: () => Promise<string>): Promise<string> => {
    const text = await body().catch((error: unknown) => `(unavailable: ${String(error)})`);
    return `--- ${title}\n${text.trimEnd()}`;
  };
  const parts: string[] = [`=== diagnostics of ${s.namespace}/${s.fullname}`];
  parts.push(
    await section('Deployment', async () => {
      const d = await s.apps.readNamespacedDeployment({ name: s.fullname, namespace: s.namespace });
      const st = d.status ?? {};
      const conditions = (st.conditions ?? [])
        .map((c) => `  ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`)
        .join('\n');
      return `replicas ${st.replicas ?? 0}, ready ${st.readyReplicas ?? 0}, updated ${st.updatedReplicas ?? 0}, unavailable ${st.unavailableReplicas ?? 0}\n${conditions}`;
    }),
  );
  parts.push(
    await section(
      `Lease ${s.leaseName}`,
      async () => `holder: ${(await s.leaseHolder()) ?? '(none)'}`,
    ),
  );
  const pods = await s.pods().catch(() => [] as V1Pod[]);
  parts.push(
    await section('pods', async () =>
      pods.length === 0 ? '(none)' : pods.map(describePod).join('\n'),
    ),
  );
  parts.push(
    await section('events (newest last)', async () => {
      const events = (await s.core.listNamespacedEvent({ namespace: s.namespace })).items;
      return events
        .sort((a, b) => eventTime(a) - eventTime(b))
        .slice(-40)
        .map(
          (e) =>
            `${e.type ?? ''} ${e.reason ?? ''} ${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message ?? ''}${
              (e.count ?? 1) > 1 ? ` (x${e.count})` : ''
            }`,
        )
        .join('\n');
    }),
  );
  for (const pod of pods) {
    const restarted = (pod.status?.containerStatuses?.[0]?.restartCount ?? 0) > 0;
    if (restarted) {
      parts.push(
        await section(`log of ${pod.metadata?.name} (previous container)`, () =>
          s.logs(pod, { previous: true, tailLines: 60 }),
        ),
      );
    }
    parts.push(await section(`log of ${pod.metadata?.name}`, () => s.logs(pod, { tailLines: 80 })));
  }
  return parts.join('\n');
}

function describePod(pod: V1Pod): string {
  const conditions = (pod.status?.conditions ?? [])
    .map((c) => `${c.type}=${c.status}${c.reason ? `(${c.reason})` : ''}`)
    .join(' ');
  const containers = (pod.status?.containerStatuses ?? []).map((c) => {
    const state = c.state?.waiting
      ? `waiting ${c.state.waiting.reason ?? ''} ${c.state.waiting.message ?? ''}`
      : c.state?.terminated
        ? `terminated ${c.state.terminated.reason ?? ''} exit ${c.state.terminated.exitCode}`
        : c.state?.running
          ? 'running'
          : 'unknown';
    const last = c.lastState?.terminated
      ? `; last: ${c.lastState.terminated.reason ?? ''} exit ${c.lastState.terminated.exitCode}`
      : '';
    return `    ${c.name}: ${state}, ready ${c.ready}, restarts ${c.restartCount}${last}`;
  });
  return [
    `  ${pod.metadata?.name} phase ${pod.status?.phase} ip ${pod.status?.podIP ?? '-'}${
      pod.metadata?.deletionTimestamp ? ' (terminating)' : ''
    } ${conditions}`,
    ...containers,
  ].join('\n');
}

function eventTime(e: CoreV1Event): number {
  const t = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata.creationTimestamp;
  return t ? new Date(t).getTime() : 0;
}

/**
 * A lock per chart on the machine's tier (a file holding this process's pid): taken before
 * `helm install`, given back by `uninstall()` or when this process exits; a lock whose holder is
 * gone is taken over. Waits up to 30 minutes for another process's release of the chart.
 */
async function takeChartLock(tier: NodeTier, chart: string): Promise<{ release(): void }> {
  const dir = join(tier.layout.runDir, 'charts');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${chart}.lock`);
  const deadline = Date.now() + 30 * 60_000;
  let said = false;
  for (;;) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      const holder = Number(readFileSync(file, 'utf8') || '0');
      if (!processAlive(holder)) {
        rmSync(file, { force: true });
        continue;
      }
      if (Date.now() > deadline)
        throw new ControllerChartError(
          `steward: ${chart} is still installed in the node tier by process ${holder} after 30 minutes`,
        );
      if (!said) {
        process.stderr.write(
          `steward: waiting for process ${holder}'s release of ${chart} to go\n`,
        );
        said = true;
      }
      await sleep(1_000);
    }
  }
  const onExit = (): void => rmSync(file, { force: true });
  process.on('exit', onExit);
  return {
    release: () => {
      process.removeListener('exit', onExit);
      rmSync(file, { force: true });
    },
  };
}
