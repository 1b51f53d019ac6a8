import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import { ReplicationUser } from './names.js';

/**
 * The passfile the instance agent writes (from the superuser and replication Secrets) and
 * connection strings name.
 */
export const PassFile = '/tmp/steward/pgpass';

/**
 * A standby's `primary_conninfo` (and what pg_basebackup and pg_rewind connect with): the
 * primary's pod IP, the replication role through the passfile (no password in the setting), the pod's
 * name as application_name (how pg_stat_replication and synchronous_standby_names name it). The
 * instance agent writes exactly this string (instance-agent.sh `conninfo`); the controller sets
 * it with ALTER SYSTEM when it repoints a running standby, and compares it with what it reads.
 */
export function standbyConninfo(host: string, pod: string): string {
  return `host=${host} port=${POSTGRES_PORT} user=${ReplicationUser} dbname=postgres passfile=${PassFile} application_name=${pod} connect_timeout=5`;
}

/** The `host=` of a libpq key/value connection string, or undefined. */
export function conninfoHost(conninfo: string): string | undefined {
  return /(?:^|\s)host=([^\s']+)/.exec(conninfo)?.[1];
}
