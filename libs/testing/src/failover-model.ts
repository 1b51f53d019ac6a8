/**
 * What the models of the workload kinds' failover plans share (CacheCluster's `planRoles`,
 * PostgresCluster's `planInstances`): a small simulated world of N servers behind one status that
 * records failovers, the controller's reconcile as it writes that status (a precondition, a 409
 * re-read, a crash between actions), the failover-record invariants every kind promises, and the
 * commands a random sequence is drawn from. Each kind's model supplies its servers (what a server
 * holds and how it replicates), its plan and its own invariants; `assertModelRuns` runs it.
 *
 * The invariants checked here, on every status write (`checkFailoverRecords`):
 *
 * - 4. Counted once: `failoverCount` equals the number of distinct failover records ever written.
 * - 5. Never re-chosen: `primary` changes only by a new failover record naming the old and the new
 *   primary (or another record the kind names); while a record is in progress, a later write
 *   keeps its target as `primary`, or replaces the record by a failover *from* that target.
 * - 7. A failover is `Completed` only once its target serves as primary.
 */
import fc from 'fast-check';
import { modelCommand, sometimes, type ModelCommand } from './model-runs.js';

/** What every simulated server has: a pod (`<cluster>-<ordinal>`), a container, a network link. */
export interface ModelServer {
  name: string;
  ordinal: number;
  ip: string;
  /** Its container runs. */
  container: boolean;
  /** Cut off from the controller, still running. */
  partitioned: boolean;
  /** The role label on its pod (lost when the pod is replaced). */
  roleLabel?: string;
  /**
   * Serving as a primary while partitioned when another was promoted: the one-writer invariant's
   * exception (a plan cannot stop what it cannot reach; fencing is out of a plan's scope).
   */
  splitBrainExcused: boolean;
}

/** A failover record, as far as the shared invariants read it. */
export interface ModelFailoverRecord {
  from?: string;
  to?: string;
  startedAt?: string;
  phase?: string;
}

/** The status fields the shared invariants read. */
export interface ModelStatus {
  primary?: string;
  failover?: ModelFailoverRecord;
  failoverCount?: number;
}

/** A record's identity: two writes hold one record while its `from`, `to` and `startedAt` agree. */
export const recordId = (r: ModelFailoverRecord | undefined): string | undefined =>
  r ? `${r.from}>${r.to}@${r.startedAt}` : undefined;

/** What a random reconcile does besides reconciling. */
export interface ReconcileDraw {
  /** The controller stops after carrying out this many of the actions (0: right after the write). */
  crashAfter?: number;
  /** Someone else wrote the status first (a new resourceVersion, the decision's fields unchanged). */
  conflict: boolean;
}

/** Which server a command hits: the one the status names primary, the old primary, another one, or by ordinal. */
export type ServerTarget = 'primary' | 'the old primary' | 'another' | number;

export abstract class FailoverModelWorld<
  Server extends ModelServer,
  Status extends ModelStatus,
  Memory = unknown,
