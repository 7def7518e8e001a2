/**
 * SIGTERM with live subscriptions open, on the service as a real process: an SSE stream read
 * over plain HTTP and a graphql-ws subscription from the `graphql-ws` client. Both stay open
 * through the shutdown grace and are completed properly when the drain begins: the SSE stream
 * ends with `event: complete`, the graphql-ws subscription gets its `complete` message and then
 * the socket closes with 1001 (going away); the process exits 0.
 */
import { request, type IncomingMessage } from 'node:http';
import { createClient } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useSeededDatabase, withGateway, TEST_TIMEOUT_MS } from './helpers/gateway-process.ts';

const GRACE_SECONDS = 2;
const OFFER_CHANGED = 'subscription { offerChanged(market: SE, productId: 1) { offerId kind } }';

/** A subscription over SSE: the response, and its events as they arrive. */
function subscribeOverSse(
  port: number,
): Promise<{ response: IncomingMessage; text: () => string }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify({ query: OFFER_CHANGED });
    const sent = request(
      {
        host: '127.0.0.1',
        port,
        path: '/graphql',
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        resolve({ response, text: () => text });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

/** The events of an SSE stream's text, comments (keep-alives) left out. */
function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '' && !block.startsWith(':'))
    .map((block) => /^event: (\w+)/m.exec(block)?.[1] ?? block);
}

/** What a graphql-ws client saw of one subscription, each message marked as it came. */
function subscribeOverWebSocket(port: number) {
  /** Each message's type, and when it came (Date.now(), to compare with log lines). */
  const seen: { type: string; at: number }[] = [];
  let socketClosed!: (closed: { code: number; reason: string; at: number }) => void;
  const closed = new Promise<{ code: number; reason: string; at: number }>(
    (resolve) => (socketClosed = resolve),
  );
  let connected!: () => void;
  const opened = new Promise<void>((resolve) => (connected = resolve));
  const client = createClient({
    url: `ws://127.0.0.1:${port}/graphql`,
    webSocketImpl: WebSocket,
    // The socket stays open after its last subscription: the server is the one to close it.
    lazy: false,
    // Its close is what the test waits for, not an error to print.
    onNonLazyError: () => undefined,
    retryAttempts: 0,
    on: {
      connected: () => connected(),
      message: (message) => seen.push({ type: message.type, at: Date.now() }),
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        socketClosed({ code, reason: String(reason), at: Date.now() });
      },
    },
  });
  const ended = new Promise<string>((resolve) =>
    client.subscribe(
      { query: OFFER_CHANGED },
      {
        next: () => undefined,
        error: (error) => resolve(`error ${(error as { code?: number }).code ?? String(error)}`),
        complete: () => resolve('complete'),
      },
    ),
  );
  return { opened, seen, closed, ended, dispose: () => client.dispose() };
}

describe('SIGTERM with live subscriptions open', () => {
  const database = useSeededDatabase();

  it(
    'completes every SSE and graphql-ws subscription when the drain begins, then exits 0',
    // Long enough for the subscriptions sent before the signal to be open at the drain.
    () =>
      withGateway(
        database(),
        { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) },
        async (gateway) => {
          const { service, logLines } = gateway;
          const port = await gateway.port();
          const webSocket = subscribeOverWebSocket(port);
          try {
            await webSocket.opened;
            const sse = await subscribeOverSse(port);
            expect(sse.response.statusCode).toBe(200);
            const sseEnded = new Promise<string>((resolve) => {
              sse.response.once('end', () =>
                resolve(sse.response.complete ? 'ended' : 'cut short'),
              );
              sse.response.once('error', (error) => resolve(String(error)));
            });
            service.child.kill('SIGTERM');
            const sseEndedAs = await sseEnded;
            const sseEndedAt = Date.now();
            expect(await service.exited).toBe(0);
            const loggedAt = (message: string) =>
              Number(logLines().find((line) => line.msg === message)?.time);
            const [signalled, drained] = [loggedAt('shutting down'), loggedAt('draining')];

            expect(sseEndedAs).toBe('ended');
            expect(sseEvents(sse.text())).toEqual(['complete']);
            expect(await webSocket.ended).toBe('complete');
            const closed = await webSocket.closed;
            expect(closed).toMatchObject({ code: 1001, reason: 'Going away' });
            expect(webSocket.seen.map(({ type }) => type)).toEqual(['connection_ack', 'complete']);
            // Open through the grace; completed once the drain began, and only then closed.
            const completedAt = webSocket.seen[1]!.at;
            expect(drained - signalled).toBeGreaterThanOrEqual(GRACE_SECONDS * 1000);
            expect(sseEndedAt).toBeGreaterThanOrEqual(drained);
            expect(completedAt).toBeGreaterThanOrEqual(drained);
            expect(closed.at).toBeGreaterThanOrEqual(completedAt);
          } finally {
            await webSocket.dispose();
          }
        },
      ),
    TEST_TIMEOUT_MS,
  );
});
