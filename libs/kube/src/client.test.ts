import { KubeConfig } from '@kubernetes/client-node';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../tests/support/fake-clock.js';
import { ConfigMaps } from './built-in-types.js';
import { KubeClient, type KubeClientOptions } from './client.js';
import {
  ConnectionError,
  isTooManyRequests,
  NotFoundError,
  ServerError,
  TooManyRequestsError,
} from './errors.js';
import { type RequestInfo } from './request.js';

/**
 * The client's own HTTP behaviour — retries, Retry-After, the limiter, headers — against a scripted
 * HTTP server on loopback, because a real API server cannot be made to answer 429 or 503 on cue.
 * Everything the server decides (status codes, validation, SSA) is proven by the integration suite.
 */

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

interface Seen {
  method: string;
  url: URL;
  headers: IncomingMessage['headers'];
  body: string;
}

let server: Server;
let port: number;
let script: Scripted[] = [];
let seen: Seen[] = [];

function status(code: number, reason: string, message: string): Scripted['body'] {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

function kubeConfigFor(serverPort: number): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: `http://127.0.0.1:${serverPort}`, skipTLSVerify: true }],
    users: [{ name: 'u', token: 'secret-token' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

function client(options: KubeClientOptions = {}): {
  kube: KubeClient;
  clock: FakeClock;
  requests: RequestInfo[];
} {
  const clock = new FakeClock({ autoAdvance: true });
  const requests: RequestInfo[] = [];
  const kube = new KubeClient(kubeConfigFor(port), {
    clock,
    onRequest: (info) => requests.push(info),
    ...options,
  });
  return { kube, clock, requests };
}

const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'db' } };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: new URL(req.url ?? '/', 'http://x'),
        headers: req.headers,
        body,
      });
      const next = script.length > 1 ? script.shift()! : script[0];
      if (!next) {
        res.writeHead(500).end();
        return;
      }
      res.writeHead(next.status, { 'Content-Type': 'application/json', ...next.headers });
      res.end(next.body === undefined ? '' : JSON.stringify(next.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  script = [];
  seen = [];
});

describe('KubeClient retries', () => {
  it('retries a 429 after its Retry-After and reports every attempt', async () => {
    script = [
      { status: 429, headers: { 'Retry-After': '2' }, body: status(429, 'TooManyRequests', 'x') },
      { status: 429, headers: { 'Retry-After': '3' }, body: status(429, 'TooManyRequests', 'x') },
      { status: 200, body: cm },
    ];
    const { kube, clock, requests } = client();
    await expect(kube.get(ConfigMaps, 'c', 'db')).resolves.toEqual(cm);
    expect(clock.sleeps).toEqual([2000, 3000]);
    expect(requests.map((r) => `${r.verb} ${r.method} ${r.code}`)).toEqual([
      'get GET 429',
      'get GET 429',
      'get GET 200',
    ]);
    expect(requests[0]?.path).toBe('/api/v1/namespaces/db/configmaps/c');
    await kube.close();
  });

  it('gives up after maxRetries with TooManyRequestsError carrying Retry-After', async () => {
    script = [
      {
        status: 429,
        headers: { 'Retry-After': '1' },
        body: status(429, 'TooManyRequests', 'slow'),
      },
    ];
    const { kube, requests } = client({ maxRetries: 3 });
    const error = await kube.get(ConfigMaps, 'c', 'db').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManyRequestsError);
    expect(isTooManyRequests(error) && error.retryAfterSeconds).toBe(1);
    expect((error as TooManyRequestsError).message).toBe('slow');
    expect(requests).toHaveLength(4);
    await kube.close();
  });

  it('waits 1 s on a 429 without Retry-After', async () => {
    script = [
      { status: 429, body: status(429, 'TooManyRequests', 'x') },
      { status: 200, body: cm },
    ];
    const { kube, clock } = client();
    await kube.get(ConfigMaps, 'c', 'db');
    expect(clock.sleeps).toEqual([1000]);
    await kube.close();
  });

  it('retries a 5xx only when it carries Retry-After', async () => {
    script = [
      {
        status: 503,
        headers: { 'Retry-After': '4' },
        body: status(503, 'ServiceUnavailable', 'x'),
      },
      { status: 200, body: cm },
    ];
    const first = client();
    await expect(first.kube.get(ConfigMaps, 'c', 'db')).resolves.toEqual(cm);
    expect(first.clock.sleeps).toEqual([4000]);
    await first.kube.close();

    script = [{ status: 500, body: status(500, 'InternalError', 'boom') }];
    const second = client();
    await expect(second.kube.get(ConfigMaps, 'c', 'db')).rejects.toBeInstanceOf(ServerError);
    expect(second.requests).toHaveLength(1);
    await second.kube.close();
  });

  it('does not retry other errors', async () => {
    script = [{ status: 404, body: status(404, 'NotFound', 'configmaps "c" not found') }];
    const { kube, requests } = client();
    await expect(kube.get(ConfigMaps, 'c', 'db')).rejects.toBeInstanceOf(NotFoundError);
    expect(requests).toHaveLength(1);
    await kube.close();
  });

  it('passes the rate limiter before every attempt, retries included', async () => {
    script = [
      { status: 429, headers: { 'Retry-After': '1' }, body: status(429, 'TooManyRequests', 'x') },
      { status: 200, body: cm },
    ];
    let acquired = 0;
    const { kube } = client({ rateLimiter: { acquire: async () => void acquired++ } });
    await kube.get(ConfigMaps, 'c', 'db');
    expect(acquired).toBe(2);
    await kube.close();
  });

  it('an abort during the Retry-After wait rejects with the signal’s reason', async () => {
    script = [
      { status: 429, headers: { 'Retry-After': '30' }, body: status(429, 'TooManyRequests', 'x') },
    ];
    const clock = new FakeClock();
    const kube = new KubeClient(kubeConfigFor(port), { clock });
    const controller = new AbortController();
    const call = kube.get(ConfigMaps, 'c', 'db', { signal: controller.signal });
    while (clock.pendingSleepers === 0) await new Promise((r) => setTimeout(r, 5));
    const reason = new Error('shutting down');
    controller.abort(reason);
    await expect(call).rejects.toBe(reason);
    await kube.close();
  });
});

