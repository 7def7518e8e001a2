/**
 * The live bench's subscribers, as a frontend's would connect: GraphQL over SSE (a POST to
 * /graphql taking `text/event-stream`, read from a raw node:http response, so thousands cost
 * the bench little) and graphql-ws (the `graphql-ws` client over `ws`). Each keeps every event
 * with the moment it arrived (`Date.now()`, comparable with a run's `finishedAt` from the
 * gateway on the same machine). An SSE subscriber can stop reading its socket (a stalled
 * client) and start again.
 */
import http from 'node:http';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** One `next` of a subscription: its payload and when it arrived. */
export interface SeenEvent {
  at: number;
  payload: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

export interface Subscriber {
  readonly transport: 'sse' | 'ws';
  readonly events: SeenEvent[];
  /** Whether the stream has ended (`complete`, or the connection closed). */
  ended(): boolean;
  /**
   * Resolves once the events so far satisfy `condition` (at once if they do); rejects past
   * `timeoutMs`, or when the stream ends first.
   */
  until(condition: (events: readonly SeenEvent[]) => boolean, timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface Subscription {
  query: string;
  variables?: Record<string, unknown>;
}

/** Events and the waits for them, shared by both transports. */
function eventLog() {
  const events: SeenEvent[] = [];
  const waiters = new Set<() => void>();
  return {
    events,
    add(event: SeenEvent) {
      events.push(event);
      for (const wake of waiters) wake();
    },
    wake: () => waiters.forEach((wake) => wake()),
    until(
      condition: (events: readonly SeenEvent[]) => boolean,
      timeoutMs: number,
      ended: () => boolean,
    ) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (condition(events)) return finish(resolve);
          if (ended()) finish(() => reject(new Error('the subscription ended first')));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`not within ${timeoutMs} ms`))),
          timeoutMs,
        );
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          settle();
        };
        waiters.add(check);
        check();
      });
    },
  };
}

export interface SseSubscriber extends Subscriber {
  /** Resolves once the response's headers came: the subscription is open on the server. */
  readonly opened: Promise<void>;
  /** Stops reading the socket, as a client that hangs; `resume` reads again. */
  pause(): void;
  resume(): void;
}

/** GraphQL over SSE, "distinct connections": one subscription per request. */
export function sseSubscriber(
  baseUrl: string,
  subscription: Subscription,
  agent?: http.Agent,
): SseSubscriber {
  const log = eventLog();
  let ended = false;
  let text = '';
  let response: http.IncomingMessage | undefined;
  const request = http.request(`${baseUrl}/graphql`, {
    method: 'POST',
    agent,
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
  });
  const end = () => {
    ended = true;
    log.wake();
  };
  const opened = new Promise<void>((resolve, reject) => {
    request.on('error', (error) => {
      end();
      reject(error);
    });
    request.on('response', (answer) => {
      response = answer;
      if (answer.statusCode !== 200) {
        reject(new Error(`subscription answered ${answer.statusCode}`));
        answer.resume();
        return end();
      }
      answer.setEncoding('utf8');
      answer.on('data', (chunk: string) => {
        text += chunk;
        for (let cut = text.indexOf('\n\n'); cut >= 0; cut = text.indexOf('\n\n')) {
          const block = text.slice(0, cut);
          text = text.slice(cut + 2);
          if (/^event: complete/m.test(block)) ended = true;
          const data = /^event: next\ndata: (.*)$/m.exec(block)?.[1];
          if (data) log.add({ at: Date.now(), payload: JSON.parse(data) });
        }
      });
      answer.on('close', end);
      resolve();
    });
  });
  opened.catch(() => undefined);
  request.end(JSON.stringify(subscription));
  return {
    transport: 'sse',
    events: log.events,
    opened,
    ended: () => ended,
    until: (condition, timeoutMs) => log.until(condition, timeoutMs, () => ended),
    pause: () => response?.socket.pause(),
    resume: () => response?.socket.resume(),
    async close() {
      request.destroy();
      response?.destroy();
    },
  };
}

/** graphql-ws over a WebSocket of its own (a client per subscriber). */
export function wsSubscriber(baseUrl: string, subscription: Subscription): Subscriber {
  const log = eventLog();
  let ended = false;
  const client: Client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    lazy: false,
  });
  const end = () => {
    ended = true;
    log.wake();
  };
  client.subscribe(subscription, {
    next: (payload) => log.add({ at: Date.now(), payload: payload as SeenEvent['payload'] }),
    error: end,
    complete: end,
  });
  return {
    transport: 'ws',
    events: log.events,
    ended: () => ended,
    until: (condition, timeoutMs) => log.until(condition, timeoutMs, () => ended),
    async close() {
      await client.dispose();
    },
  };
}
