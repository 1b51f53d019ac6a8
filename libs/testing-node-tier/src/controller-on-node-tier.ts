/**
 * A workload kind's controller in process on the node tier, as the kinds' node-tier suites run it:
 * a lease on the tier, the suite's images imported, the kind's CRDs (its chart's) installed, a
 * namespace of the suite's own, an admin client, and a `Manager` running the controller on that
 * namespace and counting its API writes — with what the suites ask of the kind's objects (create,
 * read, wait until Ready or until Ready=False says why) and of their pods, Secrets and Services.
 * (The app as shipped — its bundle as a process, its chart in the cluster — is proven in e2e/.)
 *
 * The runtime a controller runs on (@steward/controller's `Manager`, @steward/kube's `KubeClient`)
 * comes with the kind's description, so that this lib depends on no runtime lib: a change to one
 * reruns no suite that only uses the tier, and no runtime lib is ever on both sides of a test.
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { customObject, eventually, installCRDs, repoRoot, type SuiteHooks } from '@steward/testing';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { localImages, type LocalImage } from './binaries.js';
import { acquireNodeTier, type NodeTier } from './node-tier.js';

/** `steward.dev/paused: "true"` (@steward/workload's PausedAnnotation) stops a workload controller. */
const PausedAnnotation = 'steward.dev/paused';

/** A kind's API resource, as @steward/kube's `ResourceType` says it. */
export interface ResourceTypeOf {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
}

/** An object as the API server returns it, as far as the harness reads it. */
export interface ObjectOf {
  apiVersion: string;
  kind: string;
  metadata: { name?: string; namespace?: string; generation?: number };
}

/** What the suites read of a workload object: its conditions. */
export interface WorkloadObject extends ObjectOf {
  spec: unknown;
  status?: {
    conditions?: readonly {
      type: string;
      status: string;
      reason: string;
      observedGeneration?: number;
    }[];
  };
}

/** The admin client the harness needs (@steward/kube's `KubeClient` is one). */
export interface AdminClient {
  get<O extends ObjectOf>(rt: ResourceTypeOf, name: string, namespace?: string): Promise<O>;
  create<O extends ObjectOf>(rt: ResourceTypeOf, object: O): Promise<O>;
  mergePatch<O extends ObjectOf>(
    rt: ResourceTypeOf,
    name: string,
    namespace: string | undefined,
    patch: unknown,
  ): Promise<O>;
  delete(
    rt: ResourceTypeOf,
    name: string,
    namespace?: string,
    options?: { gracePeriodSeconds?: number },
  ): Promise<unknown>;
  close(): Promise<void>;
}

