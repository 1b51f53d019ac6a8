/**
 * Major version upgrades of a PostgresCluster: a state machine recorded in status.upgrade, each
 * phase written before its step is taken, so a restarted controller resumes where it was.
 *
 *   (spec.version > status.version) waits for spec.upgrade.approvedVersion and a restore
 *   rehearsal that passed on a backup younger than spec.upgrade.maxBackupAge, and for every
 *   instance ready; then
 *   StoppingWrites  a hard write hold on the old primary: out of the read-write Service, every
 *                   database's connection limit 0 (only the superuser connects), read-only by
 *                   default, every other client session ended
 *   Provisioning    a new StatefulSet <name>-v<major> of one instance runs initdb with the new
 *                   version's image
 *   Restoring       a Job dumps the roles and every database from the old primary into it and
 *                   compares every table's row count (the check)
 *   Switching       the point of no return, in one status write: the new instance is primary, the
 *                   cluster's version, image, system identifier and instance set are the new ones;
 *                   the old pods lose their role labels (the Services follow the new primary)
 *   Completing      the new set grows to spec.replicas (standbys clone); once all are ready, the
 *                   old StatefulSet goes (its volumes stay: an Event names them)
 *   Completed
 * Before Switching, any failure rolls back: RollingBack (the new StatefulSet and its volumes go,
 * the old primary writes again) → RolledBack, with the reason; tried again only for a newer
 * metadata.generation.
 *
 * The transitions are decided by `planUpgrade` (upgrade-plan.ts, pure); `Upgrades.step` gathers
 * what it observes, carries the plan out and records it.
 */
