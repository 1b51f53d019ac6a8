import { createServer } from 'node:net';
import { defaultListenHost } from './listen-host.js';

/**
 * A TCP port on `host` (default 127.0.0.1) that was free a moment ago. Another process can take it
 * before the caller binds it, so whoever starts a server on it must retry with a fresh port when
 * the bind fails.
 */
export function freePort(host = defaultListenHost): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('steward: could not allocate a free port'));
      });
    });
  });
}
