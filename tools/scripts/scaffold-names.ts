// The names of a controller family, for `new-project.ts controller <Kind>`: every name the family
// is known by (its projects, chart, group, plural, short name), derived from the kind and checked,
// and the paths the scaffold writes. Both kinds of family (new-controller.ts,
// new-workload-controller.ts) have the same names.

/** Every name a controller family is known by, from its kind (`CacheCluster`). */
export interface ControllerNames {
  /** `CacheCluster` */
  kind: string;
  /** `cache-cluster`: the family (its Nx scope is `scope:<family>`). */
  family: string;
  /** `cacheCluster`: functions are named `<camel>Controller`. */
  camel: string;
  /** `cachecluster`: the controller's name in metrics and on its dashboard. */
  controllerName: string;
  /** `cachecluster.steward.dev` unless given. */
  group: string;
  /** `cacheclusters` unless given. */
  plural: string;
  /** `cc` (the initials) for a kind of several words, the first three letters of one word. */
  shortName: string;
  /** `cache-cluster-api` */
  apiLib: string;
  /** `cache-cluster-controller`: the app, its chart and its image. */
  app: string;
  /** `cache-cluster-controller-e2e` */
  e2e: string;
  /**
   * A workload kind (`--workload`): its children live in the cluster, on the skeleton CacheCluster
   * and PostgresCluster share (new-workload-controller.ts).
   */
  workload: boolean;
}

/** Thrown for a kind, group, plural or short name the scaffold cannot use; says why. */
export class InvalidControllerNameError extends Error {
  override readonly name = 'InvalidControllerNameError';
}

/**
 * PascalCase: words of a capital and at least one lower-case letter or digit (`Widget`,
 * `CacheCluster`, `S3Bucket`). Runs of capitals (`HTTPRoute`) are refused: their kebab-case family
 * would not turn back into the kind (tools/charts/controller-chart.ts reads the kind from the
 * chart's name).
 */
const PASCAL_CASE = /^(?:[A-Z][a-z0-9]+)+$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+$/;
const LOWER_WORD = /^[a-z][a-z0-9]*$/;
/**
 * The longest family: `steward-<family>-controller-dashboard`, the longest object name the chart
 * renders with the release name `steward`, must stay a DNS label (63).
 */
export const MAX_FAMILY_LENGTH = 30;

/** `tap` → `taps`, `box` → `boxes`, `policy` → `policies`: English plurals of the lowercase kind. */
export function pluralOf(lowercaseKind: string): string {
  if (/(s|x|z|ch|sh)$/.test(lowercaseKind)) return `${lowercaseKind}es`;
  if (/[^aeiou]y$/.test(lowercaseKind)) return `${lowercaseKind.slice(0, -1)}ies`;
  return `${lowercaseKind}s`;
}

/**
 * Every name of the family of `kind`, checked: a PascalCase kind whose family fits the chart's
 * object names, a DNS-subdomain group with a dot, a lowercase plural and short name.
 */
export function controllerNames(
  kind: string,
  options: { group?: string; plural?: string; shortName?: string; workload?: boolean } = {},
): ControllerNames {
  if (!PASCAL_CASE.test(kind)) {
    throw new InvalidControllerNameError(
      `${JSON.stringify(kind)} is not a PascalCase kind: letters and digits, each word a capital followed by lower-case letters or digits, e.g. Widget, CacheCluster, S3Bucket`,
    );
  }
  const words = kind.match(/[A-Z][a-z0-9]+/g)!;
  const family = words.map((w) => w.toLowerCase()).join('-');
  if (family.length > MAX_FAMILY_LENGTH) {
    throw new InvalidControllerNameError(
      `the family of ${kind}, ${family}, is longer than ${MAX_FAMILY_LENGTH} characters: the chart's object names (steward-${family}-controller-dashboard) would exceed 63`,
    );
  }
  const controllerName = kind.toLowerCase();
  const group = options.group ?? `${family.replaceAll('-', '')}.steward.dev`;
  const plural = options.plural ?? pluralOf(controllerName);
  const shortName =
    options.shortName ??
    (words.length > 1
      ? words.map((w) => w[0]!.toLowerCase()).join('')
      : controllerName.slice(0, 3));
  if (!DNS_SUBDOMAIN.test(group) || group.length > 253 - plural.length - 1) {
    throw new InvalidControllerNameError(
      `--group ${group} is not an API group: a lowercase DNS subdomain with at least one dot (e.g. widgets.example.com), at most ${252 - plural.length} characters with the plural ${plural}`,
    );
  }
  if (!LOWER_WORD.test(plural) || plural.length > 63) {
    throw new InvalidControllerNameError(
      `--plural ${plural} is not a resource name: lowercase letters and digits, starting with a letter, at most 63`,
    );
  }
  if (!LOWER_WORD.test(shortName) || shortName.length > 63 || shortName === controllerName) {
    throw new InvalidControllerNameError(
      `--short-name ${shortName} is not a short name: lowercase letters and digits, starting with a letter, shorter than the kind`,
    );
  }
  return {
    kind,
    family,
    camel: kind[0]!.toLowerCase() + kind.slice(1),
    controllerName,
    group,
    plural,
    shortName,
    apiLib: `${family}-api`,
    app: `${family}-controller`,
    e2e: `${family}-controller-e2e`,
    workload: options.workload ?? false,
  };
}

/** The projects of a family, as Nx names them: `<f>-api`, `<f>`, `<f>-controller`, `<f>-controller-e2e`. */
export function familyProjects(n: ControllerNames): string[] {
  return [n.apiLib, n.family, n.app, n.e2e];
}

/** Where the scaffold writes, relative to the repository root: none of it may exist yet. */
export function familyPaths(n: ControllerNames): string[] {
  return [
    `libs/${n.apiLib}`,
    `libs/${n.family}`,
    `apps/${n.app}`,
    `charts/${n.app}`,
    `e2e/${n.e2e}`,
    `examples/${n.family}`,
    `tools/charts/controllers/${n.app}.ts`,
  ];
}
