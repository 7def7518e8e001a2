/**
 * Answers once a shutdown has begun (src/cli/connection-drain.ts), on a real server: an
 * answer whose request has been read whole closes its connection (`Connection: close`); an
 * answer given before its request's body has been read (a 413 at the head, say) keeps the
 * connection, so that the server reads the rest of the body instead of closing on unread bytes
 * (a reset, which can cost the client the answer), and the drain closes it afterwards, with
 * no reset.
 */
import { once } from 'node:events';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { trackedServer } from '../helpers/tracked-server.ts';

/** Far more than the socket buffers hold, so that most of it is written after the answer. */
const BODY_BYTES = 16 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'a');

describe('answers during a shutdown', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /** /early answers 413 without reading the body; anything else reads it, then answers 200. */
  async function shuttingDownServer() {
    const { port, connections } = await trackedServer((request, response) => {
      if (request.url === '/early') {
        response.statusCode = 413;
        response.end('too large');
        return;
      }
      request.resume();
      request.on('end', () => response.end('read'));
    }, cleanups);
    connections.beginShutdown();
    return { port, connections };
  }

  /**
   * A POST of BODY_BYTES to `path`, its body written whole whatever the server answers: what
   * came back, and how the connection ended.
   */
  async function post(port: number, path: string) {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    const ended = new Promise<string>((resolve) => {
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
      socket.once('close', () => resolve('closed'));
    });
    await once(socket, 'connect');
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY_BYTES}\r\n\r\n`);
    let written = 0;
    let bodyWritten = false;
    while (written < BODY_BYTES && !socket.destroyed) {
      const chunk = CHUNK.subarray(0, Math.min(CHUNK.length, BODY_BYTES - written));
      written += chunk.length;
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain'), ended]);
    }
    bodyWritten = written === BODY_BYTES && !socket.destroyed;
    return { socket, bodyWritten, ended, received: () => received };
  }

  it('closes the connection of an answer whose request was read whole', async () => {
    const { port } = await shuttingDownServer();
    const client = await post(port, '/read');
    expect(await client.ended).toBe('closed');
    expect(client.bodyWritten).toBe(true);
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(client.received().toLowerCase()).toContain('connection: close');
  });

  it('reads the body an early answer left, then the drain closes the connection without a reset', async () => {
    const { port, connections } = await shuttingDownServer();
    const client = await post(port, '/early');
    expect(client.bodyWritten).toBe(true);
    await connections.drain(() => undefined, 1000);
    expect(await client.ended).toBe('closed');
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 Payload Too Large\r\n/);
    expect(client.received()).toMatch(/\r\n\r\ntoo large$/);
  });
});
