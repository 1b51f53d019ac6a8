import { createServer, type Socket } from 'node:net';

/**
 * A TCP listener on 127.0.0.1 that is no real server, for a client's failure paths. It accepts every
 * connection and keeps it; what happens then is `onConnection`'s — by default it reads and drops
 * what arrives and never answers (what a SIGSTOPped server looks like). For a port nothing listens
 * on, `freePort()`.
 */
export interface FakeTcpServer {
  readonly port: number;
  /** Every connection accepted so far, in order. */
  readonly sockets: readonly Socket[];
  /** Resolves once `count` connections have been accepted. */
  accepted(count?: number): Promise<void>;
  /** Resolves once the client has ended or dropped connection `index` (its end was seen). */
  closedByClient(index?: number): Promise<void>;
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

export async function startFakeTcpServer(
  onConnection: (socket: Socket) => void = (socket) => socket.resume(),
): Promise<FakeTcpServer> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string')
    throw new Error('steward: the fake server has no port');
  return {
    port: address.port,
    sockets,
    accepted: (count = 1) =>
      new Promise<void>((resolve) => {
        const poll = () => (sockets.length >= count ? resolve() : setTimeout(poll, 10));
        poll();
      }),
    closedByClient: (index = 0) =>
      new Promise<void>((resolve) => {
        const socket = sockets[index];
        if (!socket) throw new Error(`steward: the fake server accepted no connection ${index}`);
        if (socket.destroyed || socket.readableEnded) resolve();
        else {
          socket.once('end', resolve);
          socket.once('close', resolve);
        }
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
