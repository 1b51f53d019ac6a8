import { describe, expect, it } from 'vitest';
import {
  RolloutReasons as R,
  statefulSetRolloutStatus,
  type StatefulSetLike,
} from './rollout-status.js';

/** A StatefulSet as the API server defaults it: RollingUpdate with partition 0. */
function sts(
  spec: { replicas?: number; partition?: number | null; type?: string },
  status: NonNullable<StatefulSetLike['status']>,
  generation = 2,
): StatefulSetLike {
  const { replicas = 3, partition = 0, type = 'RollingUpdate' } = spec;
  return {
    metadata: { generation },
    spec: {
      replicas,
      updateStrategy: {
        type,
        ...(partition === null ? {} : { rollingUpdate: { partition } }),
      },
    },
    status,
  };
}

const observed = { observedGeneration: 2 };

describe('statefulSetRolloutStatus, as kubectl rollout status judges it', () => {
  it.each<[string, StatefulSetLike, boolean, string, string]>([
    [
      'OnDelete is not judged',
      sts({ type: 'OnDelete', partition: null }, { ...observed, readyReplicas: 3 }),
      false,
      R.NotJudged,
      'rollout status is only available for RollingUpdate strategy type',
    ],
    [
      'a StatefulSet never observed (observedGeneration 0)',
      sts({}, {}),
      false,
      R.SpecNotObserved,
      'Waiting for statefulset spec update to be observed...',
    ],
    [
      'a spec newer than the controller has seen',
      sts({}, { observedGeneration: 1, readyReplicas: 3, updatedReplicas: 3 }, 2),
      false,
      R.SpecNotObserved,
      'Waiting for statefulset spec update to be observed...',
    ],
    [
      'pods not ready yet',
      sts({}, { ...observed, readyReplicas: 1 }),
      false,
      R.PodsNotReady,
      'Waiting for 2 pods to be ready...',
    ],
    [
      'no pod ready (readyReplicas omitted)',
      sts({}, observed),
      false,
      R.PodsNotReady,
      'Waiting for 3 pods to be ready...',
    ],
    [
      'a partitioned roll out under way',
      sts({ partition: 1 }, { ...observed, readyReplicas: 3, updatedReplicas: 1 }),
      false,
      R.PartitionedRollout,
      'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
    ],
    [
      'the default partition 0 while pods are being updated',
      sts({}, { ...observed, readyReplicas: 3, updatedReplicas: 2 }),
      false,
      R.PartitionedRollout,
      'Waiting for partitioned roll out to finish: 2 out of 3 new pods have been updated...',
    ],
    [
      'a partitioned roll out complete',
      sts({ partition: 1 }, { ...observed, readyReplicas: 3, updatedReplicas: 2 }),
      true,
      R.PartitionedRolloutComplete,
      'partitioned roll out complete: 2 new pods have been updated...',
    ],
    [
      'the default partition 0, every pod updated (revisions not compared on this branch)',
      sts(
        {},
        {
          ...observed,
          readyReplicas: 3,
          updatedReplicas: 3,
          currentRevision: 'web-1',
          updateRevision: 'web-2',
        },
      ),
      true,
      R.PartitionedRolloutComplete,
      'partitioned roll out complete: 3 new pods have been updated...',
    ],
    [
      'a rollingUpdate block without a partition',
      {
        metadata: { generation: 2 },
        spec: { replicas: 3, updateStrategy: { type: 'RollingUpdate', rollingUpdate: {} } },
        status: { ...observed, readyReplicas: 3, updatedReplicas: 0 },
      },
      true,
      R.PartitionedRolloutComplete,
      'partitioned roll out complete: 0 new pods have been updated...',
    ],
    [
      'no rollingUpdate block: revisions differ',
      sts(
        { partition: null },
        {
          ...observed,
          readyReplicas: 3,
          updatedReplicas: 1,
          currentRevision: 'web-1',
          updateRevision: 'web-2',
        },
      ),
      false,
      R.RollingUpdate,
      'waiting for statefulset rolling update to complete 1 pods at revision web-2...',
    ],
    [
      'no rollingUpdate block: revisions agree',
      sts(
        { partition: null },
        {
          ...observed,
          readyReplicas: 3,
          currentReplicas: 3,
          updatedReplicas: 3,
          currentRevision: 'web-2',
          updateRevision: 'web-2',
        },
      ),
      true,
      R.RollingUpdateComplete,
      'statefulset rolling update complete 3 pods at revision web-2...',
    ],
    [
      'a missing strategy type reads as the server default, RollingUpdate',
      {
        metadata: { generation: 1 },
        spec: { replicas: 1 },
        status: {
          observedGeneration: 1,
          readyReplicas: 1,
          currentReplicas: 1,
          currentRevision: 'a',
          updateRevision: 'a',
        },
      },
      true,
      R.RollingUpdateComplete,
      'statefulset rolling update complete 1 pods at revision a...',
    ],
    [
      'scaled to zero',
      sts({ replicas: 0 }, { ...observed }),
      true,
      R.PartitionedRolloutComplete,
      'partitioned roll out complete: 0 new pods have been updated...',
    ],
  ])('%s', (_name, object, complete, reason, message) => {
    expect(statefulSetRolloutStatus(object)).toEqual({ complete, reason, message });
  });

  it('checks in kubectl order: an unobserved spec hides unready pods', () => {
    const status = statefulSetRolloutStatus(
      sts({}, { observedGeneration: 1, readyReplicas: 0 }, 2),
    );
    expect(status.reason).toBe(R.SpecNotObserved);
  });
});
