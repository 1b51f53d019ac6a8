import { findCondition } from '@steward/conditions';
import { controllerFor, Manager } from '@steward/controller';
import { KubeEventRecorder } from '@steward/events';
import {
  Events,
  KubeClient,
  Namespaces,
  NotFoundError,
  type KubeObject,
  type ResourceType,
} from '@steward/kube';
import { eventually, kstatus, startControlPlane, type ControlPlane } from '@steward/testing';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TerminalError } from '@steward/controller';
import {
  ExternalAnnotations as A,
  externalChanges,
  ledgerState,
  managedReconciler,
  type ExternalProvider,
  type ManagedObject,
} from '../src/index.js';

const Buckets: ResourceType = {
  group: 'external.steward.dev',
  version: 'v1alpha1',
  kind: 'Bucket',
  plural: 'buckets',
  namespaced: true,
};
interface Bucket extends ManagedObject {
  spec: ManagedObject['spec'] & { size: number };
}

/** The provider's world: our own ExternalProvider interface over an in-memory store (unit double). */
class World {
  resources = new Map<string, { owner?: string; size: number }>();
  creates: string[] = [];
  deletes: string[] = [];
  /** Names created under an unrecorded attempt that observe cannot see (non-deterministic names). */
  hidden = new Set<string>();
  failAfterCreate = false;
  failCreateTerminal = false;
  createAttempts = 0;
  /** While set, every observe fails with this retryable error (a throttled or failing API). */
  observeError: string | undefined;
  /** Observe calls per external name. */
  observes = new Map<string, number>();
}

/**
 * Lets a neighbour that is polled every 500 ms be observed `polls` more times: a clock that runs
 * on the same controller queue as the object under test, instead of a fixed sleep.
 */
async function afterPolls(world: World, neighbour: string, polls: number): Promise<void> {
  const start = world.observes.get(neighbour) ?? 0;
  await eventually(() => (world.observes.get(neighbour) ?? 0) >= start + polls, {
    description: `${polls} more polls of ${neighbour}`,
  });
}

type Resource = { owner?: string; size: number };

function provider(
  world: World,
  deterministicNames: boolean,
): ExternalProvider<Bucket, void, number, Resource> {
  return {
    name: 'test-provider',
    deterministicNames,
    externalName: (obj) => `${obj.metadata.namespace}-${obj.metadata.name}`,
    validate: (obj) => {
      if (obj.spec.size > 100)
        throw new TerminalError('InvalidSize', `size ${obj.spec.size} is over 100`);
      return obj.spec.size;
    },
    connect: async () => ({
      observe: async (obj, name, size) => {
        world.observes.set(name, (world.observes.get(name) ?? 0) + 1);
        if (world.observeError) throw new Error(world.observeError);
        const r = world.resources.get(name);
        if (!r || world.hidden.has(name)) return { exists: false };
        return {
          exists: true,
          raw: { ...r },
          ready: true,
          state: 'available',
          upToDate: size === undefined || r.size === size,
          mark: r.owner ? { uid: r.owner } : null,
          status: { size: r.size },
        };
      },
      create: async (obj, name) => {
        world.createAttempts++;
        if (world.failCreateTerminal)
          throw new TerminalError('InvalidParameter', 'size is not allowed by the provider');
        world.creates.push(name);
        world.resources.set(name, { owner: obj.metadata.uid, size: obj.spec.size });
        if (!deterministicNames) world.hidden.add(name);
        if (world.failAfterCreate)
          throw new Error('connection reset after the create call (outcome unknown)');
      },
      update: async (_obj, name, size, observed) => {
        expect(observed.raw.size).not.toBe(size); // acts on what observe saw
        world.resources.get(name)!.size = size;
      },
      delete: async (_obj, name) => {
        world.deletes.push(name);
        world.resources.delete(name);
        return { done: true };
      },
    }),
  };
}

let plane: ControlPlane;
let admin: KubeClient;
const running: {
  manager: Manager;
  started: Promise<void>;
  recorder: KubeEventRecorder;
  /** The controller's own writes (not its Events): method and path. */
  writes: string[];
}[] = [];
/** Each test works in its own namespace, watched by its own manager: no test sees another's objects. */
let ns = 'ext';
let testNumber = 0;

