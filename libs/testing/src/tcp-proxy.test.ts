import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { eventually } from './wait.js';

/** A real echo server on loopback, the far end of the proxy. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port };
}

function client(port: number): Promise<{ socket: Socket; received: () => string }> {
  return new Promise((resolve, reject) => {
    let data = '';
    const socket = connect({ host: '127.0.0.1', port }, () =>
      resolve({ socket, received: () => data }),
    );
    socket.setEncoding('utf8').on('data', (chunk: string) => (data += chunk));
    socket.on('error', reject);
  });
}

describe('startTcpProxy', () => {
  const cleanup: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanup.splice(0).reverse()) await c();
  });

  it('forwards bytes both ways, holds them while paused, and delivers them on resume', async () => {
    const echo = await echoServer();
    cleanup.push(() => new Promise((r) => echo.server.close(r)));
    const proxy: TcpProxy = await startTcpProxy({ port: echo.port });
    cleanup.push(() => proxy.close());

    const c = await client(proxy.port);
    cleanup.push(() => c.socket.destroy());
    c.socket.write('hello');
    await eventually(() => c.received() === 'hello', { description: 'echo through the proxy' });

    proxy.pause();
    c.socket.write(' world');
    await new Promise((r) => setTimeout(r, 200));
    expect(c.received()).toBe('hello');
    proxy.resume();
    await eventually(() => c.received() === 'hello world', { description: 'bytes after resume' });
  });

  it('cuts open connections and refuses new ones until healed', async () => {
    const echo = await echoServer();
    cleanup.push(() => new Promise((r) => echo.server.close(r)));
    const proxy = await startTcpProxy({ port: echo.port });
    cleanup.push(() => proxy.close());

    const c = await client(proxy.port);
    const closed = new Promise((r) => c.socket.once('close', r));
    proxy.cut();
    await closed;

    const refused = await client(proxy.port).then(
      (x) => new Promise((r) => x.socket.once('close', () => r('closed'))),
      () => 'error',
    );
    expect(['closed', 'error']).toContain(refused);

    proxy.heal();
    const again = await client(proxy.port);
    cleanup.push(() => again.socket.destroy());
    again.socket.write('back');
    await eventually(() => again.received() === 'back', { description: 'echo after heal' });
  });
  it('stalls the connections open now while new ones still work', async () => {
    const echo = await echoServer();
    cleanup.push(() => new Promise((r) => echo.server.close(r)));
    const proxy = await startTcpProxy({ port: echo.port });
    cleanup.push(() => proxy.close());

    const stalled = await client(proxy.port);
    cleanup.push(() => stalled.socket.destroy());
    proxy.stall();
    stalled.socket.write('lost');
    const fresh = await client(proxy.port);
    cleanup.push(() => fresh.socket.destroy());
    fresh.socket.write('fine');
    await eventually(() => fresh.received() === 'fine', {
      description: 'a new connection to work',
    });
    expect(stalled.received()).toBe('');
    expect(stalled.socket.destroyed).toBe(false);
  });
});