describe('KubeClient requests', () => {
  it('sends credentials, user agent, content types, fieldManager and force only when asked', async () => {
    script = [{ status: 200, body: cm }];
    const { kube } = client({ fieldManager: 'steward-test', userAgent: 'steward-test/1' });
    await kube.apply(ConfigMaps, { metadata: { name: 'c', namespace: 'db' }, data: { k: 'v' } });
    await kube.apply(ConfigMaps, cm, { force: true, fieldManager: 'other', dryRun: true });
    await kube.mergePatch(ConfigMaps, 'c', 'db', { data: { k: null } });
    await kube.jsonPatch(ConfigMaps, 'c', 'db', [{ op: 'test', path: '/data/k', value: 'v' }], {
      subresource: 'status',
    });
    await kube.create(ConfigMaps, cm, { dryRun: true });
    await kube.delete(ConfigMaps, 'c', 'db', {
      preconditions: { uid: 'u1' },
      propagationPolicy: 'Foreground',
    });

    const [apply, forced, merge, json, create, del] = seen;
    expect(apply?.headers['content-type']).toBe('application/apply-patch+yaml');
    expect(apply?.headers.authorization).toBe('Bearer secret-token');
    expect(apply?.headers['user-agent']).toBe('steward-test/1');
    expect(apply?.headers.accept).toBe('application/json');
    expect(Object.fromEntries(apply!.url.searchParams)).toEqual({ fieldManager: 'steward-test' });
    expect(JSON.parse(apply!.body)).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'db' },
      data: { k: 'v' },
    });
    expect(Object.fromEntries(forced!.url.searchParams)).toEqual({
      fieldManager: 'other',
      force: 'true',
      dryRun: 'All',
    });
    expect(merge?.headers['content-type']).toBe('application/merge-patch+json');
    expect(merge?.url.pathname).toBe('/api/v1/namespaces/db/configmaps/c');
    expect(json?.headers['content-type']).toBe('application/json-patch+json');
    expect(json?.url.pathname).toBe('/api/v1/namespaces/db/configmaps/c/status');
    expect(create?.method).toBe('POST');
    expect(create?.url.pathname).toBe('/api/v1/namespaces/db/configmaps');
    expect(Object.fromEntries(create!.url.searchParams)).toEqual({
      fieldManager: 'steward-test',
      dryRun: 'All',
    });
    expect(del?.method).toBe('DELETE');
    expect(JSON.parse(del!.body)).toEqual({
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      propagationPolicy: 'Foreground',
      preconditions: { uid: 'u1' },
    });
    await kube.close();
  });

  it('refuses to address what cannot be addressed, before sending anything', async () => {
    const { kube, requests } = client();
    await expect(kube.get(ConfigMaps, 'c')).rejects.toThrow(TypeError);
    await expect(kube.create(ConfigMaps, { ...cm, metadata: { name: 'c' } })).rejects.toThrow(
      'ConfigMap is namespaced',
    );
    await expect(kube.update(ConfigMaps, { ...cm, metadata: { namespace: 'db' } })).rejects.toThrow(
      'name is required',
    );
    await expect(kube.apply(ConfigMaps, cm)).rejects.toThrow('apply needs a fieldManager');
    expect(requests).toEqual([]);
    await kube.close();
  });

  it('reports a refused connection as ConnectionError with code 0', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const requests: RequestInfo[] = [];
    const kube = new KubeClient(kubeConfigFor(closedPort), { onRequest: (i) => requests.push(i) });
    const error = await kube.get(ConfigMaps, 'c', 'db').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toBeDefined();
    expect(requests.map((r) => r.code)).toEqual([0]);
    await kube.close();
  });

  it('a watch answered with an error status throws its typed error and is reported once', async () => {
    script = [
      {
        status: 404,
        body: status(404, 'NotFound', 'the server could not find the requested resource'),
      },
    ];
    const { kube, requests } = client();
    const iterate = async (): Promise<void> => {
      for await (const _event of kube.watch(ConfigMaps, { namespace: 'db' })) {
        // nothing arrives
      }
    };
    await expect(iterate()).rejects.toBeInstanceOf(NotFoundError);
    expect(requests.map((r) => `${r.verb} ${r.code}`)).toEqual(['watch 404']);
    expect(Object.fromEntries(seen[0]!.url.searchParams)).toEqual({ watch: 'true' });
    await kube.close();
  });
});
