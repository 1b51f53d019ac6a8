/** The parts of a StatefulSet (as the API server returns it) that its rollout status reads. */
export interface StatefulSetLike {
  metadata?: { generation?: number };
  spec?: {
    replicas?: number;
    updateStrategy?: {
      type?: string;
      rollingUpdate?: { partition?: number } | null;
    };
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

export interface RolloutStatus {
  /** True when `kubectl rollout status` would stop waiting and succeed. */
  complete: boolean;
  /** One of `RolloutReasons`: which check decided. */
  reason: string;
  /** kubectl's own words for it (without its trailing newline). */
  message: string;
}

/** Why a rollout is (not) complete: one reason per branch of kubectl's StatefulSetStatusViewer. */
export const RolloutReasons = {
  /** `spec.updateStrategy.type` is not RollingUpdate (OnDelete): kubectl refuses to judge. */
  NotJudged: 'RolloutNotJudged',
  /** The StatefulSet controller has not yet seen this generation of the spec. */
  SpecNotObserved: 'SpecUpdateNotObserved',
  /** Fewer ready pods than `spec.replicas`. */
  PodsNotReady: 'PodsNotReady',
  /** Fewer pods at the update revision than the partition asks for. */
  PartitionedRollout: 'PartitionedRolloutInProgress',
  PartitionedRolloutComplete: 'PartitionedRolloutComplete',
  /** `updateRevision` differs from `currentRevision`. */
  RollingUpdate: 'RollingUpdateInProgress',
  RollingUpdateComplete: 'RollingUpdateComplete',
} as const;

/**
 * A StatefulSet's rollout judged exactly as `kubectl rollout status` judges it
 * (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go, `StatefulSetStatusViewer`), checks in
 * its order, messages in its words:
 *
 * 1. update strategy not RollingUpdate (OnDelete) → not complete, `RolloutNotJudged` — kubectl
 *    answers with an error ("rollout status is only available for RollingUpdate strategy type"):
 *    under OnDelete only the caller knows when pods were replaced, so readiness is its call;
 * 2. `status.observedGeneration` 0 or behind `metadata.generation` → "Waiting for statefulset
 *    spec update to be observed...";
 * 3. `readyReplicas < spec.replicas` → "Waiting for N pods to be ready...";
 * 4. with a `rollingUpdate` block: `updatedReplicas < replicas - partition` → "Waiting for
 *    partitioned roll out to finish: U out of N new pods have been updated...", else complete,
 *    "partitioned roll out complete: U new pods have been updated...";
 * 5. `updateRevision != currentRevision` → "waiting for statefulset rolling update to complete U
 *    pods at revision R...";
 * 6. complete: "statefulset rolling update complete C pods at revision R...".
 *
 * The API server defaults `updateStrategy` to `{ type: RollingUpdate, rollingUpdate:
 * { partition: 0 } }`, so for a StatefulSet read from the server step 4 decides and steps 5–6 are
 * reached only by objects without that block. A missing `type` is read as that default; omitted
 * status counters are 0 (as in Go). Pure: no clock, no API call.
 */
export function statefulSetRolloutStatus(sts: StatefulSetLike): RolloutStatus {
  const strategy = sts.spec?.updateStrategy;
  if ((strategy?.type ?? 'RollingUpdate') !== 'RollingUpdate') {
    return notComplete(
      RolloutReasons.NotJudged,
      'rollout status is only available for RollingUpdate strategy type',
    );
  }
  const status = sts.status ?? {};
  const observedGeneration = status.observedGeneration ?? 0;
  if (observedGeneration === 0 || (sts.metadata?.generation ?? 0) > observedGeneration) {
    return notComplete(
      RolloutReasons.SpecNotObserved,
      'Waiting for statefulset spec update to be observed...',
    );
  }
  const replicas = sts.spec?.replicas;
  const ready = status.readyReplicas ?? 0;
  if (replicas !== undefined && ready < replicas) {
    return notComplete(
      RolloutReasons.PodsNotReady,
      `Waiting for ${replicas - ready} pods to be ready...`,
    );
  }
  const updated = status.updatedReplicas ?? 0;
  if (strategy?.rollingUpdate) {
    const partition = strategy.rollingUpdate.partition;
    if (replicas !== undefined && partition !== undefined && updated < replicas - partition) {
      return notComplete(
        RolloutReasons.PartitionedRollout,
        `Waiting for partitioned roll out to finish: ${updated} out of ${replicas - partition} new pods have been updated...`,
      );
    }
    return {
      complete: true,
      reason: RolloutReasons.PartitionedRolloutComplete,
      message: `partitioned roll out complete: ${updated} new pods have been updated...`,
    };
  }
  const updateRevision = status.updateRevision ?? '';
  const currentRevision = status.currentRevision ?? '';
  if (updateRevision !== currentRevision) {
    return notComplete(
      RolloutReasons.RollingUpdate,
      `waiting for statefulset rolling update to complete ${updated} pods at revision ${updateRevision}...`,
    );
  }
  return {
    complete: true,
    reason: RolloutReasons.RollingUpdateComplete,
    message: `statefulset rolling update complete ${status.currentReplicas ?? 0} pods at revision ${currentRevision}...`,
  };
}

function notComplete(reason: string, message: string): RolloutStatus {
  return { complete: false, reason, message };
}
