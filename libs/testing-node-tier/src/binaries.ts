import {
  controlPlaneBinaries,
  repoRoot,
  runPrintEnv,
  type ControlPlaneBinaries,
} from '@steward/testing';
import { join } from 'node:path';

/** Absolute paths of the node tier's binaries (tools/node-tier/build.sh) and the control plane's. */
export interface NodeTierBinaries extends ControlPlaneBinaries {
  kubelet: string;
  kubeScheduler: string;
  kubeProxy: string;
  containerd: string;
  ctr: string;
  containerdShim: string;
  provisioner: string;
  runc: string;
  cniBinDir: string;
  nft: string;
  /** The multi-node tier's NetworkPolicy agent (patched kube-network-policies). */
  kubeNetworkPolicies: string;
}

const envNames = {
  kubelet: 'STEWARD_KUBELET_BIN',
  kubeScheduler: 'STEWARD_KUBE_SCHEDULER_BIN',
  kubeProxy: 'STEWARD_KUBE_PROXY_BIN',
  containerd: 'STEWARD_CONTAINERD_BIN',
  ctr: 'STEWARD_CTR_BIN',
  containerdShim: 'STEWARD_CONTAINERD_SHIM_BIN',
  provisioner: 'STEWARD_PROVISIONER_BIN',
  runc: 'STEWARD_RUNC_BIN',
  cniBinDir: 'STEWARD_CNI_BIN_DIR',
  nft: 'STEWARD_NFT_BIN',
  kubeNetworkPolicies: 'STEWARD_KUBE_NETWORK_POLICIES_BIN',
} as const;

/** An image built without a registry: its reference and the OCI archive containerd imports. */
export interface LocalImage {
  readonly ref: string;
  readonly archive: string;
}

let pendingBinaries: Promise<NodeTierBinaries> | undefined;

/**
 * The node tier's binaries, built on first use by `tools/node-tier/build.sh` (a few minutes after a
 * cold control-plane build, under a second when cached; progress on stderr). `STEWARD_*` variables
 * win, all or nothing, as for the control plane.
 */
export function nodeTierBinaries(): Promise<NodeTierBinaries> {
  pendingBinaries ??= resolveBinaries().catch((error: unknown) => {
    pendingBinaries = undefined;
    throw error;
  });
  return pendingBinaries;
}

async function resolveBinaries(): Promise<NodeTierBinaries> {
  const controlPlane = await controlPlaneBinaries();
  let node = readEnv(process.env);
  if (!node) {
    const script = join(repoRoot(), 'tools', 'node-tier', 'build.sh');
    node = readEnv(await runPrintEnv(script));
    if (!node) throw new Error(`steward: ${script} --print-env did not print every binary path`);
  }
  return { ...controlPlane, ...node };
}

function readEnv(
  env: Record<string, string | undefined>,
): Omit<NodeTierBinaries, keyof ControlPlaneBinaries> | undefined {
  const entries = Object.entries(envNames).map(([key, name]) => [key, env[name]] as const);
  if (entries.some(([, value]) => !value)) return undefined;
  return Object.fromEntries(entries) as unknown as Omit<
    NodeTierBinaries,
    keyof ControlPlaneBinaries
  >;
}

const pendingImages = new Map<string, Promise<Record<string, LocalImage>>>();

/**
 * Builds (or finds cached) the named images of `tools/node-tier/images/build.sh` — `pause`,
 * `redis-7.0`, `postgres-15`, `node-24`, … — and returns them by name. Cached by their inputs: a
 * warm call takes well under a second; a cold one runs mmdebstrap with progress on stderr.
 */
export function localImages(...names: string[]): Promise<Record<string, LocalImage>> {
  const key = names.join(' ');
  let pending = pendingImages.get(key);
  if (!pending) {
    const script = join(repoRoot(), 'tools', 'node-tier', 'images', 'build.sh');
    pending = runPrintEnv(script, names).then((env) => imagesOf(env, names, script));
    pending.catch(() => pendingImages.delete(key));
    pendingImages.set(key, pending);
  }
  return pending;
}

/**
 * Builds (or finds cached) the container image of `apps/<app>` from the real `apps/Dockerfile`
 * (`tools/node-tier/images/build-app.sh`: buildah, the local Node LTS base), cached by its inputs.
 */
export async function appImage(app: string): Promise<LocalImage> {
  const script = join(repoRoot(), 'tools', 'node-tier', 'images', 'build-app.sh');
  const env = await runPrintEnv(script, [app]);
  const image = Object.values(imagesOf(env, [], script, 'STEWARD_APP_IMAGE_'))[0];
  if (!image) throw new Error(`steward: ${script} ${app} --print-env printed no image`);
  return image;
}

/** `<prefix><NAME>=<ref>|<archive>` lines (NAME upper-case, `-` and `.` as `_`), by name. */
function imagesOf(
  env: Record<string, string>,
  names: string[],
  script: string,
  prefix = 'STEWARD_IMAGE_',
): Record<string, LocalImage> {
  const images: Record<string, LocalImage> = {};
  for (const [key, value] of Object.entries(env)) {
    if (!key.startsWith(prefix)) continue;
    const [ref, archive] = value.split('|');
    if (!ref || !archive) continue;
    images[key.slice(prefix.length)] = { ref, archive };
  }
  const byName: Record<string, LocalImage> = {};
  for (const name of names) {
    const image = images[name.toUpperCase().replace(/[^A-Z0-9]/g, '_')];
    if (!image) throw new Error(`steward: ${script} --print-env printed no image named ${name}`);
    byName[name] = image;
  }
  return names.length ? byName : images;
}
