/**
 * @steward/testing — the testing core: a real control plane and what every suite needs around it.
 *
 * `startControlPlane()` runs a real etcd + kube-apiserver (+ kube-controller-manager for garbage
 * collection) as plain processes on free loopback ports, with freshly minted certificates and RBAC
 * on, and hands back a kubeconfig, a ready client and `stop()`. The binaries are built from Go
 * modules by tools/control-plane/build.sh and cached outside the repository. Nothing outlives
 * `stop()`, the test process, or a SIGINT: each process has a watchdog that ends it when its parent
 * is gone. `installCRDs()` returns once the CRDs are Established and served. `eventually()` polls
 * for an outcome; tests assert outcomes, never elapsed time. `kstatus()` reads an object as GitOps
 * tools do. `assertModelRuns()` proves a state machine by a model (random command sequences, run
 * count and replay from the environment); `FailoverModelWorld` is what the workload kinds'
 * failover-plan models share.
 *
 * The heavier components are projects of their own, so that changing one reruns only the tests
 * that use it: @steward/testing-backends (Kafka, moto, the OTel collector, Prometheus),
 * @steward/testing-cloudsql (the local Cloud SQL Admin API), @steward/testing-charts (helm, the chart
 * suites, controller processes, charts installed in the node tier) and @steward/testing-node-tier.
 * This core depends on none of them: it is the only testing lib a runtime lib's tests may use (Nx
 * tag `testing:core`, eslint.config.js).
 *
 * Tests and tools only (Nx tag `type:testing`).
 */
export { controlPlaneBinaries, type ControlPlaneBinaries } from './binaries.js';
export { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
export { installCRDs, type InstalledCRD } from './crds.js';
export {
  controlPlaneSuite,
  type ControlPlaneSuite,
  type ControlPlaneSuiteOptions,
  type SuiteHooks,
} from './control-plane-suite.js';
export { customObject, examplesOf, refusalOf, type KindOf } from './custom-objects.js';
export { freePort } from './free-port.js';
export { defaultListenHost, type ListenHostOption } from './listen-host.js';
export { ManagedProcess } from './managed-process.js';
export { repoRoot } from './repo-root.js';
export { eventually, type EventuallyOptions } from './wait.js';
export { boundedAll } from './bounded-all.js';
export { Timings } from './timings.js';
// The install scripts' `--print-env` contract, the certificates and the HTTP probe the control
// plane is built with: the backends and the node tier start their processes the same way.
export { installedEnv, parsePrintEnv, runPrintEnv } from './print-env.js';
export {
  mintCertificate,
  mintCertificateAuthority,
  mintServiceAccountKey,
  readPem,
  type CertificateAuthority,
  type CertificatePair,
  type LeafOptions,
} from './certificates.js';
export { probe as probeHttp, type TlsMaterial } from './https-probe.js';
// kstatus (sigs.k8s.io/cli-utils), run for real over objects: is a custom resource reconciled?
export {
  gitOpsReading,
  kstatus,
  kstatusBinary,
  type GitOpsReading,
  KstatusBinaryMissingError,
  KstatusError,
  type KstatusObject,
  type KstatusResult,
  type KstatusStatus,
} from './kstatus.js';
// Faults and addresses: a proxy that cuts connections, a kubeconfig pointed through it, a probe of
// which addresses a backend listens on.
export { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
export { kubeConfigWithServer } from './kubeconfig-with-server.js';
export { tcpConnect } from './tcp-connect.js';
// A listener that is no real server (a client's failure paths), and what each test opened closed
// after it.
export { startFakeTcpServer, type FakeTcpServer } from './fake-tcp-server.js';
export { closeAfterEach, type Closable, type OpenedPerTest } from './close-after-each.js';
// An admin layer's observations as its tests take them (every error kept, to check for secrets).
export {
  observations,
  type Observation,
  type Observations,
  type Observer,
} from './observations.js';
// Models of state machines that guard data (STYLE.md habit 12): random command sequences with the
// run count and replay from the environment, a replicated stream compared by content, and what the
// workload kinds' failover-plan models share.
export {
  assertModelRuns,
  modelCommand,
  modelRunParameters,
  sometimes,
  type ModelCommand,
  type ModelRunsOptions,
} from './model-runs.js';
export {
  commonPrefix,
  copyStream,
  epochAt,
  isPrefix,
  received,
  startEpoch,
  truncated,
  type ReplicatedStream,
  type StreamPosition,
} from './replicated-stream.js';
export {
  failoverModelCommands,
  FailoverModelWorld,
  recordId,
  type FailoverModelNames,
  type ModelFailoverRecord,
  type ModelServer,
  type ModelStatus,
  type ReconcileDraw,
  type ServerTarget,
} from './failover-model.js';
