import { type KubeObject } from '@steward/kube';
import { InstructionAnnotation, Labels, ordinalOf } from './children/index.js';
import { type InstanceFacts, type InstanceView } from './plan/plan.js';

/** The parts of a Pod the controller reads. */
export interface Pod extends KubeObject {
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string }[];
    containerStatuses?: {
      name: string;
      ready: boolean;
      restartCount?: number;
      containerID?: string;
      state?: { running?: unknown; waiting?: { reason?: string; message?: string } };
      lastState?: { terminated?: { exitCode?: number; message?: string; reason?: string } };
    }[];
  };
}

/**
 * Every pod of the cluster as the plan sees it: Kubernetes facts (IP, readiness, role label,
 * instruction, the agent's last termination message) and one observation of its PostgreSQL for
 * each pod that runs, has an IP and has been given an instruction (observed concurrently; an
 * observation never throws). A pod told `wait` is observed too: that its PostgreSQL refuses
 * connections is how a switchover knows the old primary has stopped.
 */
export async function instanceFacts(
  pods: Pod[],
  cluster: string,
  observe: (ip: string) => Promise<InstanceView>,
): Promise<InstanceFacts[]> {
  const facts = pods
    .map((pod) => ({ pod, ordinal: ordinalOf(cluster, pod.metadata.name ?? '') }))
    .filter((p): p is { pod: Pod; ordinal: number } => p.ordinal !== undefined)
    .sort((a, b) => a.ordinal - b.ordinal);
  return Promise.all(
    facts.map(async ({ pod, ordinal }): Promise<InstanceFacts> => {
      const ip = pod.status?.podIP;
      const container = pod.status?.containerStatuses?.[0];
      const running = pod.status?.phase === 'Running' && container?.state?.running !== undefined;
      const deleting = Boolean(pod.metadata.deletionTimestamp);
      const role = pod.metadata.labels?.[Labels.role];
      const instruction = pod.metadata.annotations?.[InstructionAnnotation];
      const last = container?.lastState?.terminated?.message?.trim();
      return {
        name: pod.metadata.name!,
        ordinal,
        ...(ip ? { ip } : {}),
        ready: (pod.status?.conditions ?? []).some(
          (c) => c.type === 'Ready' && c.status === 'True',
        ),
        deleting,
        ...(role ? { roleLabel: role } : {}),
        ...(instruction ? { instruction } : {}),
        ...(last ? { lastMessage: last } : {}),
        ...(ip && running && !deleting && instruction ? { view: await observe(ip) } : {}),
      };
    }),
  );
}
