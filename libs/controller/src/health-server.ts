import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/** A named check: resolves true when healthy. */
export type Check = () => boolean | Promise<boolean>;

export interface HealthServerOptions {
  port: number;
  host?: string;
  /** `/healthz`: the process is alive and its event loop answers. */
  liveness?: Record<string, Check>;
  /** `/readyz`: caches synced, ready to serve. */
  readiness?: Record<string, Check>;
  /** Extra routes, e.g. `/metrics`. */
  routes?: Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
}

/**
 * A tiny HTTP server for probes and metrics. `/healthz` and `/readyz` answer 200 `ok` when every
 * check passes and 500 listing the failing ones otherwise (`?verbose` lists all), like
 * controller-runtime's healthz handler.
 */
export async function startHealthServer(
  options: HealthServerOptions,
): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const probe =
    (checks: Record<string, Check>) => async (req: IncomingMessage, res: ServerResponse) => {
      const results = await Promise.all(
        Object.entries(checks).map(
          async ([name, check]) =>
            [
              name,
              await Promise.resolve()
                .then(check)
                .catch(() => false),
            ] as const,
        ),
      );
      const failed = results.filter(([, ok]) => !ok);
      const verbose = (req.url ?? '').includes('verbose');
      const lines = results
        .filter(([, ok]) => verbose || !ok)
        .map(([name, ok]) => `[${ok ? '+' : '-'}]${name} ${ok ? 'ok' : 'failed'}`);
      res.writeHead(failed.length ? 500 : 200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(
        failed.length || verbose
          ? `${lines.join('\n')}\n${failed.length ? 'check failed' : 'ok'}\n`
          : 'ok',
      );
    };
  const routes: Record<
    string,
    (req: IncomingMessage, res: ServerResponse) => void | Promise<void>
  > = {
    '/healthz': probe(options.liveness ?? { ping: () => true }),
    '/readyz': probe(options.readiness ?? { ping: () => true }),
    ...options.routes,
  };
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const route = routes[path];
    if (!route) {
      res.writeHead(404).end('not found\n');
      return;
    }
    Promise.resolve(route(req, res)).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