beforeAll(async () => {
  plane = await startControlPlane({ crds: [join(import.meta.dirname, 'fixtures/crds')] });
  admin = new KubeClient(plane.kubeConfig, { fieldManager: 'test-admin' });
});
beforeEach(async () => {
  ns = `ext-${++testNumber}`;
  await admin.create(Namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
});
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.manager.stop();
    await r.recorder.shutdown();
  }
});
afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

function run(world: World, deterministicNames = true): void {
  const writes: string[] = [];
  const manager = new Manager({
    kubeConfig: plane.kubeConfig,
    name: 'bucket-controller',
    client: {
      onRequest: (info) => {
        if (info.method !== 'GET' && info.path.includes('/buckets'))
          writes.push(`${info.method} ${info.path}`);
      },
    },
  });
  const recorder = new KubeEventRecorder(manager.client, {
    reportingController: 'steward.dev/bucket-controller',
  });
  const buckets = provider(world, deterministicNames);
  controllerFor(manager, Buckets, {
    selection: { namespace: ns },
    predicates: [externalChanges],
  })
    .named('bucket')
    .completeObjects(
      managedReconciler<Bucket, void>({
        client: manager.client,
        resourceType: Buckets,
        admit: () => ({
          action: 'manage',
          provider: buckets,
          context: undefined,
          adoptionAllowed: true,
        }),
        finalizer: 'external.steward.dev/bucket',
        busyPollIntervalMs: 200,
        pollIntervalMs: 500,
        events: recorder,
      }),
    );
  const started = manager.start();
  started.catch(() => undefined);
  running.push({ manager, started, recorder, writes });
}

const create = (name: string, spec: Partial<Bucket['spec']> = {}) =>
  admin.create<Bucket>(Buckets, {
    apiVersion: 'external.steward.dev/v1alpha1',
    kind: 'Bucket',
    metadata: { name, namespace: ns },
    spec: { size: 1, ...spec },
  });
const read = (name: string) => admin.get<Bucket>(Buckets, name, ns);
const condition = async (name: string, type: string) =>
  findCondition((await read(name)).status?.conditions, type);

