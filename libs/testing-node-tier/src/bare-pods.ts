/**
 * Bare server Pods on the node tier, reached at their pod IPs from this process (the host reaches
 * pod IPs over the tier's bridge): what the workload kinds' admin layers are tested against, one
 * server per pod, no controller in between.
 */
import { CoreV1Api, type V1Container, type V1Pod } from '@kubernetes/client-node';
import { eventually, type SuiteHooks } from '@steward/testing';
import { readFile } from 'node:fs/promises';
import { localImages, type LocalImage } from './binaries.js';
import { run } from './host.js';
import { stateFile, type NodeTierState } from './layout.js';
import { acquireNodeTier, type NodeTier } from './node-tier.js';

/**
 * A bare Pod running `container` as the images are meant to run: non-root 999:999 with the
 * RuntimeDefault seccomp profile, a read-only root filesystem, no capabilities, no privilege
 * escalation, no service links or token, a 1 s grace period, the image never pulled — and an
 * emptyDir for each of `scratch`'s volumes, mounted at its path.
 */
export function restrictedPod(
  metadata: { name: string; labels?: Record<string, string> },
  container: V1Container,
  scratch: Record<string, string>,
): V1Pod {
  const volumes = Object.entries(scratch);
  return {
    metadata,
    spec: {
      enableServiceLinks: false,
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 999,
        runAsGroup: 999,
        fsGroup: 999,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          imagePullPolicy: 'Never',
          ...container,
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
          volumeMounts: volumes.map(([name, mountPath]) => ({ name, mountPath })),
        },
      ],
      volumes: volumes.map(([name]) => ({ name, emptyDir: {} })),
    },
  };
}

export interface BarePodsOptions {
  /** The images the pods run (`localImages` names). */
  images: string[];
  /** The namespace's prefix (`NodeTier.createNamespace`). */
  namespace: string;
}

/** Bare pods in a namespace of the tier's, for the tests of one file. */
export interface BarePods {
  readonly tier: NodeTier;
  readonly core: CoreV1Api;
  readonly namespace: string;
  readonly images: Record<string, LocalImage>;
  /** Creates the pods at once, then waits (3 minutes each) for each to be Ready with a pod IP. */
  run(pods: V1Pod[]): Promise<void>;
  /** The pod IP of a pod `run` saw Ready. */
  ip(name: string): string;
  /** Sends `signal` to the pod's server (its container's init) through containerd, as root. */
  signal(name: string, signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): Promise<void>;
  /** Deletes the pod at once (no grace period). */
  delete(name: string): Promise<void>;
  /** Waits (a minute) until the pod is gone from the API server. */
  gone(name: string): Promise<void>;
}

/**
 * Bare pods for one test file: the tier acquired, the images imported and the namespace created
 * in its `beforeAll`, the lease given back in its `afterAll`.
 */
export function barePodsOnNodeTier(hooks: SuiteHooks, options: BarePodsOptions): BarePods {
  let started: { tier: NodeTier; core: CoreV1Api; namespace: string } | undefined;
  let images: Record<string, LocalImage> | undefined;
  const ips = new Map<string, string>();
  hooks.beforeAll(async () => {
    const tier = await acquireNodeTier();
    try {
      images = await localImages(...options.images);
      for (const image of Object.values(images)) await tier.importImage(image);
      const namespace = await tier.createNamespace(options.namespace);
      started = { tier, core: tier.kubeConfig.makeApiClient(CoreV1Api), namespace };
    } catch (error) {
      await tier.release();
      throw error;
    }
  });
  hooks.afterAll(async () => {
    await started?.tier.release();
  });
  const the = () => {
    if (!started) throw new Error('steward: the bare pods have not started');
    return started;
  };
  const readPod = (name: string) =>
    the().core.readNamespacedPod({ name, namespace: the().namespace });
  const pods: BarePods = {
    get tier() {
      return the().tier;
    },
    get core() {
      return the().core;
    },
    get namespace() {
      return the().namespace;
    },
    get images() {
      if (!images) throw new Error('steward: the bare pods have not started');
      return images;
    },
    run: async (bodies) => {
      const { core, namespace } = the();
      await Promise.all(bodies.map((body) => core.createNamespacedPod({ namespace, body })));
      for (const { metadata } of bodies) {
        const name = metadata!.name!;
        const pod = await eventually(
          async () => {
            const pod = await readPod(name);
            const ready = pod.status?.conditions?.some(
              (c) => c.type === 'Ready' && c.status === 'True',
            );
            return ready && pod.status?.podIP ? pod : undefined;
          },
          { timeoutMs: 180_000, description: `pod ${name} Ready with a pod IP` },
        );
        ips.set(name, pod.status!.podIP!);
      }
    },
    ip: (name) => {
      const ip = ips.get(name);
      if (!ip) throw new Error(`no pod IP for ${name}`);
      return ip;
    },
    signal: async (name, signal) => {
      const { tier } = the();
      const pod = await readPod(name);
      const id = pod.status?.containerStatuses?.[0]?.containerID?.replace(/^containerd:\/\//, '');
      if (!id) throw new Error(`pod ${name} has no running container`);
      const state = JSON.parse(await readFile(stateFile(tier.layout), 'utf8')) as NodeTierState;
      await run(tier.binaries.ctr, [
        ...['--address', state.containerdSocket!, '--namespace', 'k8s.io'],
        ...['tasks', 'kill', '--signal', signal, id],
      ]);
    },
    delete: async (name) => {
      const { core, namespace } = the();
      await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 });
    },
    gone: async (name) => {
      await eventually(
        () =>
          readPod(name).then(
            () => false,
            () => true,
          ),
        { timeoutMs: 60_000, description: `pod ${name} gone` },
      );
    },
  };
  return pods;
}
