import { type ProviderProfile } from '@steward/provider-profile-api';
import { WorkloadAdmissionReasons as R } from './reasons.js';

/** A workload object as far as its profile goes. */
export interface ProfileReferrer {
  metadata: { namespace?: string; name?: string };
  spec: { providerProfileRef?: { name: string }; deletionPolicy?: string };
}

/** A refusal with a reason from the shared registry and a message a user can act on. */
export interface ProfileRefusal {
  reason: string;
  message: string;
}

/**
 * The kubernetes ProviderProfile of an in-cluster workload kind's objects (CacheCluster,
 * PostgresCluster): the one it names, else the controller's default. One place for what both kinds
 * say when it is missing and when its guardrails hold a `Delete` deletion.
 */
export class WorkloadProfiles<T extends ProfileReferrer> {
  constructor(
    private readonly lookup: (name: string) => ProviderProfile | undefined,
    private readonly defaultProfile: string | undefined,
  ) {}

  /** The profile's name: the one the object names, else the default (undefined: none). */
  nameOf(obj: T): string | undefined {
    return obj.spec.providerProfileRef?.name ?? this.defaultProfile;
  }

  /** The profile, or undefined (none named, or not found: see `missing`). */
  of(obj: T): ProviderProfile | undefined {
    const name = this.nameOf(obj);
    return name ? this.lookup(name) : undefined;
  }

  /** `ProviderProfileNotFound` when the object (or the default) names a profile that does not exist. */
  missing(obj: T): ProfileRefusal | undefined {
    const name = this.nameOf(obj);
    if (!name || this.lookup(name)) return undefined;
    return {
      reason: R.ProviderProfileNotFound,
      message: `ProviderProfile ${name} not found: create it, or reference an existing kubernetes profile`,
    };
  }

  /**
   * Admission of `obj`: `ProviderProfileNotFound` when its profile is missing, else what the kind's
   * own `resolve` says over the profile (undefined when none is named).
   */
  admit<R extends { allowed: boolean }>(
    obj: T,
    resolve: (profile: ProviderProfile | undefined) => R,
  ): R | ({ allowed: false } & ProfileRefusal) {
    const missing = this.missing(obj);
    return missing ? { allowed: false, ...missing } : resolve(this.of(obj));
  }

  /**
   * Why the profile's guardrails hold a `Delete` deletion (`allowedDeletionPolicies` without
   * `Delete`), or undefined: what stays (`kept`, e.g. "its volumes and Secret") and the two ways out.
   */
  deletionRefusal(kind: string, obj: T, kept: string): ProfileRefusal | undefined {
    const allowed = this.of(obj)?.spec.guardrails?.allowedDeletionPolicies;
    if (!allowed || allowed.includes('Delete')) return undefined;
    return {
      reason: R.DeletionPolicyNotAllowed,
      message: `spec.deletionPolicy Delete is not allowed by ProviderProfile ${this.nameOf(obj) ?? ''} (allowed: ${allowed.join(', ')}). The ${kind} is being deleted, but ${kept} are not deleted and the finalizer stays until this is resolved (or spec.deletionPolicy is set to Retain)`,
    };
  }
}
