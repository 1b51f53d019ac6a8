import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A loopback TCP forwarder for fault injection between a client and a real server (TLS passes
 * through untouched). `pause()` keeps connections open but stops moving bytes — a stalled stream;
 * `cut()` destroys every connection and refuses new ones — a network partition; `resume()` and
 * `heal()` undo them.
 */
export interface TcpProxy {
  /** The port on 127.0.0.1 to point clients at. */
  readonly port: number;
  /** Stops forwarding bytes on open and new connections, without closing them. */
  pause(): void;
  /**
   * Freezes the connections open now — they stay open and silent forever, a stalled stream — while
   * new connections work normally.
   */
  stall(): void;
  resume(): void;
  /** Destroys every open connection and refuses new ones until `heal()`. */
  cut(): void;
  heal(): void;
  /** Open client connections. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let paused = false;
  let partitioned = false;
  const pairs = new Set<[Socket, Socket]>();

  const server: Server = createServer((client) => {
    if (partitioned) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: target.host ?? '127.0.0.1', port: target.port });
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    for (const s of pair) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
    if (paused) {
      client.pause();
      upstream.pause();
      client.unpipe(upstream);
      upstream.unpipe(client);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (!address || typeof address !== 'object') throw new Error('steward: proxy did not bind');

  return {
    port: address.port,
    pause() {
      paused = true;
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    stall() {
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    },
    resume() {
      paused = false;
      for (const [client, upstream] of pairs) {
        client.pipe(upstream);
        upstream.pipe(client);
      }
    },
    cut() {
      partitioned = true;
      for (const s of sockets) s.destroy();
    },
    heal() {
      partitioned = false;
    },
    get connections() {
      return pairs.size;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
