/**
 * GraphQL over WebSocket (the graphql-ws protocol) on /graphql, beside yoga's own SSE: the
 * node:http server hands its upgrade requests here (src/cli/serve.ts). Each operation is
 * executed through yoga's envelop (`getEnveloped`), as graphql-yoga's graphql-ws recipe does,
 * so the schema, context, document limits and error masking are those of /graphql over HTTP;
 * so are the token rules and the request limit (`access`, src/auth/socket-access.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, type ExecutionArgs } from 'graphql';
import { CloseCode } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ErrorCode } from '../errors.ts';
import type { LiveConnection } from '../live/live-prices.ts';
import type { RequestSource } from '../proxy-trust.ts';
import { GRAPHQL_PATH, type GraphQLServer } from './yoga.ts';

/** Who may use a socket, and how much (its caller as the access module sees it). */
export interface SocketAccess<Caller> {
  /** The caller an Authorization value makes, or why it is refused (the close reason). */
  admit(authorization: string | undefined): Promise<{ caller: Caller } | { refused: string }>;
  /** Seconds to wait when one more operation is over the caller's limit; else undefined. */
  overLimit(caller: Caller, clientIp: string | undefined): Promise<number | undefined>;
}

export interface GraphQLWebSocketOptions<Caller> {
  yoga: GraphQLServer;
  access: SocketAccess<Caller>;
  /**
   * The client's address as the proxy settings read it (its subscriptions are bounded by it),
   * and the public base the URLs in its answers are built on.
   */
  sourceOf(request: IncomingMessage): RequestSource;
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

/** A socket admitted by its `connection_init`: its token, and its subscriptions' count. */
interface Session {
  authorization: string | undefined;
  connection: LiveConnection;
}

/** An operation's refusal as a graphql-ws `error` message carries it: no HTTP status. */
function socketError(code: ErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code } });
}

/**
 * The Authorization a connection presents: `authorization` in its `connection_init` payload
 * (any letter case), else the upgrade request's header.
 */
function authorizationOf(
  params: Readonly<Record<string, unknown>> | undefined,
  request: IncomingMessage,
): string | undefined {
  const key = Object.keys(params ?? {}).find((name) => name.toLowerCase() === 'authorization');
  const value = key === undefined ? undefined : params![key];
  if (typeof value === 'string') return value;
  return request.headers.authorization;
}

export function createGraphQLWebSockets<Caller>(
  options: GraphQLWebSocketOptions<Caller>,
): GraphQLWebSockets {
  const { yoga, access } = options;
  const sockets = new WebSocketServer({ noServer: true });
  const sessions = new WeakMap<WebSocket, Session>();
  /** Each socket's operations by id, as graphql-ws holds them until their `complete` is sent. */
  const operations = new WeakMap<WebSocket, Record<string, unknown>>();
  const operationsLeft = () =>
    [...sockets.clients].some((socket) => Object.keys(operations.get(socket) ?? {}).length > 0);

  /**
   * The caller an Authorization makes, else undefined once the socket is closed with the
   * reason: Forbidden, the code graphql-ws closes a refused connection_init with (its clients
   * try again, asking their connectionParams afresh: a new token).
   */
  async function admitted(socket: WebSocket, authorization: string | undefined) {
    const verdict = await access.admit(authorization);
    if ('caller' in verdict) return verdict.caller;
    socket.close(CloseCode.Forbidden, verdict.refused);
    return undefined;
  }

  let closing: Promise<void> | undefined;
  const server = useServer(
    {
      execute: (args) => (args.rootValue as Enveloped).execute(args) as never,
      subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as never,
      onConnect: async (context) => {
        const { request, socket } = context.extra;
        const authorization = authorizationOf(context.connectionParams, request);
        if ((await admitted(socket, authorization)) === undefined) return false;
        sessions.set(socket, { authorization, connection: { open: 0 } });
        return true;
      },
      onSubscribe: async (context, _id, payload) => {
        const { request, socket } = context.extra;
        operations.set(socket, context.subscriptions);
        const session = sessions.get(socket)!;
        // Checked again for each operation: a token may have expired since the socket opened.
        const caller = await admitted(socket, session.authorization);
        if (caller === undefined) return [socketError('UNAUTHENTICATED', 'the socket is closed')];
        const { clientIp, publicBase } = options.sourceOf(request);
        const retryAfter = await access.overLimit(caller, clientIp);
        if (retryAfter !== undefined) {
          return [socketError('RATE_LIMITED', `rate limit exceeded: retry after ${retryAfter} s`)];
        }
        const enveloped = yoga.getEnveloped({
          ...context,
          req: request,
          socket,
          params: payload,
          clientIp,
          publicBase,
          liveConnection: session.connection,
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
