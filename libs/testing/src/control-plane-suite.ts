import { type KubeConfig } from '@kubernetes/client-node';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Closable } from './close-after-each.js';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';

/** The test runner's suite hooks (vitest's `beforeAll` and `afterAll`): this module depends on no runner. */
export interface SuiteHooks {
  beforeAll(hook: () => Promise<void>, timeoutMs?: number): void;
  afterAll(hook: () => Promise<void>): void;
}

export interface ControlPlaneSuiteOptions extends ControlPlaneOptions {
  /** CRD objects as a library generates them (`Kind.crd()`), installed with `crds`. */
  generatedCrds?: object[];
  /** Namespaces created once the control plane runs. */
  namespaces?: string[];
}

/** A control plane for the tests of one file, running from its `beforeAll` to its `afterAll`. */
export interface ControlPlaneSuite<Client> {
  readonly plane: ControlPlane;
  /** The suite's client (`makeClient`'s), closed before the control plane stops. */
  readonly client: Client;
}

/**
 * What admission tests and controller tests against the API server alone start from: a control
 * plane with the CRDs installed (`crds`, `generatedCrds`) and the namespaces created, and a client
 * of the suite's own making — started in `beforeAll`, stopped in `afterAll`. `plane` and `client`
 * are there inside tests and later hooks.
 */
export function controlPlaneSuite<Client extends Closable>(
  hooks: SuiteHooks,
  options: ControlPlaneSuiteOptions,
  makeClient: (kubeConfig: KubeConfig) => Client,
): ControlPlaneSuite<Client> {
  let plane: ControlPlane | undefined;
  let client: Client | undefined;
  let crdDir: string | undefined;
  hooks.beforeAll(async () => {
    const { generatedCrds = [], namespaces = [], ...planeOptions } = options;
    const crds = [...(options.crds ?? [])];
    if (generatedCrds.length) {
      crdDir = await mkdtemp(join(tmpdir(), 'steward-crds-'));
      for (const [i, crd] of generatedCrds.entries())
        await writeFile(join(crdDir, `crd-${i}.json`), JSON.stringify(crd));
      crds.push(crdDir);
    }
    plane = await startControlPlane({ ...planeOptions, crds });
    for (const name of namespaces)
      await plane.client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    client = makeClient(plane.kubeConfig);
  });
  hooks.afterAll(async () => {
    await client?.close();
    await plane?.stop();
    if (crdDir) await rm(crdDir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('steward: the control plane suite has not started');
    return value;
  };
  return {
    get plane() {
      return started(plane);
    },
    get client() {
      return started(client);
    },
  };
}
