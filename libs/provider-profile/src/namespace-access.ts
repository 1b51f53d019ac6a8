import { type ProviderProfile } from '@steward/provider-profile-api';

/**
 * Reasons a referencing object's `Ready=False` (with `Stalled=True`) carries when its profile does
 * not admit its namespace. For the platform team (the profile) or the user (another profile) to
 * fix: callers report them as terminal, looked at again when the profile changes and every
 * `NamespaceRecheckMs` (a namespace's labels may change without an event reaching the caller).
 */
export const TenancyReasons = {
  /** Neither `spec.namespaces` lists nor `spec.namespaceSelector` selects the object's namespace. */
  ProfileNotAllowedInNamespace: 'ProfileNotAllowedInNamespace',
  /** `spec.adopt: true`, but the profile's `spec.adoption.namespaces` does not name the namespace. */
  AdoptionNotAllowed: 'AdoptionNotAllowed',
} as const;

/** How often a refused object looks at its namespace's labels again. */
export const NamespaceRecheckMs = 30_000;

/** What a check needs to know of a namespace: its name, and its labels once it is known. */
export interface NamespaceFacts {
  name: string;
  /** Undefined when the namespace is not (yet) known: a selector then matches nothing. */
  labels?: Readonly<Record<string, string>>;
}

type LabelSelector = NonNullable<ProviderProfile['spec']['namespaceSelector']>;

/**
 * Whether `labels` satisfy a metav1.LabelSelector, as the API server reads it (pure): every
 * `matchLabels` pair and every `matchExpressions` requirement must hold; `{}` matches everything;
 * `NotIn` and `DoesNotExist` hold for a missing key. An unknown operator matches nothing (a
 * selector the schema would refuse never widens access).
 */
export function matchesLabelSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const requirement of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, requirement.key);
    const value = labels[requirement.key];
    const values = requirement.values ?? [];
    switch (requirement.operator) {
      case 'In':
        if (!has || !values.includes(value!)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value!)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * Whether resources of `namespace` may use `profile` (pure): its name is in `spec.namespaces`, or
 * `spec.namespaceSelector` matches its labels. Neither field set: no namespace may (the safe
 * default for a cluster-scoped profile that many teams can name). A selector never matches a
 * namespace whose labels are unknown.
 */
export function profileAllowsNamespace(
  profile: ProviderProfile,
  namespace: NamespaceFacts,
): boolean {
  if (profile.spec.namespaces?.includes(namespace.name)) return true;
  const selector = profile.spec.namespaceSelector;
  if (!selector || !namespace.labels) return false;
  return matchesLabelSelector(selector, namespace.labels);
}

/** A refusal a referencing object reports (reason + message a user can act on). */
export interface TenancyRefusal {
  reason: (typeof TenancyReasons)[keyof typeof TenancyReasons];
  message: string;
}

/**
 * The refusal of `kind` `namespace/name` using `profile`, or undefined when its namespace may
 * (pure). The message names the profile, the namespace and what the platform team can change.
 */
export function namespaceRefusal(
  profile: ProviderProfile,
  namespace: NamespaceFacts,
): TenancyRefusal | undefined {
  if (profileAllowsNamespace(profile, namespace)) return undefined;
  const profileName = profile.metadata.name ?? '';
  const how =
    profile.spec.namespaces === undefined && profile.spec.namespaceSelector === undefined
      ? 'it sets neither spec.namespaces nor spec.namespaceSelector, so no namespace may use it'
      : namespace.labels === undefined && profile.spec.namespaceSelector !== undefined
        ? `namespace ${namespace.name} is not listed in spec.namespaces and its labels are not known yet`
        : `namespace ${namespace.name} is neither listed in its spec.namespaces nor selected by its spec.namespaceSelector`;
  return {
    reason: TenancyReasons.ProfileNotAllowedInNamespace,
    message: `ProviderProfile ${profileName} may not be used from namespace ${namespace.name}: ${how}. Ask the platform team to allow the namespace in the profile, or reference a profile that allows it`,
  };
}

/**
 * Whether resources of `namespace` may adopt existing external resources through `profile`
 * (pure): `spec.adoption.namespaces` names it. Absent: nobody may.
 */
export function profileAllowsAdoption(profile: ProviderProfile, namespace: string): boolean {
  return profile.spec.adoption?.namespaces.includes(namespace) ?? false;
}

/** The refusal of `spec.adopt: true` in `namespace` under `profile`, or undefined when allowed. */
export function adoptionRefusal(
  profile: ProviderProfile,
  namespace: string,
): TenancyRefusal | undefined {
  if (profileAllowsAdoption(profile, namespace)) return undefined;
  return {
    reason: TenancyReasons.AdoptionNotAllowed,
    message: `spec.adopt is true, but ProviderProfile ${profile.metadata.name ?? ''} does not allow adoption from namespace ${namespace} (spec.adoption.namespaces): nothing was changed at the provider. Ask the platform team to allow it, or remove spec.adopt`,
  };
}
