import { invalidRequest } from './errors.js';
import type { CloudSqlMethod, CloudSqlOperationMethod, Faults } from './faults.js';
import { parseFilter } from './filter.js';
import type { JsonObject } from './json.js';
import type { Operation } from './operation.js';
import { page } from './paging.js';
import type { CloudSqlSchema } from './schema.js';
import type { CloudSqlState } from './state.js';
import type { FinalBackupRequest } from './backups.js';

/**
 * The REST surface: `google.api.http` paths of the Cloud SQL Admin v1 services, as the
 * `@google-cloud/sql` REST client calls them, mapped onto the state machine.
 */

export interface RouteContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The request body as sent (enums as names or numbers). */
  body: JsonObject;
  state: CloudSqlState;
  schema: CloudSqlSchema;
  faults: Faults;
  baseUrl: string;
}

/** A response: the message type and its resource, with enum names. */
export interface RouteResult {
  type: string;
  resource: JsonObject;
}

export interface Route {
  method: CloudSqlMethod;
  httpMethod: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** e.g. `v1/projects/{project}/instances/{instance}` */
  path: string;
  handle(context: RouteContext): RouteResult;
}

const operation = (op: Operation, c: RouteContext): RouteResult => ({
  type: 'Operation',
  resource: op.resource(c.state.now(), c.baseUrl),
});

/** The failure (if any) injected for the operation this call starts; taken once it validates. */
const planned = (c: RouteContext, method: CloudSqlOperationMethod) => () =>
  c.faults.takeOperation(method);

