import { type ProviderState } from '@steward/database-instance-api';

/**
 * The DatabaseInstance `providerState` for a Cloud SQL instance `state` (SqlInstanceState name),
 * its `activationPolicy` and the type of the operation running on it, if any:
 *
 * | Cloud SQL                                  | providerState |
 * |--------------------------------------------|---------------|
 * | PENDING_CREATE (or a CREATE operation)     | creating      |
 * | RUNNABLE, no operation                     | available     |
 * | RUNNABLE + BACKUP_VOLUME operation         | backing-up    |
 * | RUNNABLE + any other operation; REPAIRING  | modifying     |
 * | RUNNABLE + activationPolicy NEVER          | stopped       |
 * | SUSPENDED                                  | stopped       |
 * | MAINTENANCE, ONLINE_MAINTENANCE            | maintenance   |
 * | PENDING_DELETE (or a DELETE operation)     | deleting      |
 * | FAILED                                     | failed        |
 * | anything else                              | unknown       |
 */
export function cloudSqlProviderState(
  state: string,
  activationPolicy: string,
  operationType: string | undefined,
): ProviderState {
  switch (state) {
    case 'PENDING_CREATE':
      return 'creating';
    case 'PENDING_DELETE':
      return 'deleting';
    case 'SUSPENDED':
      return 'stopped';
    case 'MAINTENANCE':
    case 'ONLINE_MAINTENANCE':
      return 'maintenance';
    case 'FAILED':
      return 'failed';
    case 'REPAIRING':
      return 'modifying';
    case 'RUNNABLE':
      switch (operationType) {
        case undefined:
          return activationPolicy === 'NEVER' ? 'stopped' : 'available';
        case 'CREATE':
          return 'creating';
        case 'DELETE':
          return 'deleting';
        case 'BACKUP_VOLUME':
          return 'backing-up';
        default:
          return 'modifying';
      }
    default:
      return 'unknown';
  }
}
