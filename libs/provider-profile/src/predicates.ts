import { type Predicate } from '@steward/controller';
import { type ProviderProfile } from '@steward/provider-profile-api';

function readyStatus(profile: ProviderProfile): string | undefined {
  return profile.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}

/**
 * For controllers of resources that reference profiles (`.watches(ProviderProfile, …)`): the
 * profile events that matter to them — creation, deletion, a spec change, and its `Ready`
 * condition changing status (credentials that start or stop working, so a resource stalled on
 * them resumes once the platform team fixes them). Other status writes (usedBy counts) do not.
 */
export const profileChangesForUsers: Predicate = {
  update: (old, obj) =>
    old.metadata?.generation !== obj.metadata?.generation ||
    readyStatus(old as ProviderProfile) !== readyStatus(obj as ProviderProfile),
};