/** A query parameter by its JSON (lowerCamel) or proto (snake_case) name. */
const param = (query: URLSearchParams, camel: string) =>
  query.get(camel) ?? query.get(camel.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`));

function listResponse(
  kind: string,
  items: JsonObject[],
  query: URLSearchParams,
  sizeParam = 'maxResults',
  itemsKey = 'items',
): JsonObject {
  const paged = page(items, param(query, sizeParam), param(query, 'pageToken'));
  const resource: JsonObject = kind ? { kind } : {};
  if (paged.items.length > 0) resource[itemsKey] = paged.items;
  if (paged.nextPageToken) resource['nextPageToken'] = paged.nextPageToken;
  return resource;
}

function finalBackupRequest(query: URLSearchParams): FinalBackupRequest | undefined {
  if (param(query, 'enableFinalBackup') !== 'true') return undefined;
  const ttl = param(query, 'finalBackupTtlDays');
  const expiry = param(query, 'finalBackupExpiryTime');
  if (ttl && expiry) {
    throw invalidRequest('Set either finalBackupTtlDays or finalBackupExpiryTime, not both.');
  }
  const request: FinalBackupRequest = {};
  if (ttl) {
    const days = Number(ttl);
    if (!Number.isInteger(days) || days < 1 || days > 365) {
      throw invalidRequest(`Invalid finalBackupTtlDays (${ttl}): it must be between 1 and 365.`);
    }
    request.ttlDays = days;
  }
  if (expiry) {
    if (Number.isNaN(Date.parse(expiry))) {
      throw invalidRequest(`Invalid finalBackupExpiryTime (${expiry}).`);
    }
    request.expiryTime = new Date(expiry).toISOString();
  }
  const description = param(query, 'finalBackupDescription');
  if (description) request.description = description;
  return request;
}

export const routes: Route[] = [
  {
    method: 'instances.insert',
    httpMethod: 'POST',
    path: 'v1/projects/{project}/instances',
    handle: (c) => {
      const body = c.schema.decode('DatabaseInstance', c.body, 'body');
      const op = c.state.insertInstance(c.params['project']!, body, planned(c, 'instances.insert'));
      return operation(op, c);
    },
  },
  {
    method: 'instances.list',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/instances',
    handle: (c) => {
      const matches = parseFilter(param(c.query, 'filter'));
      const items = c.state.listInstances(c.params['project']!).filter(matches);
      return {
        type: 'InstancesListResponse',
        resource: listResponse('sql#instancesList', items, c.query),
      };
    },
  },
  {
    method: 'instances.get',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/instances/{instance}',
    handle: (c) => ({
      type: 'DatabaseInstance',
      resource: c.state.getInstance(c.params['project']!, c.params['instance']!),
    }),
  },
  {
    method: 'instances.patch',
    httpMethod: 'PATCH',
    path: 'v1/projects/{project}/instances/{instance}',
    handle: (c) => {
      const body = c.schema.decode('DatabaseInstance', c.body, 'body');
      const { project, instance } = c.params;
      return operation(
        c.state.patchInstance(project!, instance!, body, planned(c, 'instances.patch')),
        c,
      );
    },
  },
  {
    method: 'instances.update',
    httpMethod: 'PUT',
    path: 'v1/projects/{project}/instances/{instance}',
    handle: (c) => {
      const body = c.schema.decode('DatabaseInstance', c.body, 'body');
      const { project, instance } = c.params;
      return operation(
        c.state.updateInstance(project!, instance!, body, planned(c, 'instances.update')),
        c,
      );
    },
  },
  {
    method: 'instances.delete',
    httpMethod: 'DELETE',
    path: 'v1/projects/{project}/instances/{instance}',
    handle: (c) => {
      const { project, instance } = c.params;
      const finalBackup = finalBackupRequest(c.query);
      return operation(
        c.state.deleteInstance(project!, instance!, finalBackup, planned(c, 'instances.delete')),
        c,
      );
    },
  },
  {
    method: 'operations.get',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/operations/{operation}',
    handle: (c) => operation(c.state.getOperation(c.params['project']!, c.params['operation']!), c),
  },
  {
    method: 'operations.list',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/operations',
    handle: (c) => {
      const now = c.state.now();
      const items = c.state
        .listOperations(c.params['project']!, param(c.query, 'instance') ?? undefined)
        .map((op) => op.resource(now, c.baseUrl));
      return {
        type: 'OperationsListResponse',
        resource: listResponse('sql#operationsList', items, c.query),
      };
    },
  },
  {
    method: 'backupRuns.insert',
    httpMethod: 'POST',
    path: 'v1/projects/{project}/instances/{instance}/backupRuns',
    handle: (c) => {
      const body = c.schema.decode('BackupRun', c.body, 'body');
      const { project, instance } = c.params;
      return operation(
        c.state.insertBackupRun(project!, instance!, body, planned(c, 'backupRuns.insert')),
        c,
      );
    },
  },
  {
    method: 'backupRuns.list',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/instances/{instance}/backupRuns',
    handle: (c) => ({
      type: 'BackupRunsListResponse',
      resource: listResponse(
        'sql#backupRunsList',
        c.state.listBackupRuns(c.params['project']!, c.params['instance']!),
        c.query,
      ),
    }),
  },
  {
    method: 'backupRuns.get',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/instances/{instance}/backupRuns/{id}',
    handle: (c) => ({
      type: 'BackupRun',
      resource: c.state.getBackupRun(c.params['project']!, c.params['instance']!, c.params['id']!),
    }),
  },
  {
    method: 'backups.list',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/backups',
    handle: (c) => {
      const matches = parseFilter(param(c.query, 'filter'));
      const items = c.state.listBackups(c.params['project']!).filter(matches);
      return {
        type: 'ListBackupsResponse',
        resource: listResponse('', items, c.query, 'pageSize', 'backups'),
      };
    },
  },
  {
    method: 'backups.get',
    httpMethod: 'GET',
    path: 'v1/projects/{project}/backups/{backup}',
    handle: (c) => ({
      type: 'Backup',
      resource: c.state.getBackup(
        `projects/${c.params['project']!}/backups/${c.params['backup']!}`,
      ),
    }),
  },
];

/** The route for a request, with its path parameters. */
export function matchRoute(
  httpMethod: string,
  pathname: string,
): { route: Route; params: Record<string, string> } | undefined {
  const segments = pathname.replace(/^\/+|\/+$/g, '').split('/');
  for (const route of routes) {
    if (route.httpMethod !== httpMethod) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = pattern.every((part, i) => {
      const segment = decodeURIComponent(segments[i] ?? '');
      if (part.startsWith('{')) {
        params[part.slice(1, -1)] = segment;
        return segment !== '';
      }
      return part === segment;
    });
    if (ok) return { route, params };
  }
  return undefined;
}
