import {
  controllerFor,
  generationChanged,
  TerminalError,
  type Controller,
  type Manager,
  type ObjectReconciler,
} from '@steward/controller';
import { CacheCluster } from '@steward/cache-cluster-api';
import { type Selection } from '@steward/informer';
import { planCacheCluster } from './plan-cache-cluster.js';
import { CacheClusterReasons } from './reasons.js';

export interface CacheClusterControllerOptions {
  /** Which CacheClusters to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** CacheClusters reconciled at once. Default 1. */
  maxConcurrentReconciles?: number;
}

/**
 * One CacheCluster, as the runtime hands it over: read once from the cache, never for an object that is
 * gone. Idempotent: it states the status the spec implies, and the status writer writes only what
 * changed (a converged CacheCluster costs no API writes). It mutates nothing but the status.
 * - being deleted → nothing to do: it keeps no finalizer, there is nothing to clean up yet;
 * - a spec `planCacheCluster` refuses → `TerminalError` with the plan's reason and message: the user
 *   must change the spec, and that change reconciles it again;
 * - otherwise → `Ready=True`, reason `Accepted`.
 */
export const reconcileCacheCluster: ObjectReconciler<CacheCluster> = async (ctx, obj) => {
  if (obj.metadata.deletionTimestamp) return;
  const plan = planCacheCluster(obj.spec);
  if (plan.action === 'refuse') throw new TerminalError(plan.reason, plan.message);
  await ctx.status.write({
    conditions: [
      {
        type: 'Ready',
        status: 'True',
        reason: CacheClusterReasons.Accepted,
        message: plan.message,
      },
    ],
  });
};

/**
 * The CacheCluster controller: `reconcileCacheCluster` for every CacheCluster of `options.selection`, woken by spec
 * changes (`generationChanged`: its own status writes do not wake it).
 *
 * RBAC: `cache.steward.dev` `cacheclusters` get/list/watch and `cacheclusters/status` patch;
 * `events.k8s.io` `events` create/patch for the Warning Event of a refusal.
 */
export function cacheClusterController(
  manager: Manager,
  options: CacheClusterControllerOptions = {},
): Controller {
  return controllerFor(manager, CacheCluster.resourceType, {
    selection: options.selection ?? {},
    predicates: [generationChanged],
  })
    .named('cachecluster')
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .completeObjects(reconcileCacheCluster);
}
