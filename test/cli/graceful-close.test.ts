/**
 * A connection closed gracefully (src/cli/graceful-close.ts) is shut, not reset: what its
 * client sends after the close began is still read, and the client sees an orderly end, where
 * `socket.destroy()` would answer those bytes with a reset. A client that never closes its
 * side is let go after the linger.
 */
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { closeGracefully } from '../../src/cli/graceful-close.ts';

const LINGER_MS = 1000;

describe('closeGracefully', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /** A server that closes each connection as soon as it is made, and what each sent it. */
  async function closingServer(close: (socket: Socket) => void) {
    const received: string[] = [];
    const closed: Promise<void>[] = [];
    const server = createServer((socket) => {
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('error', () => undefined);
      closed.push(once(socket, 'close').then(() => void received.push(text)));
      close(socket);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    cleanups.push(() => server.close());
    return { port: (server.address() as AddressInfo).port, received, closed };
  }

  /**
   * A client that, once the server has shut its side, writes `text` and then shuts its own:
   * how its connection ended.
   */
  async function clientWritingAfterTheClose(port: number, text: string) {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    const ended = new Promise<string>((resolve) => {
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
      socket.once('close', () => resolve('closed'));
    });
    socket.resume();
    await once(socket, 'end');
    socket.end(text);
    return ended;
  }

  it('reads what the client still sends, and ends without a reset', async () => {
    const server = await closingServer((socket) => closeGracefully(socket, LINGER_MS));
    const ended = await clientWritingAfterTheClose(server.port, 'GET / HTTP/1.1\r\n\r\n');
    await Promise.all(server.closed);
    expect(ended).toBe('closed');
    expect(server.received).toEqual(['GET / HTTP/1.1\r\n\r\n']);
  });

  it('lets a client that never closes its side go after the linger', async () => {
    const server = await closingServer((socket) => closeGracefully(socket, LINGER_MS));
    const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
    cleanups.push(() => socket.destroy());
    socket.resume();
    await once(socket, 'end');
    // The server's side is gone, though the client has kept its own open.
    await Promise.all(server.closed);
    expect(server.received).toEqual(['']);
    expect(socket.writable).toBe(true);
  });
});
