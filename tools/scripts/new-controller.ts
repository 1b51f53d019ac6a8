// The family of a kind kept converged from its spec, for `new-project.ts controller <Kind>`: the
// shared layout (scaffold-family.ts) with this kind's own API lib (libs/<f>-api: the kind,
// TypeBox + defineKind), domain (libs/<f>: a pure plan function and the controller on
// `completeObjects`), app, chart rules, e2e cases and example. With `--workload` (`names.workload`)
// the family is an in-cluster kind instead (new-workload-controller.ts). Pure: names in, file texts
// out; new-project.ts writes them, links the packages, formats and generates.
//
// The output is a minimal but real controller that passes lint, typecheck, build and every test
// as written (tools/scripts/new-project.int.test.ts proves it for a throwaway kind): `Ready=True`
// reason `Accepted` for a spec the pure `plan<Kind>` accepts, a `TerminalError` (`Ready=False`,
// `Stalled=True`, kstatus Failed) for one it refuses. Replace the placeholder domain (the
// `spec.parameters` keys it knows) with the kind's own.
import { familyFiles, type FamilyFlavour } from './scaffold-family.js';
import { kindDefinition } from './scaffold-libs.js';
import { type ControllerNames } from './scaffold-names.js';
import { type ScaffoldVersions } from './scaffold-project.js';
import { workloadFlavour } from './new-workload-controller.js';

/**
 * Every file of the family of `n` except the app's package.json, whose `@steward/*` list is the
 * closure of what the written sources import (new-project.ts computes it with app-dependencies.ts),
 * and the generated ones (CRDs, values schema, dashboard).
 */
export function controllerFiles(n: ControllerNames, v: ScaffoldVersions): Record<string, string> {
  return familyFiles(n, v, n.workload ? workloadFlavour(n) : convergedFlavour(n));
}

