import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { startFakeTcpServer } from './fake-tcp-server.js';

describe('a fake TCP server', () => {
  it('keeps every connection, never answers by default, and sees the client go', async () => {
    const server = await startFakeTcpServer();
    const client = connect(server.port, '127.0.0.1');
    const received: Buffer[] = [];
    client.on('data', (chunk: Buffer) => received.push(chunk));
    await server.accepted(1);
    client.end('PING\r\n');
    await server.closedByClient(0);
    expect(server.sockets).toHaveLength(1);
    expect(received).toEqual([]);
    await server.close();
    expect(server.sockets[0]!.destroyed).toBe(true);
  });

  it('does what onConnection says with a connection', async () => {
    const server = await startFakeTcpServer((socket) => socket.end('bye\n'));
    const client = connect(server.port, '127.0.0.1');
    const reply = await new Promise<string>((resolve) =>
      client.once('data', (b) => resolve(`${b}`)),
    );
    expect(reply).toBe('bye\n');
    client.destroy();
    await server.close();
  });
});

describe('closeAfterEach', () => {
  it('closes what a test owned, in order, every one even when one fails', async () => {
    let hook: () => Promise<void> = async () => undefined;
    const opened = closeAfterEach((h) => (hook = h));
    const closed: string[] = [];
    opened.own({ close: () => void closed.push('first') });
    opened.own({
      close: () => {
        closed.push('second');
        throw new Error('cannot close');
      },
    });
    opened.own({ close: async () => void closed.push('third') });
    await expect(hook()).rejects.toThrow('cannot close');
    expect(closed).toEqual(['first', 'second', 'third']);
    await hook();
    expect(closed).toHaveLength(3);
  });
});
