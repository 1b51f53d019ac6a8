import { type Predicate } from '@steward/controller';
import { type KubeObject } from '@steward/kube';
import { type WorkloadPod } from './pod-facts.js';
import { failedLately, type SwitchoverSeen } from './rollout.js';

/**
 * A node being drained, as a workload kind sees it: cordoned (`spec.unschedulable`, which
 * `kubectl drain` and `kubectl cordon` set, or the taint the node lifecycle controller adds for
 * it). The primary on such a node is switched over to a replica on another node before its pod
 * can be evicted — its own PodDisruptionBudget (`renderDisruptionBudgets`) refuses the eviction
 * while it is primary — and the replicas go one at a time.
 */

/** The taint the node lifecycle controller puts on a cordoned node. */
export const UnschedulableTaint = 'node.kubernetes.io/unschedulable';

/** The parts of a Node a workload kind reads. */
export interface WorkloadNode extends KubeObject {
  spec?: { unschedulable?: boolean; taints?: { key: string; effect?: string }[] };
}

/** Whether a node is cordoned (false for a node not known). */
export function nodeCordoned(node: WorkloadNode | undefined): boolean {
  if (!node) return false;
  return (
    node.spec?.unschedulable === true ||
    (node.spec?.taints ?? []).some((t) => t.key === UnschedulableTaint)
  );
}

/** Wakes a workload only when a node is cordoned or uncordoned (not on its status heartbeats). */
export const nodeCordonChanged: Predicate<KubeObject> = {
  create: () => false,
  update: (old, obj) => nodeCordoned(old as WorkloadNode) !== nodeCordoned(obj as WorkloadNode),
  delete: () => false,
};

/**
 * Whether a drain asks for a switchover (pure): the primary's pod is on a cordoned node and
 * there is another pod to switch to. `avoid`: the pods on cordoned nodes, which a switchover must
 * not choose (their turn to be evicted comes next).
 */
export function drainWantsSwitchover(facts: {
  pods: readonly WorkloadPod[];
  primary: string | undefined;
  cordoned: (nodeName: string) => boolean;
  /** The newest switchover record: one the drain asked for that failed lately waits a minute. */
  lastSwitchover?: SwitchoverSeen | undefined;
  now?: number;
}): { avoid: string[] } | undefined {
  if (facts.now !== undefined && failedLately(facts.lastSwitchover, 'NodeDrain', facts.now))
    return undefined;
  const live = facts.pods.filter((p) => !p.metadata.deletionTimestamp);
  const onCordoned = (p: WorkloadPod) =>
    Boolean(p.spec?.nodeName && facts.cordoned(p.spec.nodeName));
  const primary = live.find((p) => p.metadata.name === facts.primary);
  if (!primary || !onCordoned(primary) || live.length < 2) return undefined;
  return {
    avoid: live
      .filter(onCordoned)
      .map((p) => p.metadata.name!)
      .sort(),
  };
}
