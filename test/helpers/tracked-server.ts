/**
 * A real HTTP server on a loopback port with its connections followed by the shutdown's drain
 * (src/cli/connection-drain.ts), bound as `serve` binds; `cleanups` gets what closes it.
 */
import { once } from 'node:events';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  LISTEN_BACKLOG,
  trackConnections,
  type ConnectionDrain,
} from '../../src/cli/connection-drain.ts';

export async function trackedServer(
  listener: RequestListener,
  cleanups: (() => unknown)[],
): Promise<{ server: Server; connections: ConnectionDrain; port: number }> {
  const server = createServer(listener);
  const connections = trackConnections(server);
  server.listen({ port: 0, host: '127.0.0.1', backlog: LISTEN_BACKLOG });
  await once(server, 'listening');
  cleanups.push(() => {
    connections.destroyAll();
    server.close();
  });
  return { server, connections, port: (server.address() as AddressInfo).port };
}
