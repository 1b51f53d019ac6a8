import { type KubeObject } from '@steward/kube';
import { ordinalOf } from './volumes.js';

/** The parts of a Pod every workload kind reads. */
export interface WorkloadPod extends KubeObject {
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      ready?: boolean;
      started?: boolean;
      restartCount?: number;
      containerID?: string;
      state?: { running?: unknown; waiting?: { reason?: string; message?: string } };
      lastState?: { terminated?: { exitCode?: number; message?: string; reason?: string } };
    }[];
  };
}

/** What every workload kind knows of one of its pods before it asks its server anything. */
export interface PodBasics {
  name: string;
  ordinal: number;
  ip?: string;
  /** The pod's Ready condition. */
  ready: boolean;
  deleting: boolean;
  /** The role label the controller last gave it. */
  roleLabel?: string;
  /** Its server container runs (so its server may be asked). */
  running: boolean;
  /** The node it was scheduled to (`spec.nodeName`), once it was. */
  nodeName?: string;
}

/**
 * The pods of StatefulSet `set` by ordinal (pure; other names left out), each with what the pod
 * itself says: IP, readiness, deletion, the role label `roleLabel` carries, whether a container
 * runs. The kinds add their server's observation.
 */
export function podsByOrdinal<P extends WorkloadPod>(
  pods: readonly P[],
  set: string,
  roleLabel: string,
): { pod: P; basics: PodBasics }[] {
  return pods
    .map((pod) => ({ pod, ordinal: ordinalOf(set, pod.metadata.name ?? '') }))
    .filter((p): p is { pod: P; ordinal: number } => p.ordinal !== undefined)
    .sort((a, b) => a.ordinal - b.ordinal)
    .map(({ pod, ordinal }) => {
      const ip = pod.status?.podIP;
      const role = pod.metadata.labels?.[roleLabel];
      const nodeName = pod.spec?.nodeName;
      return {
        pod,
        basics: {
          name: pod.metadata.name!,
          ordinal,
          ...(ip ? { ip } : {}),
          ready: (pod.status?.conditions ?? []).some(
            (c) => c.type === 'Ready' && c.status === 'True',
          ),
          deleting: Boolean(pod.metadata.deletionTimestamp),
          ...(role ? { roleLabel: role } : {}),
          running:
            pod.status?.phase === 'Running' &&
            (pod.status.containerStatuses ?? []).some((c) => c.state?.running !== undefined),
          ...(nodeName ? { nodeName } : {}),
        },
      };
    });
}
