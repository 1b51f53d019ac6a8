import { POSTGRES_PORT } from '@steward/postgres-cluster-api';
import {
  childNames,
  clusterName,
  clusterNamespace,
  commonLabels,
  ReplicationUser,
  SecretKeys,
  Superuser,
} from './names.js';
import { type ChildObject, type RenderInput } from './render-input.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

function secret(input: RenderInput, name: string, data: Record<string, string>): ChildObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: clusterNamespace(input.cluster),
      labels: commonLabels(input.cluster),
    },
    type: 'kubernetes.io/basic-auth',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, b64(v)])),
  };
}

function nonEmpty(password: string): string {
  if (password.length === 0)
    throw new RangeError('steward/postgres-cluster: the generated password is empty');
  return password;
}

/** `<name>-superuser`: the `postgres` superuser's password (initdb sets it; the controller uses it). */
export function renderSuperuserSecret(input: RenderInput, password: string): ChildObject {
  return secret(input, childNames(clusterName(input.cluster)).superuserSecret, {
    [SecretKeys.username]: Superuser,
    [SecretKeys.password]: nonEmpty(password),
  });
}

/**
 * `<name>-replication`: the password of `steward_replication`, the role standbys stream, clone
 * and rewind as and base backups take (the controller's bootstrap sets it on the primary).
 */
export function renderReplicationSecret(input: RenderInput, password: string): ChildObject {
  return secret(input, childNames(clusterName(input.cluster)).replicationSecret, {
    [SecretKeys.username]: ReplicationUser,
    [SecretKeys.password]: nonEmpty(password),
  });
}

/** The application role and database of `spec.bootstrap` (defaults app/app). */
export function bootstrapOf(input: Pick<RenderInput, 'cluster'>): {
  database: string;
  owner: string;
} {
  return {
    database: input.cluster.spec.bootstrap?.database ?? 'app',
    owner: input.cluster.spec.bootstrap?.owner ?? 'app',
  };
}

/**
 * `<name>-app`: what an application needs to connect — username, password, database, the
 * read-write Service's host and port, and a `postgresql://` URI of them.
 */
export function renderAppSecret(input: RenderInput, password: string): ChildObject {
  const name = clusterName(input.cluster);
  const { database, owner } = bootstrapOf(input);
  const host = `${childNames(name).readWrite}.${clusterNamespace(input.cluster)}.svc`;
  return secret(input, childNames(name).appSecret, {
    [SecretKeys.username]: owner,
    [SecretKeys.password]: nonEmpty(password),
    [SecretKeys.database]: database,
    [SecretKeys.host]: host,
    [SecretKeys.port]: String(POSTGRES_PORT),
    [SecretKeys.uri]: `postgresql://${owner}:${encodeURIComponent(password)}@${host}:${POSTGRES_PORT}/${database}`,
  });
}
