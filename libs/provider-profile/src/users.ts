import { type Selection } from '@steward/informer';
import { type KubeObject, type ResourceType } from '@steward/kube';

/**
 * A kind whose objects reference ProviderProfiles (e.g. DatabaseInstance through
 * `spec.providerProfileRef.name`). The controller watches it and counts, per profile, the objects
 * that reference it — those being deleted included, since their cleanup may still need the
 * profile's credentials.
 */
export interface ProfileUser<T extends KubeObject = KubeObject> {
  resourceType: ResourceType;
  /**
   * The name of the ProviderProfile `obj` references, or undefined when it references none. Called
   * for every cached object on each change; must be pure and cheap, must not mutate `obj`.
   */
  profileNameOf(obj: T): string | undefined;
  /**
   * Which objects to count. Default: all, in every namespace. A narrower selection undercounts, and
   * a profile whose users all lie outside it can be deleted while in use: narrow it only when the
   * kind exists nowhere else.
   */
  selection?: Selection;
}

/** One referencing object, for messages. */
export interface ProfileUserRef {
  kind: string;
  namespace?: string;
  name: string;
}

/** Who references a profile. */
export interface ProfileUsage {
  /** How many objects reference it. */
  count: number;
  /** Every referencing object, ordered by kind, namespace, name. */
  users: ProfileUserRef[];
}

/** Orders references by kind, namespace and name, so messages are stable between reconciles. */
export function profileUsage(users: readonly ProfileUserRef[]): ProfileUsage {
  const sorted = [...users].sort(
    (a, b) =>
      a.kind.localeCompare(b.kind) ||
      (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
      a.name.localeCompare(b.name),
  );
  return { count: sorted.length, users: sorted };
}

/** How many users a message names before it says "and N more". */
export const NamedUsersInMessage = 3;

/**
 * `2 resources reference it: DatabaseInstance shop/orders, DatabaseInstance shop/billing` — at
 * most `NamedUsersInMessage` named, the rest counted.
 */
export function describeUsage(usage: ProfileUsage, max = NamedUsersInMessage): string {
  const named = usage.users
    .slice(0, max)
    .map((u) => `${u.kind} ${u.namespace ? `${u.namespace}/` : ''}${u.name}`);
  const more = usage.count - named.length;
  const list = named.join(', ') + (more > 0 ? ` and ${more} more` : '');
  const subject =
    usage.count === 1 ? '1 resource references it' : `${usage.count} resources reference it`;
  return `${subject}: ${list}`;
}
