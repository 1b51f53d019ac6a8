import {
  NodeTopologyKey,
  ZoneTopologyKey,
  type WorkloadAffinity,
  type WorkloadScheduling,
} from '@steward/crd';

/**
 * Where a workload's pods run and how they spread (pure): `spec.scheduling` rendered into the pod
 * template's `nodeSelector`, `tolerations`, `affinity` and `topologySpreadConstraints`.
 *
 * - The node spread is a pod anti-affinity on `kubernetes.io/hostname` (weight 100 when
 *   `Preferred`, required when `Required`); the zone spread a topology spread constraint on
 *   `topology.kubernetes.io/zone`, maxSkew 1, `ScheduleAnyway` when `Preferred`, `DoNotSchedule`
 *   with minDomains 2 when `Required`, counting only nodes whose taints the pods tolerate
 *   (`nodeTaintsPolicy: Honor`: a zone of tainted nodes alone is no domain to fill).
 * - Both select the StatefulSet's own pods (its selector), so a PostgresCluster's second instance
 *   set (a major upgrade) spreads its pods among themselves and is never kept off a node by the
 *   set it replaces.
 * - `affinity`'s parts are used as given; a given `podAntiAffinity` replaces the node spread, given
 *   `topologySpreadConstraints` the zone spread. A term or constraint without `labelSelector` gets
 *   the StatefulSet's selector.
 * - Nothing depends on the replica count: a cluster scaled from one pod to three keeps its pod
 *   template, so scaling never restarts a pod.
 */
export interface PodPlacement {
  nodeSelector?: Record<string, string>;
  tolerations?: Record<string, unknown>[];
  affinity: Record<string, unknown>;
  topologySpreadConstraints: Record<string, unknown>[];
}

type PodAffinityTerms = NonNullable<WorkloadAffinity['podAntiAffinity']>;
type Term = NonNullable<PodAffinityTerms['requiredDuringSchedulingIgnoredDuringExecution']>[number];

const withSelector = <T extends { labelSelector?: unknown }>(
  item: T,
  selector: Record<string, string>,
): T => (item.labelSelector ? item : { ...item, labelSelector: { matchLabels: { ...selector } } });

/** Pod (anti-)affinity terms with the selector filled in where a term has none. */
function ownPods(
  terms: PodAffinityTerms,
  selector: Record<string, string>,
): Record<string, unknown> {
  const required = terms.requiredDuringSchedulingIgnoredDuringExecution;
  const preferred = terms.preferredDuringSchedulingIgnoredDuringExecution;
  return {
    ...(required
      ? {
          requiredDuringSchedulingIgnoredDuringExecution: required.map((t: Term) =>
            withSelector(t, selector),
          ),
        }
      : {}),
    ...(preferred
      ? {
          preferredDuringSchedulingIgnoredDuringExecution: preferred.map((w) => ({
            ...w,
            podAffinityTerm: withSelector(w.podAffinityTerm, selector),
          })),
        }
      : {}),
  };
}

/** The node spread: one pod per node, required or preferred. */
export function nodeSpread(
  policy: 'Preferred' | 'Required',
  selector: Record<string, string>,
): Record<string, unknown> {
  const term = { labelSelector: { matchLabels: { ...selector } }, topologyKey: NodeTopologyKey };
  return policy === 'Required'
    ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
}

/** The zone spread: maxSkew 1 over zones, required (over at least two zones) or preferred. */
export function zoneSpread(
  policy: 'Preferred' | 'Required',
  selector: Record<string, string>,
): Record<string, unknown> {
  return {
    maxSkew: 1,
    topologyKey: ZoneTopologyKey,
    whenUnsatisfiable: policy === 'Required' ? 'DoNotSchedule' : 'ScheduleAnyway',
    ...(policy === 'Required' ? { minDomains: 2 } : {}),
    labelSelector: { matchLabels: { ...selector } },
    nodeTaintsPolicy: 'Honor',
  };
}

/** `spec.scheduling` (absent: the defaults) rendered for pods selected by `selector`. */
export function renderPlacement(
  scheduling: WorkloadScheduling | undefined,
  selector: Record<string, string>,
): PodPlacement {
  const given = scheduling ?? {};
  const affinity = given.affinity ?? {};
  const nodeSelector = given.nodeSelector;
  const tolerations = given.tolerations;
  return {
    ...(nodeSelector && Object.keys(nodeSelector).length
      ? { nodeSelector: { ...nodeSelector } }
      : {}),
    ...(tolerations?.length ? { tolerations: tolerations.map((t) => ({ ...t })) } : {}),
    affinity: {
      ...(affinity.nodeAffinity ? { nodeAffinity: affinity.nodeAffinity } : {}),
      ...(affinity.podAffinity ? { podAffinity: ownPods(affinity.podAffinity, selector) } : {}),
      podAntiAffinity: affinity.podAntiAffinity
        ? ownPods(affinity.podAntiAffinity, selector)
        : nodeSpread(given.spread?.nodes ?? 'Preferred', selector),
    },
    topologySpreadConstraints: given.topologySpreadConstraints
      ? given.topologySpreadConstraints.map((c) => withSelector(c, selector))
      : [zoneSpread(given.spread?.zones ?? 'Preferred', selector)],
  };
}
