import {
  AlreadyExistsError,
  ConflictError,
  Leases,
  NotFoundError,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LeaderElectionOptions {
  /** Name of the Lease. */
  name: string;
  namespace: string;
  /** This candidate's identity, unique per process (e.g. pod name + random suffix). */
  identity: string;
  /** How long a lease is valid after its last renewal, as seen by the other candidates. Default 15 s. */
  leaseDurationMs?: number;
  /** The leader gives up if it has not renewed for this long. Must be < leaseDurationMs. Default 10 s. */
  renewDeadlineMs?: number;
  /** Time between attempts to acquire or renew. Default 2 s. */
  retryPeriodMs?: number;
  /** On a clean stop, hand the lease back so a successor need not wait for expiry. Default true. */
  releaseOnCancel?: boolean;
  /** Called with each new leader identity observed (including this one). */
  onNewLeader?: (identity: string) => void;
  /** Reports failures of individual attempts (they are retried). */
  onAttemptError?: (error: unknown) => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}
interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

/** Why leadership ended. */
export type LeadershipEnd = 'stopped' | 'lost';

/**
 * Lease-based leader election with client-go's semantics. Candidates poll every `retryPeriodMs`;
 * a lease held by another is taken only after `leaseDurationMs` has passed, measured on this
 * candidate's own clock since it last saw the lease change (so clock skew between hosts does not
 * matter). The leader renews every `retryPeriodMs`; if it has not renewed successfully for
 * `renewDeadlineMs` it stops leading at once — a timer, not the outcome of a request — which is
 * before any other candidate may take the lease (`renewDeadlineMs < leaseDurationMs`).
 */
export class LeaderElector {
  private observed: LeaseSpec | undefined;
  private observedAt = 0;
  private leading = false;
  private lastLeader: string | undefined;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;

  constructor(
    private readonly client: KubeClient,
    private readonly options: LeaderElectionOptions,
  ) {
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
    if (this.renewDeadlineMs >= this.leaseDurationMs) {
      throw new TypeError('steward: renewDeadlineMs must be shorter than leaseDurationMs');
    }
  }

  isLeader(): boolean {
    return this.leading;
  }

  /**
   * Campaigns until leading (or `signal` aborts), then calls `lead(leaderSignal)` and keeps renewing.
   * `leaderSignal` aborts when leadership is lost or `signal` aborts. Resolves with why leadership
   * ended, after `lead` has returned — and after the lease was released when stopped cleanly.
   */
  async run(
    signal: AbortSignal,
    lead: (leaderSignal: AbortSignal) => Promise<void>,
  ): Promise<LeadershipEnd | 'never-led'> {
    if (!(await this.acquire(signal))) return 'never-led';
    this.leading = true;
    const leadership = new AbortController();
    const onOuterAbort = (): void => leadership.abort(signal.reason);
    signal.addEventListener('abort', onOuterAbort, { once: true });
    if (signal.aborted) onOuterAbort(); // aborted while acquiring: the listener never fires
    let lost = false;
    let deadline = this.armDeadline(() => {
      lost = true;
      this.leading = false;
      leadership.abort(new Error('steward: leader election lost: lease not renewed in time'));
    });
    const renewing = (async () => {
      while (!leadership.signal.aborted) {
        await sleep(this.retryPeriodMs, undefined, { signal: leadership.signal }).catch(
          () => undefined,
        );
        if (leadership.signal.aborted) break;
        if (await this.tryAcquireOrRenew(leadership.signal)) {
          clearTimeout(deadline);
          deadline = this.armDeadline(() => {
            lost = true;
            this.leading = false;
            leadership.abort(new Error('steward: leader election lost: lease not renewed in time'));
          });
        }
      }
    })();
    try {
      await lead(leadership.signal);
    } finally {
      leadership.abort();
      clearTimeout(deadline);
      await renewing;
      signal.removeEventListener('abort', onOuterAbort);
      this.leading = false;
    }
    if (!lost && (this.options.releaseOnCancel ?? true)) await this.release();
    return lost ? 'lost' : 'stopped';
  }

  private armDeadline(onExpiry: () => void): NodeJS.Timeout {
    const timer = setTimeout(onExpiry, this.renewDeadlineMs);
    timer.unref?.();
    return timer;
  }

  private async acquire(signal: AbortSignal): Promise<boolean> {
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew(signal)) return true;
      const jittered = this.retryPeriodMs * (1 + 0.2 * Math.random());
      await sleep(jittered, undefined, { signal }).catch(() => undefined);
    }
    return false;
  }

  /** One attempt; true when this candidate holds a freshly written lease. Never throws. */
  private async tryAcquireOrRenew(signal: AbortSignal): Promise<boolean> {
    const { name, namespace, identity } = this.options;
    const now = microTime(new Date());
    const timeout = AbortSignal.any([signal, AbortSignal.timeout(this.retryPeriodMs * 2)]);
    try {
      let lease: Lease;
      try {
        lease = await this.client.get<Lease>(Leases, name, namespace, { signal: timeout });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        const spec: LeaseSpec = {
          holderIdentity: identity,
          leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
          acquireTime: now,
          renewTime: now,
          leaseTransitions: 0,
        };
        await this.client.create<Lease>(
          Leases,
          {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace },
            spec,
          },
          { signal: timeout },
        );
        this.observe(spec);
        return true;
      }
      const spec = lease.spec ?? {};
      if (!this.observed || JSON.stringify(spec) !== JSON.stringify(this.observed))
        this.observe(spec);
      const holder = spec.holderIdentity ?? '';
      const heldByOther = holder !== '' && holder !== identity;
      if (heldByOther && performance.now() < this.observedAt + this.leaseDurationMs) return false;

      const next: LeaseSpec = {
        holderIdentity: identity,
        leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
        acquireTime: holder === identity ? (spec.acquireTime ?? now) : now,
        renewTime: now,
        leaseTransitions:
          holder === identity ? (spec.leaseTransitions ?? 0) : (spec.leaseTransitions ?? 0) + 1,
      };
      await this.client.update<Lease>(Leases, { ...lease, spec: next }, { signal: timeout });
      this.observe(next);
      return true;
    } catch (error) {
      if (!(error instanceof ConflictError) && !(error instanceof AlreadyExistsError)) {
        this.options.onAttemptError?.(error);
      }
      return false;
    }
  }

  private observe(spec: LeaseSpec): void {
    this.observed = spec;
    this.observedAt = performance.now();
    const leader = spec.holderIdentity ?? '';
    if (leader && leader !== this.lastLeader) {
      this.lastLeader = leader;
      try {
        this.options.onNewLeader?.(leader);
      } catch {
        // an observer's failure does not affect the election
      }
    }
  }

  /** Hands the lease back: empty holder, 1 s duration. Best effort. */
  private async release(): Promise<void> {
    const { name, namespace, identity } = this.options;
    try {
      const lease = await this.client.get<Lease>(Leases, name, namespace, {
        signal: AbortSignal.timeout(5_000),
      });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime(new Date());
      await this.client.update<Lease>(
        Leases,
        {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now },
        },
        { signal: AbortSignal.timeout(5_000) },
      );
    } catch (error) {
      this.options.onAttemptError?.(error);
    }
  }
}

/** metav1.MicroTime: RFC 3339 with exactly six fractional digits, as the API server parses it. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
