import {
  and,
  controllerFor,
  generationChanged,
  TerminalError,
  type Controller,
  type EventRecorder,
  type Manager,
  type MapFunc,
  type ObjectReconciler,
  type Predicate,
  type Result,
  type StatusWriter,
} from '@steward/controller';
import { removeFinalizerPatch, withFinalizer } from '@steward/finalizers';
import { ConflictError, type KubeObject } from '@steward/kube';
import { ProviderProfile, type Provider } from '@steward/provider-profile-api';
import {
  bucketRateLimiter,
  itemExponentialFailureRateLimiter,
  maxOf,
  type RateLimiter,
} from '@steward/workqueue';
import { CredentialsCheckSchedule } from './check-schedule.js';
import { runCredentialsCheck, type CredentialsCheck } from './credentials-check.js';
import { InUseFinalizer } from './reasons.js';
import {
  planStatus,
  stateFromCatalogue,
  stateFromCheck,
  stateInUse,
  type ProfileState,
} from './status.js';
import { profileUsage, type ProfileUsage, type ProfileUser, type ProfileUserRef } from './users.js';

type Profile = ProviderProfile;
const Profiles = ProviderProfile.resourceType;

export interface ProviderProfileControllerOptions {
  /**
   * The `spec.provider` values this process handles (e.g. `['aws', 'gcp']`). Profiles of other
   * providers are left entirely alone — no finalizer, no status — so that one controller process
   * per provider family can run side by side without fighting over a profile. `kubernetes`
   * profiles have no credentials: they are Ready (`CatalogueAccepted`) as admitted. Since
   * `status.usedBy` counts only `users`, the one process that handles kubernetes profiles must be
   * given every kind that references them.
   */
  providers: readonly Provider[];
  /**
   * Verifies a handled profile's credentials (see `CredentialsCheck`). Required unless `providers`
   * is only `kubernetes`; never called for a kubernetes profile.
   */
  checkCredentials?: CredentialsCheck;
  /**
   * The kinds that reference profiles; their objects are counted in `status.usedByKind` (this
   * process writes only these kinds' entries; `status.usedBy` is the sum of every entry). Default:
   * none.
   */
  users?: readonly ProfileUser[];
  /**
   * The finalizer this process keeps on handled profiles while its users reference them. Default:
   * `inUseFinalizerFor(users)` — one per set of user kinds (e.g.
   * `steward.dev/in-use-by-cacheclusters`), so two processes that use one profile (CacheCluster
   * and PostgresCluster on a kubernetes profile) each hold it for their own users.
   */
  finalizer?: string;
  /** Check settled results again this often. Default 5 min. */
  recheckIntervalMs?: number;
  /** A check that takes longer is a transient `ProviderUnreachable`. Default 30 s. */
  checkTimeoutMs?: number;
  /** Normal and Warning Events on changes of `Ready` (terminal failures: the manager's events). */
  events?: EventRecorder;
  /** Default 2: one slow provider does not hold up every other profile. */
  maxConcurrentReconciles?: number;
  /**
   * Backoff after transient failures and write conflicts. Default: per profile 1 s doubling to
   * 5 min, max'd with a 10 qps / burst 100 bucket — credential checks call cloud APIs, so the
   * first retry is not the runtime's 5 ms.
   */
  rateLimiter?: RateLimiter;
  /** Default `providerprofile`; unique per manager. */
  name?: string;
}

