import { DatabaseInstance } from '@steward/database-instance-api';
import { type ProfileUser } from '@steward/provider-profile';

/**
 * DatabaseInstances as users of ProviderProfiles (`spec.providerProfileRef.name`), for the
 * ProviderProfile controller's `users`. Counted in every namespace: an instance being deleted with
 * `deletionPolicy: Delete` still needs its profile's credentials to delete the database, so it
 * keeps the profile until it is gone.
 */
export const databaseInstanceUsers: ProfileUser<DatabaseInstance> = {
  resourceType: DatabaseInstance.resourceType,
  profileNameOf: (obj) => obj.spec?.providerProfileRef?.name,
};
