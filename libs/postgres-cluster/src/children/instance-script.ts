import { text } from './instance-agent.generated.js';

/**
 * The instance agent: the shell program every PostgresCluster pod runs (`/bin/sh` the ConfigMap's
 * `instance.sh`; the images have dash and coreutils, nothing else to rely on). The controller
 * decides; the agent carries out what its pod's instruction annotation says, read live from a
 * downward-API file (the kubelet rewrites it when the annotation changes):
 *
 *   (absent) / wait      start nothing; stop PostgreSQL if it runs (a fenced or held instance)
 *   initdb               initialise PGDATA if it holds no cluster, then run as primary — given
 *                        only to the first instance of a cluster never initialised
 *   primary              run as primary; PGDATA must exist (an instance that lost its data never
 *                        initialises a second cluster)
 *   standby <host>       run as a standby streaming from <host>: clone PGDATA with pg_basebackup
 *                        when it is empty; an instance that was a primary (no standby.signal) is
 *                        first rewound with pg_rewind against <host>
 *   rewind <host>        as standby, but rewound first even if it was a standby (its timeline
 *                        forked off the new primary's)
 *   reclone <host>       as standby from a fresh pg_basebackup (the old PGDATA is moved aside
 *                        to PGDATA.old, replacing an earlier one)
 *   restore              given instead of initdb to the first instance of a cluster bootstrapped
 *                        from a backup: when PGDATA holds no cluster, the base backup
 *                        STEWARD_RESTORE_BACKUP is fetched from the source bucket
 *                        (source:$STEWARD_RESTORE_PATH), checked against its manifest
 *                        (pg_verifybackup) and unpacked; PostgreSQL then replays the archived WAL
 *                        (restore-wal.sh) up to STEWARD_RESTORE_TARGET_TIME, if set, and is
 *                        promoted. Once it is, the superuser's password becomes this cluster's
 *                        (the restored data has the source's), over the socket (peer).
 *
 * While PostgreSQL runs, a change of the instruction that needs a restart (primary → anything
 * else; standby → wait, rewind or reclone) stops it with a fast shutdown and carries the new one
 * out. A standby told `primary` keeps running: the controller promotes it with pg_promote(). A
 * changed <host> alone is not a restart either: the controller repoints running standbys with
 * ALTER SYSTEM. On SIGTERM (pod deletion) PostgreSQL gets a fast shutdown (SIGINT), not the
 * smart one that waits for clients to leave. When PostgreSQL exits by itself, or a step fails,
 * the agent exits non-zero with a one-line reason in /dev/termination-log, which the kubelet
 * publishes in the pod's status (the controller reports it) before restarting the container.
 *
 * Secrets: the superuser password comes from the environment (a secretKeyRef) into a passfile
 * in /tmp (memory), which connection strings name; it is never in a command line, a log line or
 * a file on the volume.
 *
 * The program is instance-agent.sh beside this file (shellchecked by this library's lint target;
 * its branches run against stub PostgreSQL programs in instance-agent.test.ts); the text comes
 * from the module tools/scripts/generate-shell-modules.ts generates from it, so that it is the same
 * under vitest, tsx and the controller image's esbuild bundle.
 */
export const InstanceScript: string = text;
