import { Socket } from 'node:net';

/**
 * A socket factory whose connections leave from `address` — a `TestClient`'s, the one address a
 * partition lets through to the cut-off side — for clients that take a `stream` factory and call
 * `connect(port, host)` on it (node-postgres's `stream` option).
 */
export function socketFrom(address: string): () => Socket {
  return () => {
    const socket = new Socket();
    const connect = socket.connect.bind(socket) as (options: object) => Socket;
    (socket as unknown as { connect: (port: number, host: string) => Socket }).connect = (
      port,
      host,
    ) => connect({ port, host, localAddress: address });
    return socket;
  };
}
