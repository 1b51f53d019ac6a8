import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { socketFrom } from './test-client-socket.js';

describe('socketFrom', () => {
  it('connects from the given address when called as connect(port, host)', async () => {
    const seen: string[] = [];
    const server = createServer((s) => {
      seen.push(s.remoteAddress ?? '');
      s.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const socket = socketFrom('127.0.0.2')();
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        socket.once('close', () => resolve());
        socket.connect(port, '127.0.0.1');
        socket.resume();
      });
      expect(seen).toEqual(['127.0.0.2']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