/** Thrown (and retried with backoff) after a check that may succeed by itself later. */
export class TransientCredentialsError extends Error {
  override readonly name = 'TransientCredentialsError';
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/** A user object's reference: for messages only. */
function refOf(kind: string, obj: KubeObject): ProfileUserRef {
  const { namespace, name } = obj.metadata;
  return { kind, ...(namespace ? { namespace } : {}), name: name ?? '' };
}

/**
 * The ProviderProfile controller. For every profile whose provider is in `options.providers`:
 * - keeps its finalizer (`options.finalizer`, default `inUseFinalizerFor(users)`) on it;
 * - checks its credentials (`checkCredentials`) on creation, on each new generation and every
 *   `recheckIntervalMs` — a kubernetes profile has none: it is `Ready=True, CatalogueAccepted`
 *   with what it offers — and states the outcome in `Ready` (see `ProviderProfileReasons`): a
 *   failure the platform team must fix also sets `Stalled=True` and is reported by the runtime as a
 *   terminal failure (a Warning Event), then checked again only at the next interval or spec
 *   change; a transient failure is retried with backoff;
 * - keeps `status.usedByKind[kind]` equal to the number of objects of each `options.users` kind
 *   that reference it (and `usedBy` the sum over every kind, other processes' included),
 *   including objects being deleted;
 * - when it is deleted while used: keeps the finalizer, `Ready=False, InUse` naming the users, a
 *   Warning Event; once nothing references it, removes the finalizer (only its own).
 * Status is written only when it changes: a converged profile costs zero API writes, whatever
 * triggers the reconcile. Reconciles are triggered by the profile's spec changes, creation and
 * deletion, by a user object appearing, going or changing its reference, and by the recheck timer.
 */
export function providerProfileController(
  manager: Manager,
  options: ProviderProfileControllerOptions,
): Controller {
  const name = options.name ?? 'providerprofile';
  const client = manager.client;
  const log = manager.logger.child({ controller: name });
  const handled = new Set<string>(options.providers);
  const withCredentials = options.providers.filter((p) => p !== 'kubernetes');
  const checkCredentials = options.checkCredentials;
  if (withCredentials.length > 0 && !checkCredentials) {
    throw new TypeError(
      `steward: providerProfileController needs checkCredentials for ${withCredentials.join(', ')} profiles`,
    );
  }
  const handles = (profile: Profile | undefined): profile is Profile =>
    profile !== undefined && handled.has(profile.spec?.provider);
  const schedule = new CredentialsCheckSchedule(options.recheckIntervalMs ?? 5 * 60_000);
  const checkTimeoutMs = options.checkTimeoutMs ?? 30_000;
  const profiles = manager.informers.informerFor<Profile>(Profiles);

  // One index per user kind: profile name → the objects referencing it.
  const sources = (options.users ?? []).map((user, i) => {
    const informer = manager.informers.informerFor(user.resourceType, user.selection ?? {});
    const index = `${name}.steward.dev/profile-ref-${i}`;
    informer.store.addIndexers({
      [index]: (obj) => {
        const ref = user.profileNameOf(obj);
        return ref ? [ref] : [];
      },
    });
    return { user, informer, index };
  });

  const finalizer = options.finalizer ?? inUseFinalizerFor(options.users ?? []);
  /** The state with this process's per-kind counts (every kind it watches, zeros included). */
  const counted = (state: ProfileState, usage: ProfileUsage): ProfileState => {
    if (sources.length === 0) return state;
    const byKind: Record<string, number> = {};
    for (const { user } of sources) byKind[user.resourceType.kind] = 0;
    for (const u of usage.users) byKind[u.kind] = (byKind[u.kind] ?? 0) + 1;
    return { ...state, usedByKind: byKind };
  };

  const usageOf = (profileName: string): ProfileUsage =>
    profileUsage(
      sources.flatMap(({ user, informer, index }) =>
        informer.store.byIndex(index, profileName).map((obj) => refOf(user.resourceType.kind, obj)),
      ),
    );

  /** Writes `state` if it changes anything; an Event when `Ready` changed and `event` says so. */
  const converge = async (
    status: StatusWriter<Profile>,
    state: ProfileState,
    event: 'Normal' | 'Warning' | undefined,
  ): Promise<void> => {
    const profile = status.object;
    const plan = planStatus(profile, state);
    if (!plan.changed) return;
    await status.write(plan.change);
    if (plan.readyChanged) {
      log.info(
        { profile: profile.metadata.name, ready: state.ready.status, reason: state.ready.reason },
        'ProviderProfile Ready changed',
      );
      if (event) options.events?.event(profile, event, state.ready.reason, state.ready.message);
    }
  };

  const apply = async (
    key: string,
    status: StatusWriter<Profile>,
    usage: ProfileUsage,
    signal: AbortSignal,
  ): Promise<Result> => {
    const profile = status.object;
    if (profile.spec.provider === 'kubernetes') return acceptCatalogue(status, usage);
    const now = Date.now();
    let result = schedule.fresh(key, profile, now);
    if (!result) {
      // Present: checked at construction for every handled provider but kubernetes.
      result = await runCredentialsCheck(checkCredentials!, profile, signal, checkTimeoutMs);
      schedule.record(key, profile, result, Date.now());
    }
    const state = counted(stateFromCheck(result, usage.count), usage);
    if (result.ok) {
      await converge(status, state, 'Normal');
      return { requeueAfter: schedule.dueIn(key, profile, Date.now()) };
    }
    if (result.transient) {
      await converge(status, state, 'Warning');
      throw new TransientCredentialsError(result.reason, result.message);
    }
    // Only the platform team can fix this (a Secret, an IAM policy, the profile): the runtime
    // records it as terminal (Stalled, Warning Event) and does not retry. The fix may be outside
    // the profile, where no event reaches this controller, so it is looked at again on schedule.
    await converge(status, state, undefined);
    throw new TerminalError(result.reason, result.message, {
      recheckAfter: schedule.dueIn(key, profile, Date.now()),
    });
  };

  /**
   * A kubernetes profile: nothing to check and nothing that changes without a new generation, so
   * no recheck is scheduled; a spec change or a user's change reconciles it again.
   */
  const acceptCatalogue = async (
    status: StatusWriter<Profile>,
    usage: ProfileUsage,
  ): Promise<Result> => {
    const state = counted(stateFromCatalogue(status.object, usage.count), usage);
    if (!state.stalled) {
      await converge(status, state, 'Normal');
      return {};
    }
    await converge(status, state, undefined);
    throw new TerminalError(state.ready.reason, state.ready.message);
  };

  const cleanup = async (
    status: StatusWriter<Profile>,
    usage: ProfileUsage,
  ): Promise<{ requeueAfter: number } | void> => {
    if (usage.count === 0) return; // the finalizer goes, and the profile with it
    await converge(
      status,
      counted(stateInUse(status.object.metadata.name!, usage), usage),
      'Warning',
    );
    // Users' deletions wake this controller up; the requeue is only a safety net.
    return { requeueAfter: options.recheckIntervalMs ?? 5 * 60_000 };
  };

  /**
   * Migration from the one finalizer every process shared (`steward.dev/in-use`, which a process
   * without users of its own removed while another's users still referenced the profile): once
   * this process's own finalizer is on, the shared one goes (a `test`-guarded JSON patch).
   */
  const dropLegacyFinalizer = async (key: string): Promise<void> => {
    if (finalizer === InUseFinalizer) return;
    const current = profiles.store.get(key);
    if (!current?.metadata.finalizers?.includes(finalizer)) return;
    const patch = removeFinalizerPatch(current, InUseFinalizer);
    if (!patch) return;
    await client.jsonPatch(Profiles, current.metadata.name!, undefined, patch);
  };

  const reconciler: ObjectReconciler<Profile> = async (ctx, profile) => {
    const request = ctx.request;
    if (!handles(profile)) return;
    const usage = usageOf(profile.metadata.name!);
    try {
      const outcome = await withFinalizer<Profile, Result>(
        client,
        Profiles,
        profile,
        finalizer,
        {
          apply: () => apply(request.key, ctx.status, usage, ctx.signal),
          cleanup: () => cleanup(ctx.status, usage),
        },
        { signal: ctx.signal },
      );
      if (outcome.action === 'applied') {
        await dropLegacyFinalizer(request.key);
        return outcome.result;
      }
      if (outcome.action === 'cleanup-pending') return { requeueAfter: outcome.requeueAfter };
      if (outcome.action === 'cleaned-up') schedule.forget(request.key);
      return;
    } catch (error) {
      if (causedByConflict(error)) {
        // The cache was behind our own last write; it catches up within moments.
        log.debug({ profile: request.key }, 'status write conflict; reconciling again');
        return { requeueAfter: 1_000 };
      }
      throw error;
    }
  };

  const handledProfiles: Predicate<KubeObject> = {
    create: (obj) => handles(obj as Profile),
    update: (_old, obj) => handles(obj as Profile),
    delete: (obj) => handles(obj as Profile),
  };
  const builder = controllerFor(manager, Profiles, {
    predicates: [and(handledProfiles, generationChanged)],
  })
    .named(name)
    .withOptions({
      maxConcurrentReconciles: options.maxConcurrentReconciles ?? 2,
      rateLimiter:
        options.rateLimiter ??
        maxOf(itemExponentialFailureRateLimiter(1_000, 5 * 60_000), bucketRateLimiter(10, 100)),
    });
  for (const { user } of sources) {
    // A user object maps to the profile it references, when this process handles that profile.
    const map: MapFunc = (obj) => {
      const ref = user.profileNameOf(obj);
      return ref && handles(profiles.store.get(ref)) ? [ref] : [];
    };
    // Only what changes a count: creation, deletion, a changed reference (not status churn).
    const referenceChanged: Predicate<KubeObject> = {
      update: (old, obj) => user.profileNameOf(old) !== user.profileNameOf(obj),
    };
    builder.watches(user.resourceType, map, {
      selection: user.selection ?? {},
      predicates: [referenceChanged],
    });
  }
  // A handled profile goes only through its finalizer's cleanup, which forgets its schedule.
  return builder.completeObjects(reconciler);
}

function causedByConflict(error: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e = error; e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    if (e instanceof ConflictError) return true;
    seen.add(e);
  }
  return false;
}

/**
 * The in-use finalizer of a process whose users are `users`:
 * `steward.dev/in-use-by-<plural>[-<plural>…]` (sorted), or the shared `steward.dev/in-use` for a
 * process that counts no users.
 */
export function inUseFinalizerFor(users: readonly ProfileUser[]): string {
  if (users.length === 0) return InUseFinalizer;
  const plurals = [...new Set(users.map((u) => u.resourceType.plural))].sort();
  return `${InUseFinalizer}-by-${plurals.join('-')}`.slice(0, 'steward.dev/'.length + 63);
}
