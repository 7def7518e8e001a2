/**
 * The kernel's count of completed connections a listener has not accepted yet, read while
 * this process's loop is held (the connections are made by another process meanwhile).
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { queuedConnections } from '../../src/cli/accept-queue.ts';

/** Opens `count` connections to `port` and exits once all are made; holds this loop meanwhile. */
function connectFromAnotherProcess(port: number, count: number) {
  const script = `
const net = require('node:net');
let made = 0;
for (let i = 0; i < ${count}; i++) {
  net.connect(${port}, '127.0.0.1').on('connect', () => ++made === ${count} && process.exit(0));
}`;
  const { status, stderr } = spawnSync(process.execPath, ['-e', script], { timeout: 10_000 });
  expect(status, String(stderr)).toBe(0);
}

describe.runIf(process.platform === 'linux')('queuedConnections', () => {
  it('counts the connections waiting to be accepted, and none once accepted', async () => {
    const accepted: unknown[] = [];
    const server = createServer((socket) => {
      accepted.push(socket);
      socket.destroy();
    });
    server.listen({ port: 0, host: '127.0.0.1' });
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(queuedConnections(port)).toBe(0);
      connectFromAnotherProcess(port, 3);
      expect(queuedConnections(port)).toBe(3);

      while (accepted.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
      expect(queuedConnections(port)).toBe(0);
    } finally {
      server.close();
    }
  });

  it('is zero for a port nothing listens on', () => {
    expect(queuedConnections(1)).toBe(0);
  });
});
