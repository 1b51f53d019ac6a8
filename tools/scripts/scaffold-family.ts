// A controller family as `new-project.ts controller <Kind>` writes it, whichever kind it is: the
// API lib, the domain lib, the app, the chart, the e2e project and an example — laid out once here
// (scaffold-libs.ts, scaffold-app.ts, scaffold-chart.ts, scaffold-e2e.ts), filled with what the
// kind's generator says is its own (`FamilyFlavour`: new-controller.ts for a kind kept converged
// from its spec, new-workload-controller.ts for an in-cluster workload). Pure: names in, texts out.
import { appFiles, type AppSpec } from './scaffold-app.js';
import { chartFiles, type ChartSpec } from './scaffold-chart.js';
import { e2eFiles, type AppTestSpec, type ChartTestSpec } from './scaffold-e2e.js';
import {
  apiLibFiles,
  domainLibFiles,
  type ControllerTestSpec,
  type CrdTestSpec,
} from './scaffold-libs.js';
import { type ControllerNames } from './scaffold-names.js';
import { type ScaffoldVersions } from './scaffold-project.js';

/** What one kind of family has of its own, file by file of the shared layout. */
export interface FamilyFlavour {
  /** libs/<f>-api: src/index.ts, src/<f>.ts, and the CRD test's own cases. */
  api: { index: string; kind: string; test: CrdTestSpec };
  /** libs/<f>: its sources by path under the project, and the controller test's own cases. */
  domain: { sources: Record<string, string>; test: ControllerTestSpec };
  app: AppSpec;
  chart: ChartSpec;
  e2e: { chart: ChartTestSpec; app: AppTestSpec };
  /** examples/<f>/20-<f>.yaml: what it shows (comment lines) and its spec (YAML, indented). */
  example: { about: string; spec: string };
}

/** The example an application team would apply, in the namespace other examples share. */
function exampleFile(n: ControllerNames, e: FamilyFlavour['example']): string {
  return `${e.about}
# The shop namespace is also declared by other examples: applying it twice changes nothing.
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---
apiVersion: ${n.group}/v1alpha1
kind: ${n.kind}
metadata:
  name: example
  namespace: shop
spec:
${e.spec}`;
}

/**
 * Every file of the family of `n` in `flavour`, except the app's package.json (new-project.ts
 * writes it from the closure of the sources' imports) and the generated ones (CRDs, values
 * schema, dashboard).
 */
export function familyFiles(
  n: ControllerNames,
  v: ScaffoldVersions,
  flavour: FamilyFlavour,
): Record<string, string> {
  return {
    ...apiLibFiles(n, v, flavour.api, flavour.api.test),
    ...domainLibFiles(n, flavour.domain.sources, flavour.domain.test),
    ...appFiles(n, flavour.app),
    ...chartFiles(n, flavour.chart),
    ...e2eFiles(n, flavour.e2e.chart, flavour.e2e.app),
    [`examples/${n.family}/20-${n.family}.yaml`]: exampleFile(n, flavour.example),
  };
}
