import { defaultListenHost, freePort, type ListenHostOption } from '@steward/testing';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { v1 } from '@google-cloud/sql';
import { passThroughAuth } from './auth.js';
import { CloudSqlError, invalidPayload, unimplemented } from './errors.js';
import {
  Faults,
  type CloudSqlFault,
  type CloudSqlMethod,
  type CloudSqlOperationFault,
  type CloudSqlOperationMethod,
} from './faults.js';
import { isObject, type Json, type JsonObject } from './json.js';
import { matchRoute } from './routes.js';
import { CloudSqlSchema } from './schema.js';
import {
  ServiceAccounts,
  type ServiceAccountKeyFile,
  type ServiceAccountKeyOptions,
} from './service-accounts.js';
import {
  backupRunSnapshot,
  backupSnapshot,
  instanceSnapshot,
  operationSnapshot,
  type CloudSqlBackupSnapshot,
  type CloudSqlInstanceSnapshot,
  type CloudSqlOperationSnapshot,
} from './snapshots.js';
import { CloudSqlState } from './state.js';

/** Options for `new SqlInstancesServiceClient(…)` and the other `@google-cloud/sql` v1 clients. */
export type CloudSqlClientOptions = NonNullable<
  ConstructorParameters<typeof v1.SqlInstancesServiceClient>[0]
>;

export interface CloudSqlApiOptions extends ListenHostOption {
  /** How long each operation stays PENDING, and then RUNNING. Default 200 ms. */
  operationStepMs?: number;
  /**
   * How long a new instance stays PENDING_CREATE before it is RUNNABLE; its CREATE operation is DONE
   * at the same moment. Default (and minimum) twice `operationStepMs`.
   */
  createMs?: number;
  /**
   * Let a deleted instance's name be inserted again. Default false: like the real API, which keeps
   * a deleted name for a week, a second insert of it gets 409 instanceAlreadyExists.
   */
  reuseDeletedNames?: boolean;
  /** Machine tiers to accept besides the built-in families (see validation.ts). */
  extraTiers?: string[];
  /** The clock. Default `Date.now`. */
  now?: () => number;
  /**
   * Check every request's credentials as the real API does: a bearer JWT signed by a key from
   * `createServiceAccountKey()` (what the real client sends when given that key file as
   * `credentials`), else 401 UNAUTHENTICATED; a project the account may not use, 403
   * PERMISSION_DENIED. Default false: any request is served, so `clientOptions()`'s pass-through
   * auth works.
   */
  verifyCredentials?: boolean;
}

/** One request the server answered. */
export interface CloudSqlRequestRecord {
  /** REST method name, e.g. `instances.insert`; undefined for a path it does not serve. */
  method: CloudSqlMethod | undefined;
  httpMethod: string;
  path: string;
  query: Record<string, string>;
  body: Json | undefined;
  /** The HTTP status it answered with. */
  status: number;
}

export interface CloudSqlApi {
  /** Where the server listens, in the client's option names. */
  readonly endpoint: { apiEndpoint: string; port: number; protocol: 'http' };
  /** `http://<host>:<port>`. */
  readonly baseUrl: string;
  /**
   * Options for the real `@google-cloud/sql` clients: REST transport (`fallback: true`) over plain
   * HTTP to this server, with a pass-through auth client (no Google credentials needed). Each call
   * returns a fresh object; spread it to add options of your own.
   */
  clientOptions(): CloudSqlClientOptions;
  /** The instances that exist now, by name. */
  instances(): CloudSqlInstanceSnapshot[];
  /** Every operation started, oldest first, with its status now. */
  operations(): CloudSqlOperationSnapshot[];
  /** On-demand backup runs of existing instances and final backups of deleted ones. */
  backups(): CloudSqlBackupSnapshot[];
  /** Every request answered, oldest first. */
  requests(): CloudSqlRequestRecord[];
  /**
   * The next call(s) of `method` answer with this HTTP error instead (or, with `afterProcessing`,
   * after taking effect).
   */
  failNext(method: CloudSqlMethod, fault: CloudSqlFault): void;
  /** The next operation(s) started by `method` are accepted and then end DONE with `error`. */
  failNextOperation(method: CloudSqlOperationMethod, fault?: CloudSqlOperationFault): void;
  /**
   * Creates a service-account key the server accepts when started with `verifyCredentials`, and
   * returns its key file (JSON, with the private key) — what a credentials Secret holds. The
   * account may use `options.projects`, default the project named in its email.
   */
  createServiceAccountKey(
    clientEmail: string,
    options?: ServiceAccountKeyOptions,
  ): ServiceAccountKeyFile;
  /** Deletes a key by its `private_key_id`: requests signed with it get 401 from now on. */
  deleteServiceAccountKey(privateKeyId: string): boolean;
  stop(): Promise<void>;
}

/**
 * Starts a local implementation of the Cloud SQL Admin API v1 REST surface on `host`, for the
 * real `@google-cloud/sql` client: instances insert/get/list/patch/update/delete, operations
 * get/list, backupRuns insert/get/list, backups get/list. There is no Cloud SQL emulator; this is
 * Steward's.
 */
