import { podsByOrdinal, type WorkloadPod } from '@steward/workload';
import { Labels } from './children/index.js';
import { type NodeView, type PodFacts } from './roles/plan.js';

/** The parts of a Pod the controller reads. */
export type Pod = WorkloadPod;

/**
 * Every pod of the cluster as the role plan sees it: Kubernetes facts (`podsByOrdinal`), and one
 * observation of its server for each pod that runs and has an IP (observed concurrently; an
 * observation never throws).
 */
export async function podFacts(
  pods: Pod[],
  cluster: string,
  observe: (ip: string) => Promise<NodeView>,
): Promise<PodFacts[]> {
  return Promise.all(
    podsByOrdinal(pods, cluster, Labels.role).map(
      async ({ basics: { running, ...basics } }): Promise<PodFacts> => ({
        ...basics,
        ...(basics.ip && running && !basics.deleting ? { node: await observe(basics.ip) } : {}),
      }),
    ),
  );
}