/** The manager the harness runs the controller on (@steward/controller's `Manager` is one). */
export interface ManagerOf {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The options the harness makes a manager with (a subset of `ManagerOptions`). */
export interface ManagerOptionsOf {
  kubeConfig: KubeConfig;
  name: string;
  client: { onRequest: (info: { verb: string; path: string }) => void };
}

/** What the harness tells every workload controller (a subset of `WorkloadControllerOptions`). */
export interface ControllerOptionsOf {
  selection?: { namespace?: string };
  pollIntervalMs?: number;
  busyPollIntervalMs?: number;
}

/** A workload kind as its node-tier suites run it. */
export interface WorkloadUnderTest<
  T extends WorkloadObject,
  Options,
  Client extends AdminClient,
  Manager extends ManagerOf,
> {
  /** The `@steward/crd` kind (`CacheCluster`, `PostgresCluster`). */
  kind: { readonly apiVersion: string; readonly resourceType: ResourceTypeOf; readonly $object: T };
  /** Its controller's chart: the manager's name, and the CRDs (`charts/<chart>/crds`). */
  chart: string;
  /** Registers the kind's controller on a manager. */
  controller: (manager: Manager, options?: Options) => unknown;
  /** The runtime it runs on: `{ Manager, KubeClient }`. */
  runtime: {
    Manager: new (options: ManagerOptionsOf) => Manager;
    KubeClient: new (kubeConfig: KubeConfig, options: { fieldManager: string }) => Client;
  };
  /** How long a new object may take to be Ready (`ready()`'s default). Default 2 minutes. */
  readyTimeoutMs?: number;
}

export interface ControllerOnNodeTierOptions<Options> {
  /** The images the suite's pods run (`localImages` names: `redis-7.0`, `postgres-17`). */
  images: string[];
  /** The suite's namespace: this prefix and a unique suffix (`NodeTier.createNamespace`). */
  namespace: string;
  /** The controller's poll while converged. Default 1 s. */
  pollIntervalMs?: number;
  /** The controller's poll while something moves. Default 300 ms. */
  busyPollIntervalMs?: number;
  /** More of the controller's options (it always follows the suite's namespace alone). */
  controller?: Partial<Options>;
  /**
   * Runs once the namespace exists, before the manager starts (a backend, a profile, a Secret);
   * what it answers runs at `stop()`, after the manager stopped and before the lease is given back.
   */
  prepare?: (suite: PreparedSuite) => Promise<(() => Promise<void>) | void>;
  /** How often the suite's waits look. Default 200 ms (a bench timing them looks more often). */
  lookEveryMs?: number;
  /** Where the manager's failure goes. Default: nowhere (the suites assert on outcomes). */
  onManagerError?: (error: unknown) => void;
  /**
   * `3`: run on the multi-node tier (three nodes in three zones, held by this suite alone; its
   * `tier` is then a `MultiNodeTier`, with the node faults). Default: the shared single-node tier.
   */
  nodes?: 1 | 3;
  /** With `nodes: 3`: NetworkPolicy enforced (kube-network-policies on every node). */
  networkPolicy?: boolean;
}

/** What `prepare` finds in place. */
export type PreparedSuite<Client extends AdminClient = AdminClient> = Pick<
  ControllerOnNodeTier<WorkloadObject, Client, ManagerOf>,
  'tier' | 'images' | 'admin' | 'namespace'
>;

export interface ControllerOnNodeTier<
  T extends WorkloadObject,
  Client extends AdminClient,
  Manager extends ManagerOf,
> {
  readonly tier: NodeTier;
  readonly images: Record<string, LocalImage>;
  /** The suite's client, with everything allowed (field manager `test-admin`). */
  readonly admin: Client;
  readonly namespace: string;
  readonly manager: Manager;
  /** The manager's API requests other than get, list and watch, as `verb path`; empty it at will. */
  readonly writes: string[];
  /** Creates an object of the kind named `name` in the namespace. */
  create(name: string, spec: T['spec']): Promise<T>;
  read(name: string): Promise<T>;
  /** Merge-patches the kind's object `name`. */
  patch(name: string, patch: object): Promise<T>;
  /** Sets `steward.dev/paused` on it; answers it once it says Paused=True. */
  pause(name: string): Promise<T>;
  /** Takes `steward.dev/paused` away; answers it once it is Ready again (`ready`). */
  resume(name: string): Promise<T>;
  /** Any object in the namespace. */
  get<O extends ObjectOf>(type: ResourceTypeOf, name: string): Promise<O>;
  delete(
    type: ResourceTypeOf,
    name: string,
    options?: { gracePeriodSeconds?: number },
  ): Promise<unknown>;
  /** Waits until the object satisfies `holds`; answers it. */
  until(
    name: string,
    holds: (obj: T) => boolean,
    description: string,
    timeoutMs?: number,
  ): Promise<T>;
  /** Waits until it is Ready=True at its generation (observed); answers it. */
  ready(name: string, timeoutMs?: number): Promise<T>;
  /** Waits (at most a minute by default) for Ready=False with `reason` (or one of them); answers it. */
  notReady(name: string, reason: string | string[], timeoutMs?: number): Promise<T>;
  /** Waits (at most a minute) for the condition `type` to be True; answers the object. */
  conditionTrue(name: string, type: string): Promise<T>;
  /** Waits (at most a minute) until the kind's object `name` is gone. */
  gone(name: string): Promise<void>;
  /** Waits (at most a minute) until an object of `type` named `name` is there again. */
  recreated(type: ResourceTypeOf, name: string): Promise<void>;
  /**
   * The manager's writes over `windowMs`, once `settleMs` have passed (a converged object costs
   * none).
   */
  writesDuring(windowMs: number, settleMs: number): Promise<string[]>;
  /** A pod's IP ('' while it has none). */
  podIp(pod: string): Promise<string>;
  /** A Service's ClusterIP. */
  serviceIp(service: string): Promise<string>;
  /** A Secret's data, decoded. */
  secret(name: string): Promise<Record<string, string>>;
  /** Acquires the tier, sets the suite up and starts the manager (see `startControllerOnNodeTier`). */
  start(): Promise<void>;
  /** Stops the manager, runs `prepare`'s cleanup, closes the client and gives the lease back. */
  stop(): Promise<void>;
}

/**
 * Resource requests no node of the tier can hold (512 CPUs) with `memory`: the scheduler says
 * Unschedulable ("Insufficient cpu").
 */
export const noNodeCanHold = (memory: string) => ({ requests: { cpu: '512', memory } });

/** A kind's description for `startControllerOnNodeTier` (infers the object type from the kind). */
export const workloadUnderTest = <
  T extends WorkloadObject,
  Options,
  Client extends AdminClient,
  Manager extends ManagerOf,
>(
  workload: WorkloadUnderTest<T, Options, Client, Manager>,
): WorkloadUnderTest<T, Options, Client, Manager> => workload;

/**
 * Starts the suite (minutes when the tier is cold: it builds its binaries and imports images);
 * resolves once the manager runs. A failure gives back what it took.
 */
export async function startControllerOnNodeTier<
  T extends WorkloadObject,
  Options extends ControllerOptionsOf,
  Client extends AdminClient,
  Manager extends ManagerOf,
>(
  workload: WorkloadUnderTest<T, Options, Client, Manager>,
  options: ControllerOnNodeTierOptions<Options>,
): Promise<ControllerOnNodeTier<T, Client, Manager>> {
  const suite = controllerOnNodeTier(undefined, workload, options);
  await suite.start();
  return suite;
}

interface Started<Client, Manager> {
  tier: NodeTier;
  core: CoreV1Api;
  images: Record<string, LocalImage>;
  admin: Client;
  namespace: string;
  manager: Manager;
  cleanup: (() => Promise<void>) | void;
}

/**
 * The suite of one test file: with `hooks`, started in its `beforeAll` (allowed 10 minutes) and
 * stopped in its `afterAll` — its members are there inside tests and later hooks; without, not
 * started (`start()`).
 */
export function controllerOnNodeTier<
  T extends WorkloadObject,
  Options extends ControllerOptionsOf,
  Client extends AdminClient,
  Manager extends ManagerOf,
>(
  hooks: SuiteHooks | undefined,
  workload: WorkloadUnderTest<T, Options, Client, Manager>,
  options: ControllerOnNodeTierOptions<Options>,
): ControllerOnNodeTier<T, Client, Manager> {
  type State = Started<Client, Manager>;
  const Kind = workload.kind.resourceType;
  const writes: string[] = [];
  let started: Partial<State> = {};
  const the = <K extends keyof State>(member: K): NonNullable<State[K]> => {
    const value = started[member];
    if (value === undefined) throw new Error(`steward: the node-tier suite has no ${member} yet`);
    return value as NonNullable<State[K]>;
  };
  const get = <O extends ObjectOf>(type: ResourceTypeOf, name: string) =>
    the('admin').get<O>(type, name, the('namespace'));
  const inNamespace = (name: string) => ({ name, namespace: the('namespace') });
  const until = (
    name: string,
    holds: (obj: T) => boolean,
    description: string,
    timeoutMs = 60_000,
  ): Promise<T> =>
    eventually(
      async () => {
        const obj = await get<T>(Kind, name);
        return holds(obj) ? obj : undefined;
      },
      { description, timeoutMs, intervalMs: options.lookEveryMs ?? 200 },
    );
  const condition = (obj: T, type: string) => obj.status?.conditions?.find((c) => c.type === type);
  const readyCondition = (obj: T) => condition(obj, 'Ready');

  const suite: ControllerOnNodeTier<T, Client, Manager> = {
    get tier() {
      return the('tier');
    },
    get images() {
      return the('images');
    },
    get admin() {
      return the('admin');
    },
    get namespace() {
      return the('namespace');
    },
    get manager() {
      return the('manager');
    },
    writes,
    create: (name, spec) =>
      the('admin').create<T>(Kind, customObject<T>(workload.kind, inNamespace(name), spec)),
    read: (name) => get<T>(Kind, name),
    patch: (name, patch) => the('admin').mergePatch<T>(Kind, name, the('namespace'), patch),
    pause: async (name) => {
      await suite.patch(name, { metadata: { annotations: { [PausedAnnotation]: 'true' } } });
      return suite.conditionTrue(name, 'Paused');
    },
    resume: async (name) => {
      await suite.patch(name, { metadata: { annotations: { [PausedAnnotation]: null } } });
      return suite.ready(name);
    },
    get,
    delete: (type, name, options) => the('admin').delete(type, name, the('namespace'), options),
    until,
    ready: (name, timeoutMs = workload.readyTimeoutMs ?? 120_000) =>
      until(
        name,
        (obj) =>
          readyCondition(obj)?.status === 'True' &&
          readyCondition(obj)?.observedGeneration === obj.metadata.generation,
        `${name} Ready`,
        timeoutMs,
      ),
    notReady: (name, reason, timeoutMs = 60_000) => {
      const reasons = [reason].flat();
      return until(
        name,
        (obj) =>
          readyCondition(obj)?.status === 'False' && reasons.includes(readyCondition(obj)!.reason),
        `${name} Ready=False ${reasons.join(' or ')}`,
        timeoutMs,
      );
    },
    conditionTrue: (name, type) =>
      until(name, (obj) => condition(obj, type)?.status === 'True', `${name}: ${type}=True`),
    gone: async (name) => {
      await eventually(
        () =>
          get(Kind, name).then(
            () => false,
            () => true,
          ),
        { description: `${name}: gone` },
      );
    },
    recreated: async (type, name) => {
      await eventually(
        () =>
          get(type, name).then(
            () => true,
            () => false,
          ),
        { description: `${name} recreated` },
      );
    },
    writesDuring: async (windowMs, settleMs) => {
      await sleep(settleMs);
      writes.length = 0;
      await sleep(windowMs);
      return [...writes];
    },
    podIp: async (pod) =>
      (await the('core').readNamespacedPod(inNamespace(pod))).status?.podIP ?? '',
    serviceIp: async (service) =>
      (await the('core').readNamespacedService(inNamespace(service))).spec?.clusterIP ?? '',
    secret: async (name) => {
      const { data = {} } = await the('core').readNamespacedSecret(inNamespace(name));
      return Object.fromEntries(
        Object.entries(data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]),
      );
    },
    start: async () => {
      started = {
        tier:
          options.nodes === 3
            ? await acquireNodeTier({ nodes: 3, networkPolicy: options.networkPolicy ?? false })
            : await acquireNodeTier(),
      };
      try {
        const tier = started.tier!;
        started.images = await localImages(...options.images);
        for (const image of Object.values(started.images)) await tier.importImage(image);
        await installCRDs(tier.kubeConfig, join(repoRoot(), 'charts', workload.chart, 'crds'));
        started.core = tier.kubeConfig.makeApiClient(CoreV1Api);
        started.admin = new workload.runtime.KubeClient(tier.kubeConfig, {
          fieldManager: 'test-admin',
        });
        started.namespace = await tier.createNamespace(options.namespace);
        started.cleanup = await options.prepare?.(suite);
        const manager = new workload.runtime.Manager({
          kubeConfig: tier.kubeConfig,
          name: workload.chart,
          client: {
            onRequest: (info) => {
              if (!['get', 'list', 'watch'].includes(info.verb))
                writes.push(`${info.verb} ${info.path}`);
            },
          },
        });
        workload.controller(manager, {
          pollIntervalMs: options.pollIntervalMs ?? 1000,
          busyPollIntervalMs: options.busyPollIntervalMs ?? 300,
          ...options.controller,
          selection: { namespace: started.namespace },
        } as Options);
        started.manager = manager;
        manager.start().catch(options.onManagerError ?? (() => undefined));
      } catch (error) {
        await suite.stop().catch(() => undefined);
        throw error;
      }
    },
    stop: async () => {
      const { tier, admin, manager, cleanup } = started;
      await manager?.stop();
      if (cleanup) await cleanup();
      await admin?.close();
      await tier?.release();
      started = {};
    },
  };
  hooks?.beforeAll(() => suite.start(), 600_000);
  hooks?.afterAll(() => suite.stop());
  return suite;
}
