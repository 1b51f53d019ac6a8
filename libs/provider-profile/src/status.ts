import {
  findCondition,
  nextStatus,
  type ConditionUpdate,
  type StatusChange,
} from '@steward/conditions';
import { StalledCondition } from '@steward/controller';
import { type ProviderProfile, type ProviderProfileStatus } from '@steward/provider-profile-api';
import { type CredentialsCheckResult } from './credentials-check.js';
import { ProviderProfileReasons as R, ReadyCondition } from './reasons.js';
import { describeUsage, type ProfileUsage } from './users.js';
import { describeImages } from './catalogue.js';

/** What the controller states about a profile in one reconcile. */
export interface ProfileState {
  /** The `Ready` condition, without observedGeneration (the profile's generation is stamped). */
  ready: Omit<ConditionUpdate, 'type' | 'observedGeneration'>;
  /** `Stalled=True` with Ready's reason and message: only the platform team can fix this. */
  stalled: boolean;
  /** The number of this process's users (for the condition messages). */
  usedBy: number;
  /**
   * This process's users per kind (every kind it watches, zeros included), merged into
   * `status.usedByKind`; `status.usedBy` is the sum of the merged map. Absent: `usedBy` alone.
   */
  usedByKind?: Readonly<Record<string, number>>;
}

/** The state of a live profile after a credentials check. */
export function stateFromCheck(result: CredentialsCheckResult, usedBy: number): ProfileState {
  if (result.ok) {
    return {
      ready: { status: 'True', reason: R.CredentialsVerified, message: result.message },
      stalled: false,
      usedBy,
    };
  }
  return {
    ready: { status: 'False', reason: result.reason, message: result.message },
    stalled: !result.transient,
    usedBy,
  };
}

/**
 * The state of a live kubernetes profile. It has no credentials and nothing outside the cluster
 * to ask: what admission accepted (size classes, image catalogue, limits) is what workloads that
 * reference it get, so it is Ready with `CatalogueAccepted` and a message saying what it offers.
 * A kubernetes profile without its block (which admission refuses) is `InvalidProviderProfile`,
 * Stalled.
 */
export function stateFromCatalogue(profile: ProviderProfile, usedBy: number): ProfileState {
  const block = profile.spec.kubernetes;
  if (profile.spec.provider !== 'kubernetes' || !block) {
    return {
      ready: {
        status: 'False',
        reason: R.InvalidProviderProfile,
        message: `ProviderProfile ${profile.metadata.name} has no spec.kubernetes: add the size classes and image catalogue of in-cluster workloads`,
      },
      stalled: true,
      usedBy,
    };
  }
  const sizes = Object.keys(block.sizeClasses ?? {}).sort();
  const limits = [
    block.storageClassNames
      ? `StorageClasses ${block.storageClassNames.join(', ')}`
      : 'any StorageClass',
    ...(block.maxReplicas !== undefined ? [`at most ${block.maxReplicas} replicas`] : []),
    ...(block.maxStorage !== undefined ? [`volumes up to ${block.maxStorage}`] : []),
    ...(block.requirePersistence ? ['persistence required'] : []),
    ...(block.requireSyncReplication ? ['sync replication required'] : []),
    ...(['nodes', 'zones'] as const).flatMap((over) => {
      const policy = block.requireSpread?.[over];
      return policy ? [`spread over ${over} ${policy.toLowerCase()}`] : [];
    }),
    ...(block.imagePullSecrets?.length
      ? [`images pulled with Secrets ${block.imagePullSecrets.map((s) => s.name).join(', ')}`]
      : []),
    ...(block.maxFailoverLagBytes !== undefined
      ? [`failovers may lose at most ${block.maxFailoverLagBytes} bytes of WAL`]
      : []),
  ];
  return {
    ready: {
      status: 'True',
      reason: R.CatalogueAccepted,
      message: `in-cluster workloads, no credentials to check: images ${describeImages(block.images)}; size classes ${sizes.join(', ') || 'none'}; ${limits.join(', ')}`,
    },
    stalled: false,
    usedBy,
  };
}

/** The state of a profile being deleted while `usage` still references it. */
export function stateInUse(profileName: string, usage: ProfileUsage): ProfileState {
  return {
    ready: {
      status: 'False',
      reason: R.InUse,
      message: `ProviderProfile ${profileName} is being deleted but ${describeUsage(usage)}; it is deleted once nothing references it`,
    },
    stalled: false,
    usedBy: usage.count,
  };
}

/**
 * `usedByKind` (the profile's map with this process's kinds replaced) and `usedBy` (its sum): the
 * counts of other controllers' kinds are kept as the profile shows them.
 */
function usageFields(profile: ProviderProfile, state: ProfileState): Record<string, unknown> {
  if (!state.usedByKind) return { usedBy: state.usedBy };
  const byKind = { ...(profile.status?.usedByKind ?? {}), ...state.usedByKind };
  const sorted = Object.fromEntries(Object.entries(byKind).sort(([a], [b]) => a.localeCompare(b)));
  return { usedByKind: sorted, usedBy: Object.values(sorted).reduce((sum, n) => sum + n, 0) };
}

/** The status to write for `state`, and what changed compared to the profile's current status. */
export interface StatusPlan {
  /** What to hand the status writer. */
  change: StatusChange;
  /** The status `change` leads to (`nextStatus`). */
  status: ProviderProfileStatus;
  /** Anything differs: write it. False means zero writes. */
  changed: boolean;
  /** The `Ready` condition's status, reason or message differs: worth an Event. */
  readyChanged: boolean;
}

/**
 * Pure. `Ready` (and `Stalled` when the state says so; a write without it clears it), `usedBy`, and the
 * generation stamped by the status rules every kind follows (`nextStatus`); other status fields
 * are kept. Times follow `@steward/conditions`: `lastTransitionTime` moves only when a
 * condition's status does.
 */
export function planStatus(
  profile: ProviderProfile,
  state: ProfileState,
  now: Date = new Date(),
): StatusPlan {
  const change: StatusChange = {
    conditions: [
      { type: ReadyCondition, ...state.ready },
      ...(state.stalled
        ? [
            {
              type: StalledCondition,
              status: 'True' as const,
              reason: state.ready.reason,
              message: state.ready.message,
            },
          ]
        : []),
    ],
    fields: usageFields(profile, state),
  };
  const previous = findCondition(profile.status?.conditions, ReadyCondition);
  const { status, changed } = nextStatus(profile.status, profile.metadata.generation, change, now);
  return {
    change,
    status: status as ProviderProfileStatus,
    changed,
    readyChanged:
      previous?.status !== state.ready.status ||
      previous.reason !== state.ready.reason ||
      previous.message !== state.ready.message,
  };
}
