import { type DatabaseInstance } from '@steward/database-instance-api';
import {
  AlreadyExistsError,
  NotFoundError,
  Secrets,
  type KubeClient,
  type KubeObject,
} from '@steward/kube';
import { randomBytes } from 'node:crypto';

interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

/** The Secret a DatabaseInstance's credentials live in: `spec.writeConnectionSecretToRef.name`, else `<name>-connection`. */
export function connectionSecretName(obj: DatabaseInstance): string {
  return obj.spec.writeConnectionSecretToRef?.name ?? `${obj.metadata.name}-connection`;
}

/** The master user name Steward creates RDS instances with. */
export const masterUsername = 'steward_admin';

/**
 * The user whose password Cloud SQL sets at creation (`rootPassword`): the engine's built-in
 * superuser, so that is the user the connection Secret must name.
 */
export function cloudSqlRootUser(engine: DatabaseInstance['spec']['engine']): string {
  return engine === 'mysql' ? 'root' : 'postgres';
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString('utf8');

/**
 * Returns the instance's master password, generating and storing it first if there is none — so the
 * password exists in the cluster BEFORE any create call can make an instance with it, and a crash
 * never leaves an instance whose password nobody knows. Generated once: later calls return the
 * stored value. The Secret is owned by the DatabaseInstance only with `deletionPolicy: Delete`;
 * with Retain (the default) it outlives the object, like the database it opens. The password is
 * returned to the caller and never logged, evented or put in status.
 */
export async function ensureMasterPassword(
  client: KubeClient,
  obj: DatabaseInstance,
  username: string = masterUsername,
): Promise<string> {
  const name = connectionSecretName(obj);
  const namespace = obj.metadata.namespace!;
  const existing = await client.get<Secret>(Secrets, name, namespace).catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
  const stored = unb64(existing?.data?.password);
  if (stored) return stored;
  const password = randomBytes(24).toString('base64url');
  const owned = obj.spec.deletionPolicy === 'Delete' && obj.metadata.uid;
  const secret: Secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name,
      namespace,
      labels: {
        'app.kubernetes.io/managed-by': 'steward',
        'database.steward.dev/instance': obj.metadata.name!,
      },
      ...(owned
        ? {
            ownerReferences: [
              {
                apiVersion: obj.apiVersion,
                kind: obj.kind,
                name: obj.metadata.name!,
                uid: obj.metadata.uid!,
                controller: true,
                blockOwnerDeletion: true,
              },
            ],
          }
        : {}),
    },
    data: { username: b64(username), password: b64(password) },
  };
  try {
    if (existing) {
      await client.update<Secret>(Secrets, {
        ...existing,
        data: { ...existing.data, ...secret.data },
      });
    } else {
      await client.create<Secret>(Secrets, secret);
    }
    return password;
  } catch (error) {
    // Someone (another replica, a previous attempt) wrote it first: theirs is the password.
    if (error instanceof AlreadyExistsError) return ensureMasterPassword(client, obj, username);
    throw error;
  }
}

/** Adds or refreshes host and port in the connection Secret; writes only when they changed. */
export async function publishEndpoint(
  client: KubeClient,
  obj: DatabaseInstance,
  endpoint: { host: string; port: number },
): Promise<boolean> {
  const name = connectionSecretName(obj);
  const secret = await client.get<Secret>(Secrets, name, obj.metadata.namespace!);
  const data = { host: b64(endpoint.host), port: b64(String(endpoint.port)) };
  if (secret.data?.host === data.host && secret.data?.port === data.port) return false;
  await client.mergePatch(Secrets, name, obj.metadata.namespace, { data });
  return true;
}