/** The family of a kind the controller keeps converged from its spec alone. */
function convergedFlavour(n: ControllerNames): FamilyFlavour {
  const { kind: K, family, camel, group, plural, shortName } = n;
  return {
    api: {
      index: `/**
 * @steward/${n.apiLib} — the \`${K}\` kind (\`${group}/v1alpha1\`, namespaced, short name
 * \`${shortName}\`): one source of truth for its TypeScript types and its CRD (generated into
 * charts/${n.app}/crds by tools/scripts/generate-crds.ts).
 *
 * Contract (what the API server enforces at admission, with its own message):
 * - \`spec.parameters\` holds at most MAX_PARAMETERS keys, each value at most
 *   MAX_PARAMETER_VALUE_LENGTH characters.
 * - Defaults: \`deletionPolicy: Retain\` (nothing is lost without an explicit opt-in).
 *
 * What only the controller can know is a condition with a reason, not an admission error
 * (@steward/${family}: a \`spec.parameters\` key it does not know is \`UnknownParameter\`).
 *
 * Status: the \`Ready\` condition and \`observedGeneration\`.
 */
export {
  ${K},
  ${K}Spec,
  ${K}Status,
  MAX_PARAMETER_VALUE_LENGTH,
  MAX_PARAMETERS,
} from './${family}.js';
`,
      kind: `import { ConditionsSchema, defineKind, DeletionPolicyField, StringMap } from '@steward/crd';
import Type from 'typebox';

/** At most this many \`spec.parameters\`. */
export const MAX_PARAMETERS = 32;
/** The longest value of a \`spec.parameters\` key. */
export const MAX_PARAMETER_VALUE_LENGTH = 1024;

export const ${K}Spec = Type.Object({
  parameters: Type.Optional(
    StringMap({
      maxProperties: MAX_PARAMETERS,
      additionalProperties: { type: 'string', maxLength: MAX_PARAMETER_VALUE_LENGTH },
      description:
        'Settings of the ${K}, by key. A key the controller does not know is refused (UnknownParameter).',
    }),
  ),
  deletionPolicy: Type.Optional(
    DeletionPolicyField(
      'Retain: deleting the ${K} leaves what it manages in place. Delete: that is deleted too.',
    ),
  ),
});

export const ${K}Status = Type.Object({
  conditions: Type.Optional(ConditionsSchema),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});

${kindDefinition(
  n,
  `A ${K}, kept converged by Steward's ${K} controller (@steward/${family}).`,
  `  description: "A ${K}, kept converged by Steward's ${K} controller.",
  spec: ${K}Spec,
  status: ${K}Status,
  printerColumns: [
    { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
    {
      name: 'Reason',
      type: 'string',
      jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
      priority: 1,
    },
  ],`,
)}`,
      test: {
        schema: {
          openAPIV3Schema:
            '{ properties: { spec: { properties: Record<string, { default?: unknown }> } } }',
        },
        columns: { shown: ['Ready', 'Age'], wide: ['Reason'] },
        cases: `  it('defaults to deletionPolicy Retain', () => {
    const spec = version.schema.openAPIV3Schema.properties.spec.properties;
    expect(spec['deletionPolicy']?.default).toBe('Retain');
  });`,
      },
    },
    domain: {
      sources: {
        'src/index.ts': `/**
 * @steward/${family} — the ${K} domain: what a ${K}'s spec means, as pure functions, and the
 * controller that keeps every ${K} converged to it.
 *
 * - \`plan${K}(spec)\` (pure): accept the spec, or refuse it with a reason the user can act on
 *   (\`UnknownParameter\`: a \`spec.parameters\` key the controller does not know). Decisions live
 *   here, as functions over (desired, observed) that are easy to test; the reconciler only
 *   carries them out.
 * - \`${camel}Controller(manager, options)\`: \`reconcile${K}\` on \`completeObjects\`. It writes
 *   \`Ready=True\` (\`Accepted\`) through the one status writer, or throws a \`TerminalError\`: the
 *   runtime records it (\`Ready=False\` and \`Stalled=True\` at the object's generation — kstatus
 *   reads Failed — and a Warning Event) and does not retry until the spec changes.
 *
 * Nothing exists outside a ${K} yet, so deleting one deletes nothing, whatever its
 * \`deletionPolicy\`. Once the controller manages something, keep a finalizer
 * (@steward/finalizers) and honour \`spec.deletionPolicy\` in its cleanup.
 */
export { ${camel}Controller, reconcile${K}, type ${K}ControllerOptions } from './controller.js';
export { ${K}ParameterKeys, plan${K}, type ${K}Plan } from './plan-${family}.js';
export { ${K}Reasons } from './reasons.js';
`,
        'src/reasons.ts': `/**
 * The reasons of a ${K}'s \`Ready\` condition: CamelCase constants a user can search for.
 * - \`Accepted\` (\`Ready=True\`): the spec is valid.
 * - \`UnknownParameter\` (\`Ready=False\`, \`Stalled=True\`): \`spec.parameters\` has a key the
 *   controller does not know; remove or rename it.
 */
export const ${K}Reasons = {
  Accepted: 'Accepted',
  UnknownParameter: 'UnknownParameter',
} as const;
`,
        [`src/plan-${family}.ts`]: `import { type ${K}Spec } from '@steward/${n.apiLib}';
import { ${K}Reasons } from './reasons.js';

/** The \`spec.parameters\` keys the controller knows; any other is refused (\`UnknownParameter\`). */
export const ${K}ParameterKeys = ['description', 'owner'] as const;

/** What the controller does with one ${K}'s spec. */
export type ${K}Plan =
  | { action: 'accept'; message: string }
  | { action: 'refuse'; reason: typeof ${K}Reasons.UnknownParameter; message: string };

/**
 * Whether the controller can accept a ${K}, from its spec alone. Pure: no I/O, the same answer
 * for the same spec; a refusal says what to change.
 */
export function plan${K}(spec: ${K}Spec): ${K}Plan {
  const known: readonly string[] = ${K}ParameterKeys;
  const unknown = Object.keys(spec.parameters ?? {})
    .filter((key) => !known.includes(key))
    .sort();
  if (unknown.length > 0) {
    return {
      action: 'refuse',
      reason: ${K}Reasons.UnknownParameter,
      message: \`spec.parameters has keys the ${K} controller does not know: \${unknown.join(', ')} (known: \${known.join(', ')})\`,
    };
  }
  return { action: 'accept', message: 'the spec is valid' };
}
`,
        [`src/plan-${family}.test.ts`]: `import { type ${K}Spec } from '@steward/${n.apiLib}';
import { describe, expect, it } from 'vitest';
import { plan${K} } from './plan-${family}.js';

describe('plan${K}', () => {
  const accepted: { name: string; spec: ${K}Spec }[] = [
    { name: 'an empty spec', spec: {} },
    { name: 'every known parameter', spec: { parameters: { description: 'd', owner: 'team-a' } } },
    { name: 'a deletion policy', spec: { deletionPolicy: 'Delete' } },
  ];
  it.each(accepted)('accepts $name', ({ spec }) => {
    expect(plan${K}(spec)).toEqual({ action: 'accept', message: 'the spec is valid' });
  });

  const refused: { name: string; parameters: Record<string, string>; unknown: string }[] = [
    { name: 'an unknown key', parameters: { colour: 'blue' }, unknown: 'colour' },
    {
      name: 'unknown keys next to known ones, sorted',
      parameters: { zeta: '1', owner: 'team-a', alpha: '2' },
      unknown: 'alpha, zeta',
    },
    { name: 'a key that differs from a known one in case', parameters: { Owner: 'x' }, unknown: 'Owner' },
  ];
  it.each(refused)('refuses $name as UnknownParameter, naming the keys', ({ parameters, unknown }) => {
    expect(plan${K}({ parameters })).toEqual({
      action: 'refuse',
      reason: 'UnknownParameter',
      message: \`spec.parameters has keys the ${K} controller does not know: \${unknown} (known: description, owner)\`,
    });
  });
});
`,
        'src/controller.ts': `import {
  controllerFor,
  generationChanged,
  TerminalError,
  type Controller,
  type Manager,
  type ObjectReconciler,
} from '@steward/controller';
import { ${K} } from '@steward/${n.apiLib}';
import { type Selection } from '@steward/informer';
import { plan${K} } from './plan-${family}.js';
import { ${K}Reasons } from './reasons.js';

export interface ${K}ControllerOptions {
  /** Which ${K}s to follow (e.g. one namespace). Default: all. */
  selection?: Selection;
  /** ${K}s reconciled at once. Default 1. */
  maxConcurrentReconciles?: number;
}

/**
 * One ${K}, as the runtime hands it over: read once from the cache, never for an object that is
 * gone. Idempotent: it states the status the spec implies, and the status writer writes only what
 * changed (a converged ${K} costs no API writes). It mutates nothing but the status.
 * - being deleted → nothing to do: it keeps no finalizer, there is nothing to clean up yet;
 * - a spec \`plan${K}\` refuses → \`TerminalError\` with the plan's reason and message: the user
 *   must change the spec, and that change reconciles it again;
 * - otherwise → \`Ready=True\`, reason \`Accepted\`.
 */
export const reconcile${K}: ObjectReconciler<${K}> = async (ctx, obj) => {
  if (obj.metadata.deletionTimestamp) return;
  const plan = plan${K}(obj.spec);
  if (plan.action === 'refuse') throw new TerminalError(plan.reason, plan.message);
  await ctx.status.write({
    conditions: [{ type: 'Ready', status: 'True', reason: ${K}Reasons.Accepted, message: plan.message }],
  });
};

/**
 * The ${K} controller: \`reconcile${K}\` for every ${K} of \`options.selection\`, woken by spec
 * changes (\`generationChanged\`: its own status writes do not wake it).
 *
 * RBAC: \`${n.group}\` \`${n.plural}\` get/list/watch and \`${n.plural}/status\` patch;
 * \`events.k8s.io\` \`events\` create/patch for the Warning Event of a refusal.
 */
export function ${camel}Controller(manager: Manager, options: ${K}ControllerOptions = {}): Controller {
  return controllerFor(manager, ${K}.resourceType, {
    selection: options.selection ?? {},
    predicates: [generationChanged],
  })
    .named('${n.controllerName}')
    .withOptions({ maxConcurrentReconciles: options.maxConcurrentReconciles ?? 1 })
    .completeObjects(reconcile${K});
}
`,
      },
      test: {
        imports: [`${camel}Controller`],
        create: { spec: `${K}['spec']`, sent: 'spec' },
        cases: `  it('makes a valid ${K} Ready (Accepted), observed at its generation: kstatus reads Current', async () => {
    await create('valid', { parameters: { owner: 'team-a' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(findCondition(obj.status?.conditions, 'Ready')).toMatchObject({
      status: 'True',
      message: 'the spec is valid',
    });
    expect(obj.spec.deletionPolicy).toBe('Retain');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter as a terminal UnknownParameter (kstatus: Failed), and accepts the fixed spec', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const refused = await withReadyReason('typo', 'UnknownParameter');
    expect(findCondition(refused.status?.conditions, 'Ready')).toMatchObject({
      status: 'False',
      message:
        'spec.parameters has keys the ${K} controller does not know: ownr (known: description, owner)',
    });
    expect(findCondition(refused.status?.conditions, 'Stalled')?.status).toBe('True');
    expect(await gitOpsReading(refused)).toMatchObject({ kstatus: 'Failed', unobserved: [] });

    await admin.mergePatch(Kind, 'typo', ns, { spec: { parameters: { ownr: null, owner: 'team-a' } } });
    const fixed = await withReadyReason('typo', 'Accepted');
    expect(fixed.metadata.generation).toBe(2);
    expect(findCondition(fixed.status?.conditions, 'Stalled')).toBeUndefined();
    expect(await gitOpsReading(fixed)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });`,
      },
    },
    app: {
      runs: `the ${K} controller`,
      domainImports: [`${camel}Controller`],
      run: `    ${camel}Controller(manager, {
      ...watchSelection(config),
      maxConcurrentReconciles: config.maxConcurrentReconciles,
    });`,
    },
    chart: {
      converges: `: \`Ready=True\`
(\`Accepted\`) for a spec it accepts, \`Ready=False\` and \`Stalled=True\` with the reason for one it
refuses.`,
      rbac: `- a ServiceAccount and the RBAC the controller needs: ${plural} get/list/watch and
  \`${plural}/status\` patch, Events create/patch, its Lease. The library chart adds, for every
  Steward controller, the ProviderProfile rules and \`get\` on Secrets by name, which this
  controller does not use.`,
      values: {
        poll: `# -- STEWARD_POLL_INTERVAL_SECONDS. The ${K} controller polls nothing yet: a spec change is what
# reconciles a ${K}.`,
        manageProviderProfiles: `# -- STEWARD_MANAGE_PROVIDER_PROFILES. The ${K} controller runs no ProviderProfile controller, so
# it has no effect (the values every Steward chart shares have it).`,
        credentialsSecretNamespaces: `  # -- The namespaces of Secrets that ProviderProfiles name, where steward-common grants \`get\` on
  # Secrets (empty: in every namespace when watching every namespace, in none with
  # \`watchNamespaces\`). The ${K} controller reads no Secret.`,
      },
      watchRules: {
        about: `${K}s: in the ClusterRole without watched namespaces, in a Role in each watched namespace with
them. The controller reads them from its cache and writes only their status, by patch.`,
        rules: `- apiGroups: [${group}]
  resources: [${plural}]
  verbs: [get, list, watch]
- apiGroups: [${group}]
  resources: [${plural}/status]
  verbs: [patch]`,
      },
      rbacOptions: '"watchRulesReadSecrets" false',
    },
    e2e: {
      chart: {
        about: `The ProviderProfile and Namespace rules and \`get\` on Secrets come from steward-common, which
// grants them to every controller chart; the ${K} controller uses none of them.`,
        watchNamespaceKinds: ['Role', 'Role', 'RoleBinding', 'RoleBinding'],
        rules: [
          { group, resources: [plural], verbs: ['get', 'list', 'watch'] },
          { group, resources: [`${plural}/status`], verbs: ['patch'] },
          { group: '', resources: ['secrets'], verbs: ['get'] },
        ],
        watchNamespaceAccess: `    { verb: 'get', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },
    { verb: 'create', group: '', resource: 'secrets', namespace: 'team-a', allowed: false },`,
        promise: {
          title: `lets the controller read ${K}s and write nothing but their status`,
          body: `    const own = { group: '${group}', namespace: 'team-a' };
    for (const verb of ['create', 'update', 'patch', 'delete']) {
      expect(rbac.allows({ ...own, verb, resource: '${plural}' })).toBe(false);
      expect(rbac.allows({ verb, group: '', resource: 'secrets', namespace: 'team-a' })).toBe(false);
    }
    expect(rbac.allows({ ...own, verb: 'patch', resource: '${plural}/status' })).toBe(true);`,
        },
      },
      app: {
        kubeImports: ['Events', 'type KubeObject'],
        constants: `
interface Event extends KubeObject {
  type?: string;
  reason?: string;
  note?: string;
  regarding?: { name?: string };
}
`,
        create: { spec: `${K}['spec']`, sent: 'spec' },
        cases: `  it('makes a valid ${K} Ready (kstatus: Current)', async () => {
    await create('valid', { parameters: { description: 'made by the e2e suite' } });
    const obj = await withReadyReason('valid', 'Accepted');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Current', unobserved: [] });
  });

  it('refuses an unknown parameter with a condition (kstatus: Failed) and a Warning Event', async () => {
    await create('typo', { parameters: { ownr: 'team-a' } });
    const obj = await withReadyReason('typo', 'UnknownParameter');
    expect(await gitOpsReading(obj)).toMatchObject({ kstatus: 'Failed', unobserved: [] });
    const event = await eventually(
      async () =>
        (await admin.list<Event>(Events, { namespace: ns })).items.find(
          (e) => e.regarding?.name === 'typo' && e.reason === 'UnknownParameter',
        ),
      { description: 'a Warning Event about typo' },
    );
    expect(event).toMatchObject({ type: 'Warning' });
    expect(event.note).toContain('ownr');
  });`,
      },
    },
    example: {
      about: `# A ${K} an application team declares; the ${K} controller makes it Ready (Accepted).`,
      spec: `  parameters:
    description: the first ${K}
    owner: team-shop
  # deletionPolicy defaults to Retain: deleting this object leaves what it manages in place.
`,
    },
  };
}
