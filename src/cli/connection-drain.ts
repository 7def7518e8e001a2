/**
 * The HTTP server's connections, followed from the moment they are accepted, so that a
 * shutdown can stop accepting and still answer every request on a connection already made.
 *
 * `http.Server#close` is not enough. It closes the listener at once, which resets the
 * connections the kernel has completed but Node has not accepted yet (their clients have sent
 * their requests); and it destroys every keep-alive connection between two requests, resetting
 * a request already on its way on one. The drain instead marks every answer not yet started,
 * and every later one, `Connection: close`; keeps the listener open until no connection has
 * been accepted for a moment, then closes the listener alone (`net.Server#close`); and closes
 * a connection with no request under way only once it has been idle for a second.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';

/**
 * How long a connection may stay idle during the drain: far longer than a request already
 * sent takes to arrive, far shorter than the drain. Also the longest the listener stays open
 * once the drain has begun.
 */
const GRACE_MS = 1000;
/**
 * The listener closes once no connection has been accepted for this long. Connections the
 * kernel has completed wait in its queue until Node accepts them, about one per turn of the
 * event loop while the loop is busy (the embedded database runs its statements on it), and
 * closing the listener resets those still queued, though their clients have sent requests.
 */
const LISTENER_QUIET_MS = 100;
/** How often the drain looks for idle connections and a quiet listener. */
const CHECK_MS = 20;

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
}

export function trackConnections(server: Server): ConnectionDrain {
  const connections = new Map<Socket, ConnectionState>();
  const answering = new Map<ServerResponse, { method: string; path: string; since: number }>();
  let draining = false;
  let drainBegan = 0;
  let lastAccepted = 0;
  let answeredWhileDraining = 0;

  server.on('connection', (socket: Socket) => {
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

  /** Idle for the grace since the drain began or since its last answer, whichever is later. */
  const closeIdleConnections = () => {
    const now = performance.now();
    for (const [socket, state] of connections) {
      const idleFor = now - Math.max(state.idleSince, drainBegan);
      if (state.requestsUnderWay === 0 && idleFor >= GRACE_MS) socket.destroy();
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
      return new Promise<void>((resolve) => {
        let listening = true;
        const look = () => {
          const now = performance.now();
          const quiet = now - Math.max(lastAccepted, drainBegan) >= LISTENER_QUIET_MS;
          if (listening && (quiet || now - drainBegan >= GRACE_MS)) {
            listening = false;
            stoppedAccepting();
            NetServer.prototype.close.call(server, () => {
              clearInterval(checks);
              resolve();
            });
          }
          closeIdleConnections();
        };
        // Looked at after the loop has polled its sockets, never straight after a long busy
        // stretch, when connections and requests that have arrived may not have been read.
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