> {
  status = {} as Status;
  /** The status's resourceVersion: any write moves it, someone else's too. */
  statusVersion = 0;
  /** What the controller keeps between reconciles; lost when it restarts or crashes. */
  memory?: Memory;
  /** Distinct failover records written so far (invariant 4). */
  failoverRecords = 0;

  constructor(
    /** The model's clock (ms); it moves only when a command says so. */
    public now: number,
    readonly servers: Server[],
  ) {}

  /** One reconcile as the kind's controller runs it; answers what happened, for the log. */
  abstract reconcile(draw: ReconcileDraw): string;
  /** `seconds` go by (and, with `catchUp`, every follower receives all its upstream has). */
  abstract passTime(seconds: number, catchUp: boolean): void;
  /** Clients write `bytes` on every server serving as primary; followers fall `lags` behind. */
  abstract write(bytes: number, lags: number[]): void;
  /** The status as the API server stores it, checking the invariants on the transition. */
  abstract writeStatus(next: Status): void;
  /** Invariant 1 at this moment: checked after every command and every promotion. */
  abstract checkOneWriter(): void;
  /** What a complete reconcile must leave behind. */
  protected abstract checkAfterReconcile(): void;
  /** Whether `s` serves as primary now (invariant 7). */
  protected abstract serves(s: Server): boolean;
  /** One server, for `describe()`. */
  protected abstract describeServer(s: Server): string;

  /** The primary the record in the status moved away from. */
  protected oldPrimary(): string | undefined {
    return this.status.failover?.from;
  }

  /** Called after every command with what it answered. */
  afterCommand(_name: string, _outcome: string | void): void {
    this.checkOneWriter();
  }

  fail(message: string): never {
    throw new Error(
      `${message}\n  world: ${this.describe()}\n  status: ${JSON.stringify(this.status)}`,
    );
  }

  describe(): string {
    return this.servers.map((s) => this.describeServer(s)).join(' ');
  }

  byName(name: string | undefined): Server | undefined {
    return this.servers.find((s) => s.name === name);
  }

  byIp(ip: string | undefined): Server | undefined {
    return this.servers.find((s) => s.ip === ip);
  }

  target(t: ServerTarget): Server {
    const first = this.servers[0]!;
    if (t === 'primary') return this.byName(this.status.primary) ?? first;
    if (t === 'the old primary') return this.byName(this.oldPrimary()) ?? first;
    if (t === 'another') return this.servers.find((s) => s.name !== this.status.primary) ?? first;
    return this.servers[t % this.servers.length]!;
  }

  /**
   * The controller's status write: under the precondition of the version it decided on; on a
   * conflict (someone wrote since) it reads again and refuses when a field the decision rests on
   * (`decidedOn`) changed — the reconcile starts over. Writes what the plan decided, the fields
   * it left unset absent. Answers false when it refused.
   */
  protected writeDecision(
    decided: Status,
    basis: { status: Status; version: number },
    decidedOn: (s: Status) => unknown[],
  ): boolean {
    if (basis.version !== this.statusVersion) {
      const latest = decidedOn(this.status);
      const before = decidedOn(basis.status);
      if (latest.some((value, i) => value !== before[i])) return false;
    }
    this.writeStatus(
      Object.fromEntries(
        Object.entries(decided).filter(([, value]) => value !== undefined),
      ) as unknown as Status,
    );
    return true;
  }

  /**
   * Carries out a plan's actions in order (`carryOut` skips one that fails) — unless the controller
   * crashes after `crashAfter` of them, its memory lost. A complete reconcile is checked.
   */
  protected carryOutPlan<Action>(
    plan: { actions: Action[]; status?: unknown },
    crashAfter: number | undefined,
    carryOut: (action: Action) => void,
  ): string {
    for (const [i, action] of plan.actions.entries()) {
      if (crashAfter === i) {
        this.memory = undefined;
        return `crashed after ${i} of ${plan.actions.length} actions`;
      }
      carryOut(action);
    }
    this.checkAfterReconcile();
    return `${plan.actions.length} actions${plan.status ? ', status written' : ''}`;
  }

  /**
   * Whether `next` is a record `prev` was not: another `from>to@startedAt` — or, with `firstPhase`,
   * one written in its first phase over one that is not (a record's phase only moves forward, so
   * that is a new record with the same name).
   */
  protected isNewRecord(
    prev: ModelFailoverRecord | undefined,
    next: ModelFailoverRecord | undefined,
    firstPhase?: string,
  ): boolean {
    if (next === undefined) return false;
    if (recordId(next) !== recordId(prev)) return true;
    return firstPhase !== undefined && next.phase === firstPhase && prev?.phase !== firstPhase;
  }

  /**
   * Invariants 4, 5 and 7 on a status write from `prev` to `next`; `newRecord`: `next` holds a
   * failover record `prev` did not (counted here). `movedByOther`: the kind's own record (a
   * switchover) moves the primary legitimately in this write.
   */
  protected checkFailoverRecords(
    prev: Status,
    next: Status,
    newRecord: boolean,
    movedByOther = false,
  ): void {
    if (newRecord) this.failoverRecords++;
    if ((next.failoverCount ?? 0) !== this.failoverRecords)
      this.fail(
        `invariant 4: failoverCount ${next.failoverCount ?? 0} after ${this.failoverRecords} failover records`,
      );
    if (prev.primary !== undefined && next.primary !== prev.primary) {
      const byFailover =
        newRecord && next.failover!.from === prev.primary && next.failover!.to === next.primary;
      if (!byFailover && !movedByOther)
        this.fail(`invariant 5: primary ${prev.primary} → ${next.primary} without a record of it`);
    }
    if (prev.failover && prev.failover.phase !== 'Completed') {
      const kept = recordId(next.failover) === recordId(prev.failover);
      if (kept && next.primary !== prev.failover.to)
        this.fail(
          `invariant 5: failover to ${prev.failover.to} in progress, primary now ${next.primary}`,
        );
      if (!kept && next.failover?.from !== prev.failover.to)
        this.fail(`invariant 5: failover to ${prev.failover.to} replaced by one not from it`);
    }
    if (next.failover?.phase === 'Completed' && prev.failover?.phase !== 'Completed') {
      const t = this.byName(next.failover.to);
      if (!t || !t.container || !this.serves(t))
        this.fail(`invariant 7: failover to ${next.failover.to} completed while it does not serve`);
    }
  }
}

