import { ConditionsSchema, defineKind, StringEnum, StringMap } from '@steward/crd';
import Type from 'typebox';

/**
 * What deleting a CacheCluster does to what it manages: the two policies of every Steward kind, default
 * Retain. Declared here, not imported from @steward/provider-profile-api: a kind that references
 * no ProviderProfile would otherwise ship the ProviderProfile CRD in its chart.
 */
export const CacheClusterDeletionPolicies = ['Retain', 'Delete'] as const;
export type CacheClusterDeletionPolicy = (typeof CacheClusterDeletionPolicies)[number];

/** At most this many `spec.parameters`. */
export const MAX_PARAMETERS = 32;
/** The longest value of a `spec.parameters` key. */
export const MAX_PARAMETER_VALUE_LENGTH = 1024;

export const CacheClusterSpec = Type.Object({
  parameters: Type.Optional(
    StringMap({
      maxProperties: MAX_PARAMETERS,
      additionalProperties: { type: 'string', maxLength: MAX_PARAMETER_VALUE_LENGTH },
      description:
        'Settings of the CacheCluster, by key. A key the controller does not know is refused (UnknownParameter).',
    }),
  ),
  deletionPolicy: Type.Optional(
    StringEnum(CacheClusterDeletionPolicies, {
      default: 'Retain',
      description:
        'Retain: deleting the CacheCluster leaves what it manages in place. Delete: that is deleted too.',
    }),
  ),
});

export const CacheClusterStatus = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

/** A CacheCluster, kept converged by Steward's CacheCluster controller (@steward/cache-cluster). */
export const CacheCluster = defineKind({
  group: 'cache.steward.dev',
  version: 'v1alpha1',
  kind: 'CacheCluster',
  plural: 'cacheclusters',
  shortNames: ['cc'],
  categories: ['steward'],
  scope: 'Namespaced',
  description: "A CacheCluster, kept converged by Steward's CacheCluster controller.",
  spec: CacheClusterSpec,
  status: CacheClusterStatus,
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
      priority: 1,
    },
  ],
});

export type CacheCluster = typeof CacheCluster.$object;
export type CacheClusterSpec = CacheCluster['spec'];
export type CacheClusterStatus = NonNullable<CacheCluster['status']>;
