import { type CacheCluster } from '@steward/cache-cluster-api';
import { type KubeClient } from '@steward/kube';
import {
  deleteOwnVolumes,
  ordinalOf,
  retainVolumes,
  volumesOf,
  type ClaimObject,
  type WorkloadChildren,
} from '@steward/workload';
import { childNames, DataVolumeName } from '../children/index.js';

/** What the deletion steps of a CacheCluster use. */
export interface DeletionEnv {
  client: KubeClient;
  children: WorkloadChildren;
  /** The claims of one cluster's pods, by its label. */
  claims: (namespace: string, name: string) => ClaimObject[];
  emit: (obj: CacheCluster, type: 'Normal', reason: string, message: string) => void;
}

/** The volumes of this cluster's StatefulSet (not a same-named predecessor's). */
function clusterVolumes(env: DeletionEnv, obj: CacheCluster) {
  const set = childNames(obj.metadata.name!).statefulSet;
  return volumesOf(
    env.claims(obj.metadata.namespace!, obj.metadata.name!),
    obj,
    (claim) => ordinalOf(`${DataVolumeName}-${set}`, claim.metadata.name ?? '') !== undefined,
  );
}

/** deletionPolicy Retain: the volumes and the generated Secret stay, without owner. */
export async function retainCluster(env: DeletionEnv, obj: CacheCluster): Promise<void> {
  const generated = !obj.spec.auth?.existingSecret;
  const message = await retainVolumes(
    env.client,
    env.children,
    obj,
    clusterVolumes(env, obj),
    generated ? [childNames(obj.metadata.name!).authSecret] : [],
    generated ? '' : ' (the password Secret is the user’s)',
  );
  env.emit(obj, 'Normal', 'Retained', message);
}

/** deletionPolicy Delete: the volumes are deleted; the children go with the CacheCluster. */
export async function removeCluster(env: DeletionEnv, obj: CacheCluster): Promise<void> {
  const generated = !obj.spec.auth?.existingSecret;
  const message = await deleteOwnVolumes(
    env.client,
    obj,
    clusterVolumes(env, obj),
    `the StatefulSet, Services${generated ? ', the auth Secret' : ''} and the rest`,
  );
  env.emit(obj, 'Normal', 'Deleted', message);
}
