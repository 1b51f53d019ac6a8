import { type KubeObject } from '@steward/kube';
import { Labels } from './children/index.js';
import { type NodeView, type PodFacts } from './roles/plan.js';

/** The parts of a Pod the controller reads. */
export interface Pod extends KubeObject {
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      started?: boolean;
      state?: { running?: unknown };
    }[];
  };
}

/** The ordinal of a StatefulSet pod `<cluster>-<n>`, or undefined for another name. */
export function podOrdinal(podName: string, cluster: string): number | undefined {
  if (!podName.startsWith(`${cluster}-`)) return undefined;
  const rest = podName.slice(cluster.length + 1);
  return /^(0|[1-9][0-9]*)$/.test(rest) ? Number(rest) : undefined;
}

/**
 * Every pod of the cluster as the role plan sees it: Kubernetes facts, and one observation of its
 * server for each pod that runs and has an IP (observed concurrently; an observation never
 * throws).
 */
export async function podFacts(
  pods: Pod[],
  cluster: string,
  observe: (ip: string) => Promise<NodeView>,
): Promise<PodFacts[]> {
  const facts = pods
    .map((pod) => ({ pod, ordinal: podOrdinal(pod.metadata.name ?? '', cluster) }))
    .filter((p): p is { pod: Pod; ordinal: number } => p.ordinal !== undefined)
    .sort((a, b) => a.ordinal - b.ordinal);
  return Promise.all(
    facts.map(async ({ pod, ordinal }): Promise<PodFacts> => {
      const ip = pod.status?.podIP;
      const running =
        pod.status?.phase === 'Running' &&
        (pod.status.containerStatuses ?? []).some((c) => c.state?.running !== undefined);
      const deleting = Boolean(pod.metadata.deletionTimestamp);
      const role = pod.metadata.labels?.[Labels.role];
      return {
        name: pod.metadata.name!,
        ordinal,
        ...(ip ? { ip } : {}),
        ready: (pod.status?.conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
        deleting,
        ...(role ? { roleLabel: role } : {}),
        ...(ip && running && !deleting ? { node: await observe(ip) } : {}),
      };
    }),
  );
}
