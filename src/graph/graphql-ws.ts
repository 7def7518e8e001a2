/**
 * GraphQL over WebSocket (the graphql-ws protocol) on /graphql, beside yoga's own SSE: the
 * node:http server hands its upgrade requests here (src/cli/serve.ts). Each operation is
 * executed through yoga's envelop (`getEnveloped`), as graphql-yoga's graphql-ws recipe does,
 * so the schema, context, document limits and error masking are those of /graphql over HTTP.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { LiveConnection } from '../live/live-prices.ts';
import { GRAPHQL_PATH, type GraphQLServer } from './yoga.ts';

export interface GraphQLWebSocketOptions {
  yoga: GraphQLServer;
  /** The client's address as the proxy settings read it (its subscriptions are bounded by it). */
  clientIpOf(request: IncomingMessage): string | undefined;
  keepAliveMs: number;
}

export interface GraphQLWebSockets {
  /** node:http's 'upgrade' listener: /graphql becomes a graphql-ws socket, anything else closes. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Stops accepting sockets and closes every one (1001, going away) once its operations have
   * ended, each with its `complete` sent, or after a second at most. End the live streams
   * first (src/live/live-prices.ts `completeAll`).
   */
  close(): Promise<void>;
}

/** What the enveloped execution of one operation needs, carried as its root value. */
interface Enveloped {
  execute(args: ExecutionArgs): unknown;
  subscribe(args: ExecutionArgs): unknown;
}

/** How long `close` waits for the operations of its sockets to send their `complete`. */
const COMPLETE_WAIT_MS = 1000;

export function createGraphQLWebSockets(options: GraphQLWebSocketOptions): GraphQLWebSockets {
  const { yoga } = options;
  const sockets = new WebSocketServer({ noServer: true });
  /** Each socket's operations by id, as graphql-ws holds them until their `complete` is sent. */
  const operations = new WeakMap<WebSocket, Record<string, unknown>>();
  const operationsLeft = () =>
    [...sockets.clients].some((socket) => Object.keys(operations.get(socket) ?? {}).length > 0);
  const connections = new WeakMap<WebSocket, LiveConnection>();
  const connectionOf = (socket: WebSocket) => {
    let connection = connections.get(socket);
    if (!connection) connections.set(socket, (connection = { open: 0 }));
    return connection;
  };
  let closing: Promise<void> | undefined;
  const server = useServer(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onSubscribe: async (context, _id, payload) => {
        const { request, socket } = context.extra;
        operations.set(socket, context.subscriptions);
        const enveloped = yoga.getEnveloped({
          ...context,
          req: request,
          socket,
          params: payload,
          clientIp: options.clientIpOf(request),
          liveConnection: connectionOf(socket),
        });
        const args: ExecutionArgs = {
          schema: enveloped.schema,
          operationName: payload.operationName ?? null,
          document: enveloped.parse(payload.query),
          variableValues: payload.variables ?? null,
          contextValue: await enveloped.contextFactory(),
          rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
        };
        const errors = enveloped.validate(args.schema, args.document);
        return errors.length > 0 ? errors : args;
      },
    },
    sockets,
    options.keepAliveMs,
  );
  return {
    upgrade(request, socket, head) {
      const path = new URL(request.url ?? '/', 'http://upgrade').pathname;
      if (path !== GRAPHQL_PATH) {
        socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        return;
      }
      sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
    },
    // Shutdown closes the sockets first, then the app's disposal again: once is enough (ws
    // answers a second close with "The server is not running").
    close: () =>
      (closing ??= (async () => {
        // A close before its operation's `complete` reads as a failure to a client: a stream
        // that ended sends it a few turns later.
        const until = performance.now() + COMPLETE_WAIT_MS;
        while (operationsLeft() && performance.now() < until) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await server.dispose();
      })()),
  };
}