/** How a kind's model names what its commands hit. */
export interface FailoverModelNames {
  /** The servers' name prefix: server `n` is `<cluster>-<n>`. */
  cluster: string;
  /** Its followers: `replicas`, `standbys`. */
  followers: string;
  /** What else happens each time time passes (`every agent acts`), if anything. */
  everyTick?: string;
}

/**
 * The commands of a failover model: `standard` — reconciles (drawn three times as often as a
 * write), time passing (twice), client writes, the controller restarting — and `onServer` for what
 * happens to one server. Every command runs `afterCommand` (the invariants checked after it).
 */
export function failoverModelCommands<World extends FailoverModelWorld<ModelServer, ModelStatus>>(
  names: FailoverModelNames,
) {
  type Server = World['servers'][number];
  const command = (name: string, run: (w: World) => string | void): ModelCommand<World> =>
    modelCommand<World>(name, run, (w, outcome) => w.afterCommand(name, outcome));

  const targets = fc.constantFrom<ServerTarget>(
    'primary',
    'primary',
    'the old primary',
    'another',
    0,
    1,
    2,
  );
  const another = `a ${names.followers.replace(/s$/, '')}`;
  const targetName = (t: ServerTarget) =>
    typeof t === 'number' ? `${names.cluster}-${t}` : t === 'another' ? another : t;
  const onServer = (what: string, act: (w: World, s: Server) => void) =>
    targets.map((t) =>
      command(`${targetName(t)}: ${what}`, (w) => {
        const s = w.target(t);
        act(w, s);
        return s.name;
      }),
    );

  const reconcile = fc
    .record({
      crashAfter: fc.oneof(
        { arbitrary: fc.constant(undefined), weight: 4 },
        { arbitrary: fc.nat({ max: 4 }), weight: 1 },
      ),
      conflict: sometimes(6),
    })
    .map((draw) =>
      command(
        `reconcile${draw.crashAfter !== undefined ? ` (controller crashes after ${draw.crashAfter} actions)` : ''}${draw.conflict ? ' (another writer changes status first)' : ''}`,
        (w) => w.reconcile(draw),
      ),
    );
  const tick = names.everyTick ? `, ${names.everyTick}` : '';
  const timePasses = fc
    .record({ seconds: fc.integer({ min: 1, max: 12 }), catchUp: fc.boolean() })
    .map(({ seconds, catchUp }) =>
      command(`${seconds}s pass${tick}${catchUp ? `, ${names.followers} catch up` : ''}`, (w) =>
        w.passTime(seconds, catchUp),
      ),
    );
  const writes = fc
    .record({
      bytes: fc.integer({ min: 1, max: 3000 }),
      lags: fc.array(fc.integer({ min: 0, max: 4000 }), { minLength: 3, maxLength: 3 }),
    })
    .map(({ bytes, lags }) =>
      command(`clients write ${bytes} bytes, ${names.followers} ${lags.join('/')} behind`, (w) =>
        w.write(bytes, lags),
      ),
    );
  const controllerRestarts = fc.constant(
    command('the controller restarts (memory lost)', (w) => void (w.memory = undefined)),
  );

  return {
    onServer,
    standard: [reconcile, reconcile, reconcile, timePasses, timePasses, writes, controllerRestarts],
  };
}
