/**
 * The HTTP server's connections, followed from the moment they are accepted, so that a
 * shutdown can stop accepting and still answer every request on a connection already made.
 *
 * A shutdown has two parts (docs/operations.md, "Shutdown"). From the signal on
 * (`beginShutdown`), every answer whose request has been read whole carries
 * `Connection: close`, so keep-alive clients leave after their next answer, while the listener
 * still accepts: the load balancer's grace. Then `drain` stops accepting and waits for every
 * connection to close.
 *
 * `http.Server#close` is not enough for that. It closes the listener at once, which resets the
 * connections the kernel has completed but Node has not accepted yet (their clients have sent
 * their requests); and it destroys every keep-alive connection between two requests, resetting
 * a request already on its way on one. The drain instead keeps the listener open until every
 * connection the kernel had completed when it began has been accepted and none has come for a
 * moment (or a second has passed), and closes it only when the kernel holds none at that
 * instant (`net.Server#close`, the listener alone); and it closes a connection with no request
 * under way only once it has been idle for a second and found idle in two turns of the event
 * loop, shutting its side first and reading to the client's close (src/cli/graceful-close.ts).
 *
 * Why not only time: libuv accepts one connection per turn of the event loop (libuv#3696),
 * and a turn can take far longer than a moment while the loop is busy (the embedded database
 * runs its statements on it). Connections queued at the drain then wait several turns, each
 * longer than any quiet period, and a listener closed after one such period resets them
 * though their clients have sent their requests. So the drain reads how many the kernel holds
 * (src/cli/accept-queue.ts) and keeps the listener open until that many more have been
 * accepted (the queue is first in, first out), or until a turn accepted none: the epoll the
 * loop polls is level-triggered, so such a turn found the queue empty. Likewise a connection
 * accepted early in a long turn has had no turn yet to read what its client sent.
 */
import cluster from 'node:cluster';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { queuedConnections } from './accept-queue.ts';
import { closeGracefully } from './graceful-close.ts';

/** The listen backlog the server binds with (Node's default). */
export const LISTEN_BACKLOG = 511;
/**
 * How long a connection may stay idle during the drain: far longer than a request already
 * sent takes to arrive, far shorter than the drain. Also how long the listener waits for a
 * quiet moment once the drain has begun, and how long a closed connection's client has to
 * close its side.
 */
const GRACE_MS = 1000;
/**
 * Once every connection queued at the drain has been accepted, the listener closes when no
 * other has been accepted for this long: a client that connected just before may be a few
 * milliseconds behind.
 */
const LISTENER_QUIET_MS = 100;
/** How often the drain looks for idle connections and a quiet listener. */
const CHECK_MS = 20;

/**
 * How many connections the kernel holds for the server to accept; undefined where that cannot
 * be known. A cluster worker under round-robin scheduling gets its connections from the
 * primary, which accepts them itself and queues them out of sight.
 */
function queuedFor(server: Server): number | undefined {
  if (cluster.isWorker && cluster.schedulingPolicy === cluster.SCHED_RR) return undefined;
  const address = server.address();
  if (!address) return 0;
  return typeof address === 'object' ? queuedConnections(address.port) : undefined;
}

/** Whether HTTP/1.1 frames a body after the request's head: a length above zero, or chunks. */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length ?? '0') !== '0';
}

/**
 * Marks the answer `Connection: close` once its request has been read whole. An answer given
 * before its body has been read (a 413, say) keeps its connection: Node then reads the rest,
 * where a close would leave those bytes unread and reset the connection, losing the answer.
 * The drain closes that connection once it is idle.
 */
function closeAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  if (response.headersSent) return;
  if (!hasBody(request) || request.complete) {
    response.setHeader('connection', 'close');
    return;
  }
  request.once('end', () => {
    if (!response.headersSent) response.setHeader('connection', 'close');
  });
}

/** A request being answered, for the log line when the drain time runs out. */
export interface RequestInFlight {
  method: string;
  path: string;
  ms: number;
}

/** What the listener saw during the drain, for its log line. */
export interface ListenerCounts {
  /** Connections the kernel held, not yet accepted, when the drain began (where known). */
  queuedAtDrain: number | undefined;
  /** Connections accepted from then until the listener closed. */
  acceptedWhileDraining: number;
}

export interface ConnectionDrain {
  /** Whether the shutdown has begun (`beginShutdown`). */
  readonly draining: boolean;
  /** From now on, answers close their connections; the listener still accepts. */
  beginShutdown(): void;
  /**
   * Stops accepting connections (`stoppedAccepting` is told when) and resolves once every
   * accepted one has closed: each request answered (its connection then closed), each idle
   * connection closed after the grace. Begins the shutdown if it has not begun. Clients that
   * keep connecting (nothing in front of the process stops them) can keep the kernel's queue
   * from ever being empty: the listener closes anyway after `listenerOpenMaxMs`, once those
   * counted in the queue when the drain began have been accepted.
   */
  drain(
    stoppedAccepting: (counts: ListenerCounts) => void,
    listenerOpenMaxMs: number,
  ): Promise<void>;
  /** What is still being answered. */
  inFlight(): RequestInFlight[];
  /** How many requests have been answered since the shutdown began. */
  answeredWhileDraining(): number;
  /** Closes every connection at once (the drain time ran out). */
  destroyAll(): void;
}

