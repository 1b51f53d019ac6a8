import { type PostgresCluster } from '@steward/postgres-cluster-api';

import {
  storedName,
  storedNamespace,
  workloadChildNames,
  workloadLabels,
  type ChildMeta,
} from '@steward/workload';

export { ordinalOf } from '@steward/workload';

/**
 * The labels the PostgresCluster controller sets and selects on. `cluster` is on every child and
 * every pod (the StatefulSet selects on it alone); `role` is on pods only, set by the controller
 * once it has decided an instance's role — never by the pod template, so a re-created pod serves
 * no Service until the controller has given it a role — and the Services `<name>-rw` / `<name>-ro`
 * select on it.
 */
export const Labels = {
  cluster: 'postgres.steward.dev/cluster',
  role: 'postgres.steward.dev/role',
  /** On the pods (and in the selector) of an instance set made by a major upgrade. */
  instanceSet: 'postgres.steward.dev/instance-set',
} as const;

/** Values of `Labels.role`. */
export const Roles = { primary: 'primary', standby: 'standby' } as const;
export type Role = (typeof Roles)[keyof typeof Roles];

/**
 * Pod annotation: what the instance agent is to do (instance-script.ts). Set by the controller on
 * each pod; read in the pod through a downward-API file; absent on a new pod, which then waits.
 */
export const InstructionAnnotation = 'postgres.steward.dev/instruction';

/**
 * Pod-template annotation: a hash of the rendered configuration (postgresql.conf and the agent's
 * scripts; not pg_hba.conf, which the primary reloads). The instances read it at start; a changed
 * hash marks the pods the controller rolls.
 */
export const ConfigHashAnnotation = 'postgres.steward.dev/config-hash';

/** The volume (and claim template) holding PGDATA. */
export const DataVolumeName = 'data';
/** Where the data volume is mounted; PGDATA is a directory in it (initdb wants an empty one). */
export const DataDirectory = '/data';
export const PgData = '/data/pgdata';
/** Where the ConfigMap is mounted. */
export const ConfigDirectory = '/etc/steward/config';
/** Where the downward-API volume with the instruction is mounted. */
export const PodInfoDirectory = '/etc/steward/pod';
/** The unix socket directory (an emptyDir). */
export const SocketDirectory = '/run/postgresql';

/** Keys of the generated Secrets. */
export const SecretKeys = {
  username: 'username',
  password: 'password',
  database: 'database',
  host: 'host',
  port: 'port',
  uri: 'uri',
} as const;

/** The superuser every instance has (initdb --username). */
export const Superuser = 'postgres';

/**
 * The role standbys stream as, clone with (pg_basebackup) and rewind from (pg_rewind), and the
 * base backups take: REPLICATION LOGIN, not a superuser, EXECUTE on the four functions pg_rewind
 * reads the source's files with, nothing else. The only role pg_hba.conf admits for replication.
 */
export const ReplicationUser = 'steward_replication';

/**
 * The StatefulSet whose instances serve: `<name>` until the first major upgrade, then
 * `<name>-v<major>` (status.instanceSet).
 */
export function currentInstanceSet(cluster: PostgresCluster): string {
  return cluster.status?.instanceSet ?? clusterName(cluster);
}

/** The StatefulSet a major upgrade to `major` creates: `<name>-v<major>` (at most 52). */
export function upgradeInstanceSet(name: string, major: string): string {
  return `${name}-v${major}`;
}

/**
 * The fence's Lease of an instance set (docs/design/fencing.md): `<set>-primary`, which the set's
 * primary renews — `<name>-primary` for the first set, `<name>-v<major>-primary` after a major
 * upgrade (each set's primary proves its role on a Lease of its own).
 */
export function fenceLease(set: string): string {
  return `${set}-primary`;
}

/** The names of a PostgresCluster's children: all derive from `metadata.name` (at most 48). */
export function childNames(name: string) {
  return {
    ...workloadChildNames(name),
    any: `${name}-r`,
    superuserSecret: `${name}-superuser`,
    replicationSecret: `${name}-replication`,
    appSecret: `${name}-app`,
    /** The first instance set's fence Lease (`fenceLease(name)`; docs/design/fencing.md). */
    lease: fenceLease(name),
    /** The instances' ServiceAccount, Role and RoleBinding: renew their Leases, nothing else. */
    instanceAccount: `${name}-instance`,
  };
}

/** The pod of ordinal `n` (the StatefulSet's naming). */
export function podName(name: string, ordinal: number): string {
  return `${name}-${ordinal}`;
}

/** The claim of ordinal `n` (volumeClaimTemplates naming: `<template>-<pod>`). */
export function claimName(name: string, ordinal: number): string {
  return `${DataVolumeName}-${podName(name, ordinal)}`;
}

/** The labels on every child of `cluster` and on its pods (the role label aside). */
export function commonLabels(cluster: PostgresCluster): Record<string, string> {
  return workloadLabels('postgresql', 'database', Labels.cluster, clusterName(cluster));
}

/** The StatefulSet's selector, and the base of every other one: the cluster label alone. */
export function clusterSelector(name: string): Record<string, string> {
  return { [Labels.cluster]: name };
}

/** `metadata.name` of a PostgresCluster, which every rendered child needs. */
export const clusterName = (cluster: PostgresCluster): string =>
  storedName(cluster, 'PostgresCluster', 'steward/postgres-cluster');

/** `metadata.namespace` of a PostgresCluster (namespaced kind: always set on a stored object). */
export const clusterNamespace = (cluster: PostgresCluster): string =>
  storedNamespace(cluster, 'PostgresCluster', 'steward/postgres-cluster');

/** Where a child of `cluster` goes and the labels it carries. */
export function childMeta(cluster: PostgresCluster): ChildMeta {
  return { namespace: clusterNamespace(cluster), labels: commonLabels(cluster) };
}

/** Instances desired (the API server defaults spec.replicas to 1). */
export function replicasOf(cluster: PostgresCluster): number {
  return cluster.spec.replicas ?? 1;
}
