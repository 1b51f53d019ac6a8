/**
 * @steward/testing-node-tier — the node tier: a real single-node cluster (control plane, kubelet,
 * containerd, kube-proxy, a local-volume provisioner) whose pods really run, shared by every test
 * process on the machine through leases. `acquireNodeTier()` starts it or joins the running one;
 * `localImages()` builds the images from Debian's packages. See the README's "The node tier".
 * `controllerOnNodeTier()` runs a workload kind's controller in process against it (the kinds'
 * node-tier suites and benches); `barePodsOnNodeTier()` runs bare server pods (their admin layers'
 * tests).
 *
 * Tests and tools only (Nx tag `type:testing`); built on @steward/testing alone (a controller's
 * runtime comes with the kind the harness runs).
 */
export { acquireNodeTier, stopNodeTier, type NodeTier, type NodeTierOptions } from './node-tier.js';
// The multi-node tier: `acquireNodeTier({ nodes: 3 })` (three nodes, three zones, node faults).
export {
  multiNodeLeftovers,
  stopMultiNodeTier,
  type MultiNodeTier,
  type MultiNodeTierOptions,
  type TestClient,
  type TierNode,
} from './multi-node-tier.js';
export { socketFrom } from './test-client-socket.js';
export type { DrainOptions, DrainResult } from './faults.js';
export {
  appImage,
  localImages,
  nodeTierBinaries,
  type LocalImage,
  type NodeTierBinaries,
} from './binaries.js';
export {
  multiNodeTierLayout,
  nodeTierLayout,
  stateFile,
  type MultiNodeTierLayout,
  type MultiNodeTierState,
  type NodeTierLayout,
  type NodeTierState,
} from './layout.js';
export { leftovers, missingPrivileges, NodeTierUnavailableError, processAlive } from './host.js';
// A workload kind's controller in process on the node tier, as the kinds' suites and benches run it.
export {
  controllerOnNodeTier,
  noNodeCanHold,
  startControllerOnNodeTier,
  workloadUnderTest,
  type AdminClient,
  type ControllerOnNodeTier,
  type ControllerOnNodeTierOptions,
  type ControllerOptionsOf,
  type ManagerOf,
  type ManagerOptionsOf,
  type ObjectOf,
  type PreparedSuite,
  type ResourceTypeOf,
  type WorkloadObject,
  type WorkloadUnderTest,
} from './controller-on-node-tier.js';
// Bare server pods (the admin layers' tests): restricted as the images are meant to run.
export {
  barePodsOnNodeTier,
  restrictedPod,
  type BarePods,
  type BarePodsOptions,
} from './bare-pods.js';