interface ConnectionState {
  requestsUnderWay: number;
  /** When it was accepted or last finished an answer. */
  idleSince: number;
  /** Its bytes read when the last look found it idle; undefined when that look did not. */
  bytesReadWhenSeenIdle?: number;
  /** Whether the drain has begun closing it. */
  closing?: boolean;
}

/**
 * Long because the server's listeners and the drain read and write the same few counts
 * (connections, requests under way, acceptances since the drain): one closure holds them,
 * where parts would have to hand them all to each other.
 */
export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, ConnectionState>();
  const answering = new Map<
    ServerResponse,
    { request: IncomingMessage; method: string; path: string; since: number }
  >();
  let draining = false;
  let drainBegan = 0;
  let accepted = 0;
  let lastAccepted = 0;
  let answeredWhileDraining = 0;

  server.on('connection', (socket: Socket) => {
    accepted++;
    lastAccepted = performance.now();
    connections.set(socket, { requestsUnderWay: 0, idleSince: performance.now() });
    socket.once('close', () => connections.delete(socket));
  });
  // First of the 'request' listeners, so the header is set before anything answers.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const state = connections.get(request.socket);
    if (state) state.requestsUnderWay++;
    answering.set(response, {
      request,
      method: request.method ?? '',
      path: (request.url ?? '').slice(0, 200),
      since: performance.now(),
    });
    if (draining) closeAfterAnswer(request, response);
    response.once('close', () => {
      answering.delete(response);
      if (draining && response.writableFinished) answeredWhileDraining++;
      if (state && --state.requestsUnderWay === 0) state.idleSince = performance.now();
    });
  });

  /**
   * Closes a connection idle for the grace since the drain began or since its last answer,
   * whichever is later, and found idle by the look before with the bytes it has read now: the
   * turn between them polled it and there was nothing more to read.
   */
  const closeIdleConnections = (now: number) => {
    for (const [socket, state] of connections) {
      if (state.closing) continue;
      if (state.requestsUnderWay > 0) {
        state.bytesReadWhenSeenIdle = undefined;
        continue;
      }
      const nothingRead = state.bytesReadWhenSeenIdle === socket.bytesRead;
      state.bytesReadWhenSeenIdle = socket.bytesRead;
      const idleFor = now - Math.max(state.idleSince, drainBegan);
      if (nothingRead && idleFor >= GRACE_MS) {
        state.closing = true;
        closeGracefully(socket, GRACE_MS);
      }
    }
  };

  const beginShutdown = () => {
    if (draining) return;
    draining = true;
    for (const [response, { request }] of answering) closeAfterAnswer(request, response);
  };

  return {
    get draining() {
      return draining;
    },
    beginShutdown,
    drain(stoppedAccepting, listenerOpenMaxMs) {
      beginShutdown();
      drainBegan = performance.now();
      const acceptedAtDrain = accepted;
      const queuedAtDrain = queuedFor(server);
      return new Promise<void>((resolve) => {
        let listening = true;
        let acceptedAtLastLook: number | undefined;
        /** Whether every connection the kernel had queued at the drain has been accepted. */
        const queuedAtDrainAccepted = (queued: number) => {
          const queueFoundEmpty = acceptedAtLastLook === accepted;
          acceptedAtLastLook = accepted;
          return queueFoundEmpty || accepted - acceptedAtDrain >= queued;
        };
        const listenerMayClose = (now: number) => {
          const open = now - drainBegan;
          const quietFor = now - Math.max(lastAccepted, drainBegan);
          // Uncounted: a second without a new connection, or the bound.
          if (queuedAtDrain === undefined) return quietFor >= GRACE_MS || open >= listenerOpenMaxMs;
          if (!queuedAtDrainAccepted(queuedAtDrain)) return false;
          if (open >= listenerOpenMaxMs) return true;
          // Read last, right before the close: one completed meanwhile would be reset.
          const quiet = quietFor >= LISTENER_QUIET_MS || open >= GRACE_MS;
          return quiet && (queuedFor(server) ?? 0) === 0;
        };
        const look = () => {
          const now = performance.now();
          if (listening && listenerMayClose(now)) {
            listening = false;
            NetServer.prototype.close.call(server, () => {
              clearInterval(checks);
              resolve();
            });
            stoppedAccepting({ queuedAtDrain, acceptedWhileDraining: accepted - acceptedAtDrain });
          }
          closeIdleConnections(now);
        };
        // Looked at in the turn's check phase, right after its poll: nothing accepted since
        // the look before means this turn's poll found the queue empty.
        const checks = setInterval(() => setImmediate(look), CHECK_MS);
      });
    },
    inFlight() {
      const now = performance.now();
      return [...answering.values()].map(({ method, path, since }) => ({
        method,
        path,
        ms: Math.round(now - since),
      }));
    },
    answeredWhileDraining: () => answeredWhileDraining,
    destroyAll() {
      for (const socket of connections.keys()) socket.destroy();
    },
  };
}
