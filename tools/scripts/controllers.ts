// The registry of Steward's controllers and their kinds, discovered from the file tree, so that a
// controller is registered by existing — there is no list to add it to. By convention:
//
//   apps/<family>-controller/     a controller (every directory of apps/ with a package.json);
//                                 its chart is charts/<app>, its e2e suite e2e/<app>-e2e, its
//                                 image is built from apps/Dockerfile with APP=<app>
//   @steward/<name>-api           an API lib: every `Kind` it exports (`defineKind`) is a kind
//   apps/<app>/package.json       the API libs the app depends on are the kinds it serves: their
//                                 CRDs ship in its chart's crds/ (tools/scripts/app-dependencies.ts
//                                 checks that list against the app's import graph)
//
// generate-crds.ts, bundle-app.ts, start-platform.ts (npm start) and examples.ts read it;
// apps.test.ts checks the conventions hold for every app.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ResourceType } from '@steward/kube';

const repoRoot = join(import.meta.dirname, '..', '..');

/** One controller: an app, its chart and its e2e suite. */
export interface Controller {
  /** Its directory under apps/, e.g. `kafka-topic-controller`; also its chart's, image's name. */
  app: string;
  /** Its CRD family, e.g. `kafka-topic` (its Nx scope is `scope:<family>`). */
  family: string;
  /** Its chart's directory, relative to the repository root: `charts/<app>`. */
  chartDir: string;
  /** Its end-to-end suite's directory, relative to the repository root: `e2e/<app>-e2e`. */
  e2eDir: string;
  /** The API libs (`@steward/*-api`) its package.json depends on, sorted. */
  apiLibs: string[];
}

/** What the registry needs of a `Kind` from `@steward/crd`. */
export interface RegisteredKind {
  readonly definition: {
    readonly kind: string;
    readonly group: string;
    readonly plural: string;
    readonly singular?: string;
    readonly scope: 'Namespaced' | 'Cluster';
  };
  readonly resourceType: ResourceType;
  /** `group/version` */
  readonly apiVersion: string;
  crdYaml(generator: string): string;
}

/** Whether a module export is a `Kind` (what `defineKind` returns). */
export function isKind(value: unknown): value is RegisteredKind {
  const v = value as Partial<RegisteredKind> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.definition?.kind === 'string' &&
    typeof v.definition.group === 'string' &&
    typeof v.definition.plural === 'string' &&
    typeof v.apiVersion === 'string' &&
    typeof v.resourceType === 'object' &&
    typeof v.crdYaml === 'function'
  );
}

const FAMILY_APP = /^([a-z][a-z0-9]*(?:-[a-z0-9]+)*)-controller$/;

/**
 * Every controller, sorted by app: the directories of `<root>/apps` with a package.json. Throws
 * for an app not named `<family>-controller`: its chart, scope and e2e suite are named after it.
 */
export function controllers(root = repoRoot): Controller[] {
  const appsDir = join(root, 'apps');
  return readdirSync(appsDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && existsSync(join(appsDir, e.name, 'package.json')))
    .map((e) => e.name)
    .sort()
    .map((app) => {
      const family = FAMILY_APP.exec(app)?.[1];
      if (!family) throw new Error(`apps/${app}: an app is named <family>-controller`);
      const { dependencies = {} } = JSON.parse(
        readFileSync(join(appsDir, app, 'package.json'), 'utf8'),
      ) as { dependencies?: Record<string, string> };
      const apiLibs = Object.keys(dependencies)
        .filter((d) => /^@steward\/.+-api$/.test(d))
        .sort();
      return {
        app,
        family,
        chartDir: join('charts', app),
        e2eDir: join('e2e', `${app}-e2e`),
        apiLibs,
      };
    });
}

/** The kinds an API lib exports, in export order. Throws for an API lib that exports none. */
export async function kindsOf(apiLib: string): Promise<RegisteredKind[]> {
  // A specifier only known at run time: resolved like any `@steward/*` import (tsconfig paths
  // under vitest, the workspace's node_modules links under tsx).
  const module = (await import(apiLib)) as Record<string, unknown>;
  const kinds = Object.values(module).filter(isKind);
  if (!kinds.length) throw new Error(`${apiLib} exports no Kind (defineKind)`);
  return kinds;
}

/** A controller with the kinds it serves (those of its API libs). */
export interface ControllerWithKinds extends Controller {
  kinds: RegisteredKind[];
}

/** Every controller with its kinds. */
export async function controllersWithKinds(root = repoRoot): Promise<ControllerWithKinds[]> {
  return Promise.all(
    controllers(root).map(async (c) => ({
      ...c,
      kinds: (await Promise.all(c.apiLibs.map(kindsOf))).flat(),
    })),
  );
}

/**
 * Every kind some controller serves, once each: cluster-scoped kinds first (what namespaced ones
 * reference, e.g. ProviderProfile), then by name.
 */
export async function allKinds(root = repoRoot): Promise<RegisteredKind[]> {
  const byName = new Map<string, RegisteredKind>();
  for (const { kinds } of await controllersWithKinds(root)) {
    for (const kind of kinds) byName.set(`${kind.apiVersion}/${kind.definition.kind}`, kind);
  }
  const rank = (k: RegisteredKind): number => (k.definition.scope === 'Cluster' ? 0 : 1);
  return [...byName.values()].sort(
    (a, b) => rank(a) - rank(b) || a.definition.kind.localeCompare(b.definition.kind),
  );
}
