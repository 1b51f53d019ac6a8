import { type ImagePullPolicy, type WorkloadScheduling } from '@steward/crd';
import { renderPlacement } from './placement.js';
import { type ChildMeta, type ChildObject } from './render.js';

/**
 * The StatefulSet every workload kind runs its servers in, and the hardening every one of its pods
 * gets (pure). A kind gives its containers, volumes and policies; this says the rest once.
 */

/** Every container of a workload's pods: no privilege escalation, a read-only root, no capabilities. */
export const ContainerSecurityContext = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  capabilities: { drop: ['ALL'] },
} as const;

/** Every pod of a workload: the image's unprivileged user and group, RuntimeDefault seccomp. */
export function podSecurityContext(uid: number, gid: number) {
  return {
    runAsNonRoot: true,
    runAsUser: uid,
    runAsGroup: gid,
    fsGroup: gid,
    seccompProfile: { type: 'RuntimeDefault' },
  } as const;
}

/** `/tmp`: memory, 16 MiB (the root filesystem is read-only). */
export const TmpVolume = {
  name: 'tmp',
  emptyDir: { medium: 'Memory', sizeLimit: '16Mi' },
} as const;

/** A quantity pair as a container's `resources` takes it. */
export interface CpuMemory {
  cpu?: string;
  memory?: string;
}

/**
 * How the kubelet gets a workload's image: the catalogue entry's `imagePullPolicy` (default
 * `IfNotPresent`) and the profile's `imagePullSecrets` — names of Secrets in the workload's
 * namespace that the pods reference (the kubelet reads them; the controller never does).
 */
export interface ImagePull {
  policy: ImagePullPolicy;
  secrets: readonly string[];
}

/** `IfNotPresent`, no pull secrets: what a pod gets when neither catalogue nor profile says more. */
export const DefaultImagePull: ImagePull = { policy: 'IfNotPresent', secrets: [] };

/** What a workload's pods run with once admitted: the image, resources and volume resolved. */
export interface ResolvedPods {
  image: string;
  /** How the image is pulled (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  resources?: { requests?: CpuMemory; limits?: CpuMemory };
  /** Each pod's volume (absent: the kind runs without one). */
  storage?: { size: string; storageClassName?: string };
}

/** What a workload kind renders its children from: the object and what was resolved for it. */
export interface WorkloadRenderInput<C> {
  /** The object as stored (the API server has applied its defaults). */
  cluster: C;
  /** The server image, resolved from the catalogue. */
  image: string;
  /** How the image is pulled, resolved from the catalogue and profile (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  /** The server container's requests and limits, resolved (spec, else the size class). */
  resources?: { requests?: CpuMemory; limits?: CpuMemory };
  /**
   * The StatefulSet's current `volumeClaimTemplates` storage request, when the StatefulSet exists:
   * templates are immutable, so the template keeps it (the claims are grown separately).
   */
  existingTemplateStorage?: string;
  /** The controller's pods, which must reach every server (NetworkPolicy); absent: no such rule. */
  controller?: { namespace: string; podLabels: Record<string, string> };
}

/** `resources` without empty members (an apply configuration sends only what it means). */
export function compactResources(resources: { requests?: CpuMemory; limits?: CpuMemory }): {
  requests?: Record<string, string>;
  limits?: Record<string, string>;
} {
  const compact = (pair: CpuMemory | undefined) => {
    if (!pair) return undefined;
    const out: Record<string, string> = {};
    if (pair.cpu !== undefined) out.cpu = pair.cpu;
    if (pair.memory !== undefined) out.memory = pair.memory;
    return Object.keys(out).length ? out : undefined;
  };
  const requests = compact(resources.requests);
  const limits = compact(resources.limits);
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** What a workload kind's StatefulSet is made of. */
export interface WorkloadStatefulSetSpec {
  /** Namespace and labels: the StatefulSet's, its pods' and its claims'. */
  meta: ChildMeta;
  name: string;
  /** The headless Service that names each pod. */
  serviceName: string;
  /** The pods' selector (immutable once created). */
  selector: Record<string, string>;
  replicas: number;
  /** `RollingUpdate`: the StatefulSet rolls on a template change; `OnDelete`: the controller does. */
  updateStrategy: 'RollingUpdate' | 'OnDelete';
  /** The claims of a scaled-away pod (a deleted StatefulSet's are always kept). */
  whenScaled: 'Retain' | 'Delete';
  /** The pod template's annotations (e.g. the configuration's hash, so a change rolls). */
  podAnnotations: Record<string, string>;
  /** The pods' security context (`podSecurityContext`); volumes change group only when wrong. */
  securityContext: ReturnType<typeof podSecurityContext>;
  containers: Record<string, unknown>[];
  volumes: Record<string, unknown>[];
  /** Each pod's data volume (ReadWriteOnce); absent: the kind mounts something else. */
  claim?: { name: string; size: string; storageClassName?: string };
  /** `spec.scheduling` of the object (absent: the default spread, preferred over nodes and zones). */
  scheduling?: WorkloadScheduling;
  /** How every container's image is pulled (absent: `DefaultImagePull`). */
  pull?: ImagePull;
  /**
   * The pods' own ServiceAccount (absent: the namespace's default). Its token is still not
   * mounted: a kind that needs one mounts a projected token volume of its own.
   */
  serviceAccountName?: string;
}

/**
 * The StatefulSet: pods started in parallel, no service-account token and no service links in
 * them, 30 s to stop, claims kept when the StatefulSet is deleted (the controller keeps or deletes
 * them per the object's deletionPolicy). Every container gets the pull policy, the pod the pull
 * secrets; the pods are placed as `spec.scheduling` says (`renderPlacement`, over the
 * StatefulSet's own selector).
 */
export function renderWorkloadStatefulSet(spec: WorkloadStatefulSetSpec): ChildObject {
  const labels = spec.meta.labels;
  const claim = spec.claim;
  const pull = spec.pull ?? DefaultImagePull;
  const placement = renderPlacement(spec.scheduling, spec.selector);
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: spec.name, namespace: spec.meta.namespace, labels: { ...labels } },
    spec: {
      replicas: spec.replicas,
      serviceName: spec.serviceName,
      selector: { matchLabels: spec.selector },
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: spec.updateStrategy },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: spec.whenScaled },
      template: {
        metadata: { labels: { ...labels }, annotations: spec.podAnnotations },
        spec: {
          terminationGracePeriodSeconds: 30,
          enableServiceLinks: false,
          ...(spec.serviceAccountName ? { serviceAccountName: spec.serviceAccountName } : {}),
          automountServiceAccountToken: false,
          securityContext: { ...spec.securityContext, fsGroupChangePolicy: 'OnRootMismatch' },
          ...(pull.secrets.length
            ? { imagePullSecrets: pull.secrets.map((name) => ({ name })) }
            : {}),
          ...placement,
          containers: spec.containers.map((c) => ({ ...c, imagePullPolicy: pull.policy })),
          volumes: spec.volumes,
        },
      },
      ...(claim
        ? {
            volumeClaimTemplates: [
              {
                apiVersion: 'v1',
                kind: 'PersistentVolumeClaim',
                metadata: { name: claim.name, labels: { ...labels } },
                spec: {
                  accessModes: ['ReadWriteOnce'],
                  resources: { requests: { storage: claim.size } },
                  ...(claim.storageClassName ? { storageClassName: claim.storageClassName } : {}),
                },
              },
            ],
          }
        : {}),
    },
  };
}
