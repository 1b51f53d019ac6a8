/**
 * A fault-injecting HTTP reverse proxy between the controller process and a provider API (moto for
 * RDS, the local Cloud SQL Admin API). A ProviderProfile's endpoint points at it, so it sees every
 * provider call the controller makes. Rules decide, per request, what happens to it: forward it,
 * hold it, run a callback first (e.g. SIGKILL the controller), answer it with the provider's own
 * error, or drop it; and after the provider answered, run a callback before the answer is relayed
 * (or instead of relaying it — the caller never learns the outcome). Every request is recorded with
 * the provider operation it is (RDS `Action`, Cloud SQL REST method) and the instance it is about.
 */
import {
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { randomUUID } from 'node:crypto';
import { type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** Which provider API is behind the proxy: decides how requests are classified and errors look. */
export type ProviderApi = 'rds' | 'cloudsql';

/** What became of a request. */
export type RequestOutcome =
  /** Not decided yet (held, or waiting for the provider). */
  | 'pending'
  /** The provider got it, and its answer was relayed. */
  | 'forwarded'
  /** The provider got it (and acted on it), but its answer was never relayed. */
  | 'lost'
  /** The proxy answered it itself; the provider never saw it. */
  | 'answered'
  /** Neither forwarded nor answered: the connection was closed. */
  | 'dropped';

export interface ProxiedRequest {
  /** 1, 2, … in arrival order. */
  readonly seq: number;
  /** `Date.now()` at arrival. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  /** RDS: the `Action` form field (`CreateDBInstance`); Cloud SQL: the REST method (`instances.insert`). */
  readonly action: string;
  /** The instance the call is about (`DBInstanceIdentifier`; the Cloud SQL instance name), if any. */
  readonly instance: string | undefined;
  /** RDS: the form fields of the body. */
  readonly form: Readonly<Record<string, string>>;
  /** Cloud SQL: the JSON body. */
  readonly json: unknown;
  outcome: RequestOutcome;
  /** The HTTP status the caller got, when it got one. */
  status: number | undefined;
}

/** An answer the proxy gives itself. */
export interface CannedAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The provider's answer, as the proxy received it. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** `forward` (default), `drop` (close the connection, forward nothing), or answer it. */
export type RequestVerdict = 'forward' | 'drop' | CannedAnswer;
/** `relay` (default), or `drop`: the provider acted on the request but the caller hears nothing. */
export type ResponseVerdict = 'relay' | 'drop';

/** Which requests a rule (or a count) is about; every given field must match. */
export interface RequestMatcher {
  method?: string;
  /** One operation or any of several. */
  action?: string | readonly string[];
  instance?: string;
  path?: RegExp;
}

export interface FaultRule {
  match: RequestMatcher | ((request: ProxiedRequest) => boolean);
  /** How many matching requests the rule applies to; then it retires. Default: until removed. */
  times?: number;
  /**
   * Runs when a matching request has arrived, before anything is forwarded. May take as long as it
   * likes (the request is held meanwhile), e.g. to kill the caller first.
   */
  onRequest?(request: ProxiedRequest): RequestVerdict | void | Promise<RequestVerdict | void>;
  /** Runs after the provider answered a matching request, before the answer is relayed. */
  onResponse?(
    request: ProxiedRequest,
    answer: UpstreamAnswer,
  ): ResponseVerdict | void | Promise<ResponseVerdict | void>;
}

export interface RuleHandle {
  /** Matching requests the rule has handled so far. */
  readonly hits: number;
  remove(): void;
}

export interface CountFilter extends RequestMatcher {
  /** Only requests that reached the provider (`forwarded` or `lost`). */
  reachedProvider?: boolean;
  /** Arrived at or after this `Date.now()`. */
  since?: number;
  /** Arrived before this `Date.now()`. */
  until?: number;
}

export interface FaultProxy {
  /** `http://127.0.0.1:<port>`: what a ProviderProfile's endpoint should be. */
  readonly url: string;
  readonly api: ProviderApi;
  /** Rules are tried in the order added; the first that matches a request handles it. */
  addRule(rule: FaultRule): RuleHandle;
  /** Every request so far, oldest first (live objects: outcomes fill in later). */
  requests(filter?: CountFilter): ProxiedRequest[];
  count(filter?: CountFilter): number;
  /** `{ DescribeDBInstances: 12, CreateDBInstance: 1 }`, of the requests `filter` selects. */
  countsByAction(filter?: CountFilter): Record<string, number>;
  /** The provider's own error answer of this kind, as the real API sends it. */
  providerError(kind: ProviderErrorKind): CannedAnswer;
  close(): Promise<void>;
}

export type ProviderErrorKind = 'throttling' | 'unavailable';

/** Starts a proxy on 127.0.0.1 in front of `target` (a base URL such as moto's endpoint). */
export async function startFaultProxy(target: string, api: ProviderApi): Promise<FaultProxy> {
  const upstream = new URL(target);
  const log: ProxiedRequest[] = [];
  const rules: { rule: FaultRule; hits: number; removed: boolean }[] = [];
  const sockets = new Set<Socket>();

  const ruleFor = (request: ProxiedRequest) => {
    const entry = rules.find(
      (r) =>
        !r.removed &&
        (r.rule.times === undefined || r.hits < r.rule.times) &&
        (typeof r.rule.match === 'function'
          ? r.rule.match(request)
          : matches(request, r.rule.match)),
    );
    if (entry) entry.hits += 1;
    return entry?.rule;
  };

  const handle = async (incoming: IncomingMessage, response: ServerResponse): Promise<void> => {
    const raw = await readAll(incoming);
    const text = decode(raw, incoming.headers['content-encoding']).toString('utf8');
    const request = recordOf(api, log.length + 1, incoming, text);
    log.push(request);
    const rule = ruleFor(request);

    const verdict = (await rule?.onRequest?.(request)) ?? 'forward';
    if (verdict === 'drop') {
      request.outcome = 'dropped';
      response.socket?.destroy();
      return;
    }
    if (verdict !== 'forward') {
      request.outcome = 'answered';
      request.status = verdict.status;
      send(response, verdict.status, { ...verdict.headers }, Buffer.from(verdict.body));
      return;
    }

    let answer: { status: number; headers: IncomingHttpHeaders; body: Buffer };
    try {
      answer = await forward(upstream, incoming, raw);
    } catch {
      request.outcome = 'dropped';
      response.socket?.destroy();
      return;
    }
    const upstreamAnswer: UpstreamAnswer = {
      status: answer.status,
      headers: answer.headers,
      body: decode(answer.body, answer.headers['content-encoding']).toString('utf8'),
    };
    const after = (await rule?.onResponse?.(request, upstreamAnswer)) ?? 'relay';
    if (after === 'drop') {
      request.outcome = 'lost';
      response.socket?.destroy();
      return;
    }
    request.outcome = 'forwarded';
    request.status = answer.status;
    send(response, answer.status, relayHeaders(answer.headers), answer.body);
  };

  const server: Server = createServer((incoming, response) => {
    response.on('error', () => undefined);
    handle(incoming, response).catch(() => response.socket?.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve());
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('fault proxy: no address');

  const select = (filter: CountFilter = {}): ProxiedRequest[] =>
    log.filter(
      (r) =>
        matches(r, filter) &&
        (filter.reachedProvider === undefined ||
          filter.reachedProvider === (r.outcome === 'forwarded' || r.outcome === 'lost')) &&
        (filter.since === undefined || r.at >= filter.since) &&
        (filter.until === undefined || r.at < filter.until),
    );

  return {
    url: `http://127.0.0.1:${address.port}`,
    api,
    addRule: (rule) => {
      const entry = { rule, hits: 0, removed: false };
      rules.push(entry);
      return {
        get hits() {
          return entry.hits;
        },
        remove: () => {
          entry.removed = true;
        },
      };
    },
    requests: select,
    count: (filter) => select(filter).length,
    countsByAction: (filter) => {
      const counts: Record<string, number> = {};
      for (const r of select(filter)) counts[r.action] = (counts[r.action] ?? 0) + 1;
      return counts;
    },
    providerError: (kind) => providerError(api, kind),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The provider's error answers, as the real APIs send them:
 * - RDS (query protocol): an XML `ErrorResponse`; `Throttling` with HTTP 400 (a `Sender` fault),
 *   `ServiceUnavailable` with 503;
 * - Cloud SQL: a JSON `{ error: { code, message, status } }`; 429 `RESOURCE_EXHAUSTED`, 503
 *   `UNAVAILABLE`.
 */
export function providerError(api: ProviderApi, kind: ProviderErrorKind): CannedAnswer {
  if (api === 'rds') {
    const [status, type, code, message] =
      kind === 'throttling'
        ? [400, 'Sender', 'Throttling', 'Rate exceeded']
        : [503, 'Receiver', 'ServiceUnavailable', 'Service is unavailable. Try again later.'];
    return {
      status,
      headers: { 'content-type': 'text/xml' },
      body:
        `<ErrorResponse xmlns="http://rds.amazonaws.com/doc/2014-10-31/"><Error>` +
        `<Type>${type}</Type><Code>${code}</Code><Message>${message}</Message></Error>` +
        `<RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    };
  }
  const [status, canonical, message] =
    kind === 'throttling'
      ? [
          429,
          'RESOURCE_EXHAUSTED',
          "Quota exceeded for quota metric 'Queries' and limit 'Queries per minute' of service 'sqladmin.googleapis.com'.",
        ]
      : [503, 'UNAVAILABLE', 'The service is currently unavailable.'];
  return {
    status,
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify({ error: { code: status, message, status: canonical } }),
  };
}

function matches(request: ProxiedRequest, matcher: RequestMatcher): boolean {
  if (matcher.method !== undefined && matcher.method !== request.method) return false;
  if (matcher.action !== undefined) {
    const actions = typeof matcher.action === 'string' ? [matcher.action] : matcher.action;
    if (!actions.includes(request.action)) return false;
  }
  if (matcher.instance !== undefined && matcher.instance !== request.instance) return false;
  if (matcher.path !== undefined && !matcher.path.test(request.path)) return false;
  return true;
}

/** Cloud SQL Admin v1 REST routes the controller uses, as `[method, path, name]`. */
const cloudSqlRoutes: readonly [string, RegExp, string][] = [
  ['POST', /^\/v1\/projects\/[^/]+\/instances$/, 'instances.insert'],
  ['GET', /^\/v1\/projects\/[^/]+\/instances$/, 'instances.list'],
  ['GET', /^\/v1\/projects\/[^/]+\/instances\/[^/]+$/, 'instances.get'],
  ['PATCH', /^\/v1\/projects\/[^/]+\/instances\/[^/]+$/, 'instances.patch'],
  ['PUT', /^\/v1\/projects\/[^/]+\/instances\/[^/]+$/, 'instances.update'],
  ['DELETE', /^\/v1\/projects\/[^/]+\/instances\/[^/]+$/, 'instances.delete'],
  ['GET', /^\/v1\/projects\/[^/]+\/operations$/, 'operations.list'],
  ['GET', /^\/v1\/projects\/[^/]+\/operations\/[^/]+$/, 'operations.get'],
];

function recordOf(
  api: ProviderApi,
  seq: number,
  incoming: IncomingMessage,
  body: string,
): ProxiedRequest {
  const url = new URL(incoming.url ?? '/', 'http://proxy');
  const method = incoming.method ?? 'GET';
  const query = Object.fromEntries(url.searchParams);
  const contentType = incoming.headers['content-type'] ?? '';
  const form = contentType.includes('application/x-www-form-urlencoded')
    ? Object.fromEntries(new URLSearchParams(body))
    : {};
  let json: unknown;
  if (contentType.includes('json') && body) {
    try {
      json = JSON.parse(body) as unknown;
    } catch {
      json = undefined;
    }
  }
  let action = `${method} ${url.pathname}`;
  let instance: string | undefined;
  if (api === 'rds') {
    action = form['Action'] ?? action;
    instance = form['DBInstanceIdentifier'];
  } else {
    const route = cloudSqlRoutes.find(([m, path]) => m === method && path.test(url.pathname));
    if (route) action = route[2];
    instance =
      /\/instances\/([^/]+)/.exec(url.pathname)?.[1] ??
      query['instance'] ??
      (typeof (json as { name?: unknown } | undefined)?.name === 'string'
        ? (json as { name: string }).name
        : undefined);
  }
  return {
    seq,
    at: Date.now(),
    method,
    path: url.pathname,
    query,
    action,
    instance,
    form,
    json,
    outcome: 'pending',
    status: undefined,
  };
}

function forward(
  upstream: URL,
  incoming: IncomingMessage,
  body: Buffer,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: upstream.host, connection: 'close' },
      },
      (answer) => {
        readAll(answer).then(
          (buffer) =>
            resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: buffer }),
          reject,
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function relayHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(key)) out[key] = value;
  }
  return out;
}

function send(
  response: ServerResponse,
  status: number,
  headers: Record<string, string | string[]>,
  body: Buffer,
): void {
  if (response.destroyed) return;
  response.writeHead(status, { ...headers, 'content-length': String(body.length) });
  response.end(body);
}

function readAll(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

function decode(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding !== 'gzip' || body.length === 0) return body;
  try {
    return gunzipSync(body);
  } catch {
    return body;
  }
}