describe('the managed reconciler on a real API server', () => {
  it('records the external name before creating, creates once, and reports Synced and Ready', async () => {
    const world = new World();
    run(world);
    await create('plain');
    await eventually(async () => (await condition('plain', 'Ready'))?.status === 'True', {
      description: 'Ready',
    });
    const b = await read('plain');
    expect(b.metadata.annotations?.[A.externalName]).toBe(`${ns}-plain`);
    expect(ledgerState(b.metadata.annotations)).toBe('succeeded');
    const succeeded = b.metadata.annotations?.[A.createSucceeded] ?? '';
    expect(succeeded >= (b.metadata.annotations?.[A.createPending] ?? '~')).toBe(true);
    expect((await condition('plain', 'Synced'))?.status).toBe('True');
    expect(world.creates).toEqual([`${ns}-plain`]);
    // Ready in at most four writes: pending record (finalizer + name + mark), create-succeeded,
    // status Creating, status Ready.
    const own = running[0]!.writes.filter((w) => w.includes('/buckets/plain'));
    expect(own.length, own.join('\n')).toBeLessThanOrEqual(4);
    // a spec change is an update, not a second create
    await admin.update<Bucket>(Buckets, { ...b, spec: { ...b.spec, size: 5 } });
    await eventually(() => world.resources.get(`${ns}-plain`)?.size === 5, {
      description: 'updated',
    });
    expect(world.creates).toEqual([`${ns}-plain`]);
  });

  it('after a create whose outcome was lost, finds the resource and never creates twice (deterministic names)', async () => {
    const world = new World();
    world.failAfterCreate = true;
    run(world);
    await create('lost-outcome');
    await eventually(() => world.creates.length === 1, { description: 'the first create' });
    world.failAfterCreate = false;
    await eventually(async () => (await condition('lost-outcome', 'Ready'))?.status === 'True', {
      description: 'Ready after retry',
    });
    expect(world.creates).toEqual([`${ns}-lost-outcome`]);
    expect(world.resources.size).toBe(1);
  });

  it('stops with CreateOutcomeUnknown — no second create — when names are not deterministic', async () => {
    const world = new World();
    world.failAfterCreate = true;
    run(world, false);
    await create('unknown-outcome');
    await eventually(
      async () => (await condition('unknown-outcome', 'Ready'))?.reason === 'CreateOutcomeUnknown',
      {
        description: 'the unknown-outcome condition',
      },
    );
    const stalled = await condition('unknown-outcome', 'Ready');
    expect(stalled?.message).toContain('remove the steward.dev/external-create-pending annotation');
    world.failAfterCreate = false;
    await create('ticker');
    await afterPolls(world, `${ns}-ticker`, 3);
    expect(world.creates.filter((n) => n.endsWith('-unknown-outcome'))).toEqual([
      `${ns}-unknown-outcome`,
    ]);
  });

  it('records a definite create failure and reports it without retrying', async () => {
    const world = new World();
    world.failCreateTerminal = true;
    run(world);
    await create('invalid');
    await eventually(
      async () => (await condition('invalid', 'Stalled'))?.reason === 'InvalidParameter',
      { description: 'Stalled' },
    );
    expect(ledgerState((await read('invalid')).metadata.annotations)).toBe('failed');
    expect(world.creates).toEqual([]);
    world.failCreateTerminal = false;
    await create('ticker');
    await afterPolls(world, `${ns}-ticker`, 3);
    // refused once: never asked again for the same generation (the ticker's create is the second)
    expect(world.createAttempts).toBe(2);
    expect(world.creates).toEqual([`${ns}-ticker`]);
  });

  it('after a refused create, a resource of that name made by someone else is not taken over', async () => {
    const world = new World();
    world.failCreateTerminal = true;
    run(world);
    const obj = await create('refused');
    await eventually(
      async () => (await condition('refused', 'Ready'))?.reason === 'InvalidParameter',
      {
        description: 'the create refused',
      },
    );
    expect(ledgerState((await read('refused')).metadata.annotations)).toBe('failed');
    // someone else creates a resource of that name
    world.resources.set(`${ns}-refused`, { owner: 'someone-else', size: 9 });
    await admin.update<Bucket>(Buckets, { ...(await read('refused')), spec: { size: 2 } });
    await eventually(
      async () => (await condition('refused', 'Ready'))?.reason === 'AlreadyExists',
      {
        description: 'AlreadyExists, not adopted',
      },
    );
    expect(world.resources.get(`${ns}-refused`)).toEqual({ owner: 'someone-else', size: 9 });
    expect(world.resources.get(`${ns}-refused`)?.owner).not.toBe(obj.metadata.uid);
    expect(world.createAttempts).toBe(1);
  });

  it('refuses to take over a resource it did not create, unless spec.adopt', async () => {
    const world = new World();
    world.resources.set(`${ns}-taken`, { owner: 'someone-else', size: 1 });
    run(world);
    await create('taken');
    await eventually(async () => (await condition('taken', 'Ready'))?.reason === 'AlreadyExists', {
      description: 'AlreadyExists',
    });
    const b = await read('taken');
    await admin.update<Bucket>(Buckets, { ...b, spec: { ...b.spec, adopt: true } });
    await eventually(async () => (await condition('taken', 'Ready'))?.status === 'True', {
      description: 'adopted',
    });
    expect(world.creates).toEqual([]);
  });

  it('retains the external resource by default when the object is deleted, and says so in an Event', async () => {
    const world = new World();
    run(world);
    await create('kept');
    await eventually(async () => (await condition('kept', 'Ready'))?.status === 'True');
    await admin.delete(Buckets, 'kept', ns);
    await eventually(
      () =>
        read('kept').then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'object gone' },
    );
    expect(world.resources.has(`${ns}-kept`)).toBe(true);
    expect(world.deletes).toEqual([]);
    await running[0]!.recorder.flush();
    const events = await admin.list<KubeObject & { reason?: string; note?: string }>(Events, {
      namespace: ns,
    });
    expect(events.items.find((e) => e.reason === 'ExternalResourceRetained')?.note).toContain(
      `${ns}-kept stays at test-provider`,
    );
  });

  it('deletes the external resource with deletionPolicy Delete, then lets the object go', async () => {
    const world = new World();
    run(world);
    await create('doomed', { deletionPolicy: 'Delete' });
    await eventually(async () => (await condition('doomed', 'Ready'))?.status === 'True');
    await admin.delete(Buckets, 'doomed', ns);
    await eventually(
      () =>
        read('doomed').then(
          () => false,
          (e) => e instanceof NotFoundError,
        ),
      { description: 'object gone' },
    );
    expect(world.deletes).toEqual([`${ns}-doomed`]);
    expect(world.resources.has(`${ns}-doomed`)).toBe(false);
  });

  it('while the provider fails: Synced=False and Ready=False with the error, no Stalled; an available resource stays Ready; recovers alone', async () => {
    const world = new World();
    world.observeError = 'Rate exceeded (Throttling)';
    run(world);
    await create('throttled');
    await eventually(
      async () => (await condition('throttled', 'Ready'))?.reason === 'ReconcileError',
      {
        description: 'Ready=False ReconcileError before the resource was ever seen',
      },
    );
    expect(await condition('throttled', 'Ready')).toMatchObject({
      status: 'False',
      message: 'Rate exceeded (Throttling)',
    });
    expect(await condition('throttled', 'Synced')).toMatchObject({
      status: 'False',
      reason: 'ReconcileError',
    });
    expect(await condition('throttled', 'Stalled')).toBeUndefined();
    expect(world.createAttempts).toBe(0);

    world.observeError = undefined;
    await eventually(async () => (await condition('throttled', 'Ready'))?.status === 'True', {
      description: 'Ready once the provider answers',
    });

    // the resource is available: a failing API makes it unsynced, not unready
    world.observeError = 'Service Unavailable';
    const current = await read('throttled');
    await admin.update<Bucket>(Buckets, { ...current, spec: { ...current.spec, size: 2 } });
    await eventually(
      async () => (await condition('throttled', 'Synced'))?.message === 'Service Unavailable',
      {
        description: 'Synced=False with the error',
      },
    );
    expect((await condition('throttled', 'Ready'))?.status).toBe('True');
    world.observeError = undefined;
    await eventually(async () => world.resources.get(`${ns}-throttled`)?.size === 2, {
      description: 'the update applied after recovery',
    });
    expect(world.creates).toHaveLength(1);
  });

  it('observes every processed generation: kstatus reads Current, InProgress while retrying, Failed when refused', async () => {
    const world = new World();
    run(world);
    await create('gitops');
    const verdict = async () => (await kstatus([await read('gitops')]))[0]!;
    await eventually(async () => (await verdict()).status === 'Current', {
      description: 'Current once Ready',
    });

    // refused at admission (validate): generation 2 is observed, Synced=False, Failed
    await admin.mergePatch(Buckets, 'gitops', ns, { spec: { size: 500 } });
    await eventually(async () => (await verdict()).status === 'Failed', {
      description: 'Failed after the refused change',
    });
    let current = await read('gitops');
    expect(current.metadata.generation).toBe(2);
    expect(current.status?.observedGeneration).toBe(2);
    for (const c of current.status?.conditions ?? []) expect(c.observedGeneration).toBe(2);
    expect(findCondition(current.status?.conditions, 'Synced')).toMatchObject({
      status: 'False',
      reason: 'InvalidSize',
    });
    expect((await verdict()).message).toContain('size 500 is over 100');

    // retrying (the provider fails) at generation 3: InProgress, still observed
    world.observeError = 'Service Unavailable';
    await admin.mergePatch(Buckets, 'gitops', ns, { spec: { size: 7 } });
    await eventually(async () => (await verdict()).status === 'InProgress', {
      description: 'InProgress while retrying',
    });
    current = await read('gitops');
    expect(current.status?.observedGeneration).toBe(3);
    expect(findCondition(current.status?.conditions, 'Stalled')).toBeUndefined();
    expect(findCondition(current.status?.conditions, 'Reconciling')?.status).toBe('True');

    world.observeError = undefined;
    await eventually(async () => (await verdict()).status === 'Current', {
      description: 'Current once applied',
    });
    expect(world.resources.get(`${ns}-gitops`)?.size).toBe(7);
    expect(findCondition((await read('gitops')).status?.conditions, 'Reconciling')).toBeUndefined();
  });

  it('touches nothing while paused and says so', async () => {
    const world = new World();
    run(world);
    await admin.create<Bucket>(Buckets, {
      apiVersion: 'external.steward.dev/v1alpha1',
      kind: 'Bucket',
      metadata: { name: 'paused', namespace: ns, annotations: { [A.paused]: 'true' } },
      spec: { size: 1 },
    });
    await eventually(
      async () => (await condition('paused', 'Synced'))?.reason === 'ReconcilePaused',
      { description: 'paused condition' },
    );
    expect(world.creates).toEqual([]);
    expect((await read('paused')).metadata.finalizers ?? []).toEqual([]);
  });
});
