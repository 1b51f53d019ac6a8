/**
 * @steward/testing-node-tier — the node tier: a real single-node cluster (control plane, kubelet,
 * containerd, kube-proxy, a local-volume provisioner) whose pods really run, shared by every test
 * process on the machine through leases. `acquireNodeTier()` starts it or joins the running one;
 * `localImages()` builds the images from Debian's packages. See the README's "The node tier".
 *
 * Tests and tools only (Nx tag `type:testing`); built on @steward/testing.
 */
export { acquireNodeTier, stopNodeTier, type NodeTier, type NodeTierOptions } from './node-tier.js';
export {
  appImage,
  localImages,
  nodeTierBinaries,
  type LocalImage,
  type NodeTierBinaries,
} from './binaries.js';
export { nodeTierLayout, stateFile, type NodeTierLayout, type NodeTierState } from './layout.js';
export { leftovers, missingPrivileges, NodeTierUnavailableError, processAlive } from './host.js';