export async function startCloudSqlApi(options: CloudSqlApiOptions = {}): Promise<CloudSqlApi> {
  const operationStepMs = options.operationStepMs ?? 200;
  const host = options.host ?? defaultListenHost;
  const schema = CloudSqlSchema.load();
  const faults = new Faults();
  const accounts = new ServiceAccounts();
  const log: CloudSqlRequestRecord[] = [];
  let baseUrl = '';
  const state = new CloudSqlState({
    operationStepMs,
    createMs: Math.max(options.createMs ?? 0, 2 * operationStepMs),
    reuseDeletedNames: options.reuseDeletedNames ?? false,
    extraTiers: options.extraTiers,
    knownDatabaseVersion: (name) =>
      !/^MYSQL_5_[15]$|^MYSQL_8_0_29$|_UNSPECIFIED$/.test(name) &&
      schema.enumNumber('SqlDatabaseVersion', name) !== undefined,
    baseUrl: () => baseUrl,
    now: options.now,
  });

  const server = createServer((request, response) => {
    void serve(request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });

  async function serve(request: IncomingMessage, response: ServerResponse) {
    const text = await readBody(request);
    const url = new URL(request.url ?? '/', baseUrl);
    const httpMethod = request.method ?? 'GET';
    const numericEnums = (url.searchParams.get('$alt') ?? '').includes('enum-encoding=int');
    const match = matchRoute(httpMethod, url.pathname);
    const entry: CloudSqlRequestRecord = {
      method: match?.route.method,
      httpMethod,
      path: url.pathname,
      query: Object.fromEntries([...url.searchParams].filter(([k]) => !k.startsWith('$'))),
      body: undefined,
      status: 0,
    };
    log.push(entry);
    let status = 200;
    let payload: JsonObject;
    let retryAfter: number | undefined;
    try {
      state.advance();
      if (options.verifyCredentials) {
        accounts.authorize(request.headers.authorization, match?.params['project'], Date.now());
      }
      if (!match) throw unimplemented(`${httpMethod} ${url.pathname}`);
      const body = parseBody(text);
      entry.body = body;
      const fault = faults.takeHttp(match.route.method);
      if (fault && !fault.afterProcessing) throw fault.error;
      const result = match.route.handle({
        params: match.params,
        query: url.searchParams,
        body,
        state,
        schema,
        faults,
        baseUrl,
      });
      if (fault) throw fault.error;
      payload = schema.encode(result.type, result.resource, numericEnums);
    } catch (error) {
      const apiError =
        error instanceof CloudSqlError
          ? error
          : new CloudSqlError({
              code: 500,
              message: `steward Cloud SQL test API failed: ${error instanceof Error ? error.message : String(error)}`,
            });
      status = apiError.code;
      payload = apiError.body();
      retryAfter = apiError.retryAfterSeconds;
    }
    entry.status = status;
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=UTF-8' };
    if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    response.writeHead(status, headers);
    response.end(JSON.stringify(payload));
  }

  const port = await listen(server, host);
  baseUrl = `http://${host}:${port}`;
  let stopped: Promise<void> | undefined;

  return {
    endpoint: { apiEndpoint: host, port, protocol: 'http' },
    baseUrl,
    clientOptions: () => ({
      fallback: true,
      protocol: 'http',
      apiEndpoint: host,
      port,
      // google-gax accepts any object with getRequestHeaders() and fetch() as the auth client.
      auth: passThroughAuth() as unknown as CloudSqlClientOptions['auth'],
    }),
    instances: () => {
      state.advance();
      return state
        .instanceRecordsSnapshot()
        .map(instanceSnapshot)
        .sort((a, b) => a.name.localeCompare(b.name));
    },
    operations: () => {
      state.advance();
      const now = state.now();
      return state.operationsSnapshot().map((op) => operationSnapshot(op, now));
    },
    backups: () => {
      state.advance();
      const { runs, backups } = state.backupsSnapshot();
      return [...runs.map(backupRunSnapshot), ...backups.map(backupSnapshot)];
    },
    requests: () => log.map((entry) => structuredClone(entry)),
    failNext: (method, fault) => faults.failNext(method, fault),
    failNextOperation: (method, fault = {}) => faults.failNextOperation(method, fault),
    createServiceAccountKey: (clientEmail, keyOptions) =>
      accounts.createKey(clientEmail, keyOptions),
    deleteServiceAccountKey: (privateKeyId) => accounts.deleteKey(privateKeyId),
    stop: () =>
      (stopped ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function parseBody(text: string): JsonObject {
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidPayload(`Invalid JSON payload received. Unexpected token.\n${text.slice(0, 80)}`);
  }
  if (!isObject(parsed)) {
    throw invalidPayload('Invalid JSON payload received. Expected an object.');
  }
  return parsed;
}

/** Binds a free port on `host`, trying again with another one if it was taken meanwhile. */
async function listen(server: Server, host: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort(host);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port, exclusive: true }, () => {
          server.off('error', reject);
          resolve();
        });
      });
      return port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 10) throw error;
    }
  }
}