import { type PostgresCluster } from '@steward/postgres-cluster-api';
import {
  isNotFound,
  PersistentVolumeClaims,
  Pods,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { type ImagePull } from '@steward/workload';
import { renderUpgradeJob } from '../backup/job.js';
import { createOwnedJob, jobTerminationMessage, type JobObject } from '../backup/reconcile.js';
import { fenceLease, InstructionAnnotation, Labels } from '../children/names.js';
import { holdNewSetLease, type LeaseObject } from '../fence/lease.js';
import { type PgAdmin, type PgEndpoint } from '../pg/index.js';
import { type InstanceFacts, type PlanHealth } from '../plan/plan.js';
import { type Pod } from '../pods.js';
import {
  isActive,
  planUpgrade,
  type UpgradeAction,
  type UpgradeAnswers,
  type UpgradeFacts,
  type UpgradeOutcome,
} from './upgrade-plan.js';

export {
  backupAgeMs,
  isActive,
  upgradeGate,
  UpgradeReasons,
  type Gate,
  type UpgradeOutcome,
} from './upgrade-plan.js';

type Cluster = PostgresCluster;

const PRE_SWITCH = new Set(['StoppingWrites', 'Provisioning', 'Restoring']);

/** A second StatefulSet an upgrade has the reconcile render besides the current one. */
export interface ExtraInstanceSet {
  set: string;
  /** The major its image runs (its pull settings are that version's catalogue entry's). */
  version: string;
  image: string;
  replicas: number;
}

/**
 * What an upgrade in status has rendered besides the current instance set: the new set of one
 * instance before the switch, the old set (as it was) after it until Completed.
 */
export function extraInstanceSet(cluster: Cluster): ExtraInstanceSet | undefined {
  const u = cluster.status?.upgrade;
  if (!u || !isActive(u)) return undefined;
  if (PRE_SWITCH.has(u.phase))
    return { set: u.toSet, version: u.to, image: u.toImage, replicas: 1 };
  if (u.phase === 'Switching' || u.phase === 'Completing')
    return { set: u.fromSet, version: u.from, image: u.fromImage, replicas: u.fromReplicas };
  return undefined;
}

export interface UpgradeStepInput {
  cluster: Cluster;
  /** The bound of the dump-and-restore Job's scratch volume (the cluster's volume size). */
  scratchSize?: string;
  /** The major the data directory holds (status.version). */
  running: string;
  /** The StatefulSet that serves (status.instanceSet). */
  currentSet: string;
  /** The images of the running major and of spec.version (undefined: not in the catalogue). */
  fromImage: string;
  toImage: string | undefined;
  /** How spec.version's image is pulled (the dump-and-restore Job runs it; absent: the default). */
  toPull?: ImagePull;
  /** The current set's instances, as the plan saw them, and its health. */
  facts: InstanceFacts[];
  health: PlanHealth;
  desired: number;
  /** Every pod of the cluster (both sets). */
  pods: Pod[];
  endpoint: (ip: string) => PgEndpoint;
  /** Writes status.upgrade (and more) if the upgrade's phase is still `expected`. */
  write: (expected: string | undefined, fields: Record<string, unknown>) => Promise<void>;
  signal?: AbortSignal;
}

export interface UpgradesDeps {
  client: KubeClient;
  pg: PgAdmin;
  jobs: () => JobObject[];
  /** The claims of one cluster's pods (by its label). */
  claims: (namespace: string, cluster: string) => KubeObject[];
  /** A Lease from the cache (the new instance set's fence Lease). */
  lease: (namespace: string, name: string) => LeaseObject | undefined;
  now: () => Date;
  emit: (obj: Cluster, type: 'Normal' | 'Warning', reason: string, message: string) => void;
}

/** The most plans one step makes: Restoring asks twice (the Job's outcome, the new instance). */
const MAX_PLANS = 4;

/** The upgrade machine's steps (one call per reconcile, after the instances were looked at). */
export class Upgrades {
  constructor(private readonly deps: UpgradesDeps) {}

  /**
   * One step: plans over what this reconcile observed, carries the plan's actions out (planning
   * again with their answers while the plan asks for them), then writes its record over the phase
   * it was decided on (a newer status throws `StaleDecisionError` from `input.write`: nothing more
   * happens) and emits its events. Errors of the API or of PostgreSQL are thrown (backoff).
   */
  async step(input: UpgradeStepInput): Promise<UpgradeOutcome> {
    let facts = this.factsOf(input);
    for (let plans = 1; ; plans++) {
      const plan = planUpgrade(facts);
      const answers = await this.carryOut(input, plan.actions);
      if (plan.replan) {
        if (plans >= MAX_PLANS)
          throw new Error(
            `the upgrade plan asked ${plans} times in one step: ${plan.actions[0]?.type}`,
          );
        facts = { ...facts, answers: { ...facts.answers, ...answers } };
        continue;
      }
      if (plan.record) await input.write(plan.record.expected, plan.record.fields);
      for (const e of plan.events) this.deps.emit(input.cluster, e.type, e.reason, e.message);
      return plan.outcome;
    }
  }

  /** The facts of `input`, with the Jobs and claims from the caches while an upgrade is active. */
  private factsOf(input: UpgradeStepInput): UpgradeFacts {
    const { cluster } = input;
    const underWay = isActive(cluster.status?.upgrade);
    return {
      cluster,
      running: input.running,
      currentSet: input.currentSet,
      fromImage: input.fromImage,
      toImage: input.toImage,
      instances: input.facts,
      health: input.health,
      desired: input.desired,
      pods: input.pods,
      jobs: underWay ? this.deps.jobs() : [],
      claims: underWay
        ? this.deps
            .claims(cluster.metadata.namespace!, cluster.metadata.name!)
            .map((c) => c.metadata.name ?? '')
        : [],
      now: this.deps.now(),
    };
  }

  /** Carries `actions` out in order; what they answer (see `UpgradeAction`). */
  private async carryOut(
    input: UpgradeStepInput,
    actions: UpgradeAction[],
  ): Promise<UpgradeAnswers> {
    const { cluster } = input;
    const namespace = cluster.metadata.namespace;
    const answers: UpgradeAnswers = {};
    const signal = input.signal ? { signal: input.signal } : {};
    for (const action of actions)
      switch (action.type) {
        case 'readConnectionLimits':
          answers.limits = await this.deps.pg.connectionLimits(input.endpoint(action.ip));
          break;
        case 'stopWrites': {
          // New sessions refused first, then those open ended: none is left that could write.
          const endpoint = input.endpoint(action.ip);
          await this.deps.pg.holdConnections(endpoint);
          await this.deps.pg.alterSystem(endpoint, { default_transaction_read_only: 'on' });
          answers.sessionsEnded = await this.deps.pg.endClientSessions(endpoint);
          break;
        }
        case 'releaseConnections':
          await this.deps.pg.releaseConnections(input.endpoint(action.ip), action.limits);
          break;
        case 'observe':
          answers.target = await this.deps.pg.observe(input.endpoint(action.ip), signal);
          break;
        case 'readJobOutcome':
          answers.jobMessage = {
            text: await jobTerminationMessage(this.deps.client, action.job, namespace!),
          };
          break;
        case 'instruct':
          // The new instance fences itself from its first start: its set's Lease names it first.
          await holdNewSetLease(
            this.deps.client,
            cluster,
            action.set,
            action.pod,
            this.deps.lease(namespace!, fenceLease(action.set)),
            this.deps.now(),
          );
          await this.deps.client.mergePatch(Pods, action.pod, namespace, {
            metadata: { annotations: { [InstructionAnnotation]: action.instruction } },
          });
          break;
        case 'createJob':
          await createOwnedJob(
            this.deps.client,
            cluster,
            renderUpgradeJob({
              cluster,
              image: action.image,
              ...(input.toPull ? { pull: input.toPull } : {}),
              fromHost: input.endpoint(action.fromIp).host,
              toHost: action.toIp,
              generation: action.generation,
              ...(input.scratchSize ? { scratchSize: input.scratchSize } : {}),
            }),
          );
          break;
        case 'unlabel':
          await this.deps.client
            .mergePatch(Pods, action.pod, namespace, {
              metadata: { labels: { [Labels.role]: null } },
            })
            .catch(ignoreNotFound);
          break;
        case 'deleteClaim':
          await this.deps.client
            .delete(PersistentVolumeClaims, action.claim, namespace)
            .catch(ignoreNotFound);
          break;
        case 'resumeWrites':
          for (const ip of action.ips)
            await this.deps.pg.alterSystem(input.endpoint(ip), {
              default_transaction_read_only: null,
            });
          await this.deps.pg.releaseConnections(input.endpoint(action.primaryIp), action.limits);
          answers.writesResumedAt = this.deps.now().toISOString();
          break;
      }
    return answers;
  }
}

function ignoreNotFound(e: unknown): void {
  if (!isNotFound(e)) throw e;
}
