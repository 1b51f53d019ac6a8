import { podsByOrdinal, type WorkloadPod } from '@steward/workload';
import { InstanceContainerName, InstructionAnnotation, Labels } from './children/index.js';
import { type InstanceFacts, type InstanceView } from './plan/plan.js';

/** The parts of a Pod the controller reads. */
export type Pod = WorkloadPod;

/**
 * The names of the variables the pod's instance container was given — what its template says it
 * runs (the fence's Lease, the replication password) — or undefined when its spec is not known.
 */
export function instanceEnvNames(pod: Pod | undefined): string[] | undefined {
  const spec = pod?.spec as
    { containers?: { name: string; env?: { name: string }[] }[] } | undefined;
  const container = spec?.containers?.find((c) => c.name === InstanceContainerName);
  return container && (container.env ?? []).map((e) => e.name);
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
  return Promise.all(
    podsByOrdinal(pods, cluster, Labels.role).map(
      async ({ pod, basics: { running, ...basics } }): Promise<InstanceFacts> => {
        const instruction = pod.metadata.annotations?.[InstructionAnnotation];
        const last = pod.status?.containerStatuses?.[0]?.lastState?.terminated?.message?.trim();
        return {
          ...basics,
          ...(instruction ? { instruction } : {}),
          ...(last ? { lastMessage: last } : {}),
          ...(basics.ip && running && !basics.deleting && instruction
            ? { view: await observe(basics.ip) }
            : {}),
        };
      },
    ),
  );
}
