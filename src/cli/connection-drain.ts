/**
 * The HTTP server's connections, followed from the moment they are accepted, so that a
 * shutdown can stop accepting and still answer every request on a connection already made.
 *
 * `http.Server#close` is not enough. It closes the listener at once, which resets the
 * connections the kernel has completed but Node has not accepted yet (their clients have sent
 * their requests); and it destroys every keep-alive connection between two requests, resetting
 * a request already on its way on one. The drain instead marks every answer not yet started,
 * and every later one, `Connection: close`; keeps the listener open until every connection
 * the kernel had completed at the signal has been accepted and none has come for a moment (or
 * for a second at most), then closes the listener alone (`net.Server#close`); and closes a
 * connection with no request under way only once it has been idle for a second and found idle
 * in two turns of the event loop.
 *
 * Why not only time: libuv accepts one connection per turn of the event loop (libuv#3696),
 * and a turn can take far longer than a moment while the loop is busy (the embedded database
 * runs its statements on it). Connections queued at the signal then wait several turns, each
 * longer than any quiet period, and a listener closed after one such period resets them
 * though their clients have sent their requests. So the drain reads how many the kernel holds
 * at the signal (src/cli/accept-queue.ts) and keeps the listener open until that many more
 * have been accepted (the queue is first in, first out), or until a turn accepted none: the
 * epoll the loop polls is level-triggered, so such a turn found the queue empty. Likewise a
 * connection accepted early in a long turn has had no turn yet to read what its client sent.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { queuedConnections } from './accept-queue.ts';

/**
 * The listen backlog the server binds with (Node's default, named because the drain counts on
 * it): the kernel queues at most one more completed connection than this, the bound the drain
 * uses where it cannot read how many are queued.
 */
export const LISTEN_BACKLOG = 511;
/**
 * How long a connection may stay idle during the drain: far longer than a request already
 * sent takes to arrive, far shorter than the drain. Also how long the listener waits for a
 * quiet moment once the drain has begun.
 */
const GRACE_MS = 1000;
/**
 * Once every connection queued at the signal has been accepted, the listener closes when no
 * other has been accepted for this long: a client that connected just before the signal may
 * be a few milliseconds behind.
 */
const LISTENER_QUIET_MS = 100;
/** How often the drain looks for idle connections and a quiet listener. */
const CHECK_MS = 20;

/** How many connections the kernel holds for the server to accept; at most, where unknown. */
function queuedOn(server: Server): number {
  const address = server.address();
  if (!address) return 0;
  const queued = typeof address === 'object' ? queuedConnections(address.port) : undefined;
  return queued ?? LISTEN_BACKLOG + 1;
}

/** A request being answered, for the log line when the drain time runs out. */
export interface RequestInFlight {
  method: string;
  path: string;
  ms: number;
}

export interface ConnectionDrain {
  /** Whether the drain has begun. */
  readonly draining: boolean;
  /**
   * Stops accepting connections (`stoppedAccepting` is told when) and resolves once every
   * accepted one has closed: each request answered (its connection then closed), each idle
   * connection closed after the grace.
   */
  drain(stoppedAccepting: () => void): Promise<void>;
  /** What is still being answered. */
  inFlight(): RequestInFlight[];
  /** How many requests have been answered since the drain began. */
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
}

/**
 * Long because the server's listeners and the drain read and write the same few counts
 * (connections, requests under way, acceptances since the signal): one closure holds them,
 * where parts would have to hand them all to each other.
 */
export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, ConnectionState>();
  const answering = new Map<ServerResponse, { method: string; path: string; since: number }>();
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
      method: request.method ?? '',
      path: (request.url ?? '').slice(0, 200),
      since: performance.now(),
    });
    if (draining) response.setHeader('connection', 'close');
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
      if (state.requestsUnderWay > 0) {
        state.bytesReadWhenSeenIdle = undefined;
        continue;
      }
      const nothingRead = state.bytesReadWhenSeenIdle === socket.bytesRead;
      state.bytesReadWhenSeenIdle = socket.bytesRead;
      const idleFor = now - Math.max(state.idleSince, drainBegan);
      if (nothingRead && idleFor >= GRACE_MS) socket.destroy();
    }
  };

  return {
    get draining() {
      return draining;
    },
    drain(stoppedAccepting) {
      draining = true;
      drainBegan = performance.now();
      for (const response of answering.keys()) {
        if (!response.headersSent) response.setHeader('connection', 'close');
      }
      const acceptedAtSignal = accepted;
      const queuedAtSignal = queuedOn(server);
      return new Promise<void>((resolve) => {
        let listening = true;
        let acceptedAtLastLook: number | undefined;
        /** Whether every connection the kernel had queued at the signal has been accepted. */
        const queuedAtSignalAccepted = () => {
          const queueFoundEmpty = acceptedAtLastLook === accepted;
          acceptedAtLastLook = accepted;
          return queueFoundEmpty || accepted - acceptedAtSignal >= queuedAtSignal;
        };
        const look = () => {
          const now = performance.now();
          const settled = queuedAtSignalAccepted();
          const quiet = now - Math.max(lastAccepted, drainBegan) >= LISTENER_QUIET_MS;
          if (listening && settled && (quiet || now - drainBegan >= GRACE_MS)) {
            listening = false;
            stoppedAccepting();
            NetServer.prototype.close.call(server, () => {
              clearInterval(checks);
              resolve();
            });
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
