/**
 * Node faults of the multi-node tier, as a test asks for them: the supervisor's control socket
 * (stop, start, partition, heal, test clients, reset: it owns the node processes) and the API-only
 * ones run here (drain with kubectl's eviction semantics, uncordon, the out-of-service taint).
 */
import {
  ApiException,
  CoreV1Api,
  PatchStrategy,
  type KubeConfig,
  type KubernetesObjectApi,
  type V1Pod,
} from '@kubernetes/client-node';
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

/** POSTs `body` to the supervisor's control socket; resolves with its JSON answer, rejects with its error. */
export function control<T = unknown>(socket: string, path: string, body: object = {}): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: socket, path, method: 'POST', headers: { 'content-type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: { error?: string } & Record<string, unknown> = {};
          try {
            parsed = JSON.parse(text || '{}') as typeof parsed;
          } catch {
            parsed = { error: text };
          }
          if (res.statusCode === 200) resolve(parsed as T);
          else
            reject(
              new Error(
                `steward: multi-node tier ${path} failed: ${parsed.error ?? `HTTP ${res.statusCode}`}`,
              ),
            );
        });
      },
    );
    req.on('error', (e) => reject(new Error(`steward: multi-node tier ${path}: ${e.message}`)));
    req.end(JSON.stringify(body));
  });
}

const mergePatch = (client: KubernetesObjectApi, name: string, spec: object) =>
  client.patch(
    { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec } as never,
    undefined,
    undefined,
    undefined,
    undefined,
    PatchStrategy.MergePatch,
  );

export async function cordonNode(client: KubernetesObjectApi, name: string): Promise<void> {
  await mergePatch(client, name, { unschedulable: true });
}

export async function uncordonNode(client: KubernetesObjectApi, name: string): Promise<void> {
  await mergePatch(client, name, { unschedulable: null });
}

/**
 * `node.kubernetes.io/out-of-service=nodeshutdown:NoExecute`: the pod GC then force-deletes the
 * terminating pods of a NotReady node (a StatefulSet pod on a stopped node stays Terminating
 * otherwise), and their volumes are detached.
 */
export async function markOutOfService(kubeConfig: KubeConfig, name: string): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const node = await core.readNode({ name });
  const taints = (node.spec?.taints ?? []).filter(
    (t) => t.key !== 'node.kubernetes.io/out-of-service',
  );
  taints.push({
    key: 'node.kubernetes.io/out-of-service',
    value: 'nodeshutdown',
    effect: 'NoExecute',
  });
  await core.replaceNode({ name, body: { ...node, spec: { ...node.spec, taints } } });
}

/** Removes the out-of-service taint (reset does it too). */
export async function clearOutOfService(kubeConfig: KubeConfig, name: string): Promise<void> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const node = await core.readNode({ name });
  const taints = (node.spec?.taints ?? []).filter(
    (t) => t.key !== 'node.kubernetes.io/out-of-service',
  );
  if (taints.length === (node.spec?.taints ?? []).length) return;
  await core.replaceNode({ name, body: { ...node, spec: { ...node.spec, taints } } });
}

export interface DrainOptions {
  /** Default 120 s. */
  timeoutMs?: number;
  /** Pause between evictions a PodDisruptionBudget refused (HTTP 429). Default 1 s (kubectl: 5 s). */
  retryDelayMs?: number;
}

/** What a drain did: the pods it evicted, and how often a PDB made it wait. */
export interface DrainResult {
  evicted: string[];
  /** Eviction attempts refused with 429 (a PodDisruptionBudget did not allow it yet). */
  refusals: number;
}

/**
 * `kubectl drain` (k8s.io/kubectl/pkg/drain): cordon, then evict every pod on the node but mirror
 * and DaemonSet pods (finished pods are deleted), retrying while a PodDisruptionBudget refuses
 * (429), and wait until each evicted pod (by UID) is gone. Throws on timeout, naming the pods left
 * and the last refusal.
 */
export async function drainNode(
  kubeConfig: KubeConfig,
  client: KubernetesObjectApi,
  name: string,
  options: DrainOptions = {},
): Promise<DrainResult> {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const retryDelayMs = options.retryDelayMs ?? 1_000;
  await cordonNode(client, name);
  const list = await core.listPodForAllNamespaces({ fieldSelector: `spec.nodeName=${name}` });
  const pods = list.items.filter(
    (p) =>
      !p.metadata?.annotations?.['kubernetes.io/config.mirror'] &&
      !p.metadata?.ownerReferences?.some((o) => o.kind === 'DaemonSet'),
  );
  const result: DrainResult = { evicted: [], refusals: 0 };
  let lastRefusal = '';
  const evictOne = async (pod: V1Pod): Promise<void> => {
    const namespace = pod.metadata!.namespace!;
    const podName = pod.metadata!.name!;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') {
      await core.deleteNamespacedPod({ name: podName, namespace }).catch(() => undefined);
      return;
    }
    for (;;) {
      try {
        await core.createNamespacedPodEviction({
          name: podName,
          namespace,
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: podName, namespace },
          },
        });
        result.evicted.push(`${namespace}/${podName}`);
        return;
      } catch (error) {
        const code = error instanceof ApiException ? error.code : undefined;
        if (code === 404) return;
        if (code !== 429 && code !== 403) throw error;
        result.refusals++;
        lastRefusal = `${namespace}/${podName}: ${error instanceof ApiException ? String(error.body) : String(error)}`;
        if (Date.now() > deadline)
          throw new Error(
            `steward: draining ${name} timed out; eviction of ${namespace}/${podName} still refused: ${lastRefusal}`,
          );
        await sleep(retryDelayMs);
      }
    }
  };
  await Promise.all(pods.map(evictOne));
  // wait until every pod that was there (by UID) is gone
  for (const pod of pods) {
    for (;;) {
      const current = await core
        .readNamespacedPod({ name: pod.metadata!.name!, namespace: pod.metadata!.namespace! })
        .catch(() => undefined);
      if (!current || current.metadata?.uid !== pod.metadata?.uid) break;
      if (Date.now() > deadline)
        throw new Error(
          `steward: draining ${name} timed out; ${pod.metadata!.namespace}/${pod.metadata!.name} is still there`,
        );
      await sleep(250);
    }
  }
  return result;
}
