/**
 * graphql-ws held to the token rules and the request limit of /graphql over HTTP, with the real
 * `graphql-ws` client over a real socket: a token in `connection_init`'s payload
 * (`connectionParams: { authorization: 'Bearer …' }`) admits the socket, and a partner's
 * subscription on it gets its events with the ref; an expired, forged, garbled or revoked one
 * closes the socket with 4403 and the message HTTP's 401 carries, also when it expires while
 * the socket is open; each operation counts against the caller's allowance, the client's with a
 * token, the address's (shared with HTTP) without.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { createApp, type App } from '../../src/app.ts';
import { issueToken, type TokenSubject } from '../../src/auth/tokens.ts';
import { announceNotice } from '../../src/changes/notices.ts';
import { loadConfig } from '../../src/config.ts';
import { deleteApiClient } from '../../src/db/repositories/api-clients.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { insertPartnerClient, tokenSubjectOf } from '../helpers/clients.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { feedPusher, waitUntil } from './live-pushes.ts';

const TOKEN_SECRET = 'graphql-ws-access-test-secret-0123456789abcdef';
const TTL_SECONDS = 600;
const SETTINGS = {
  TOKEN_SECRET,
  TOKEN_TTL_SECONDS: String(TTL_SECONDS),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
  RATE_LIMIT_CLIENT_PER_MINUTE: '0',
  RESPONSE_CACHE_TTL_SECONDS: '0',
};
const MARKETS = '{ markets { code } }';
/** How soon the process refuses a revoked client's token once told: room for a busy machine. */
const TOLD_BOUND_MS = 5_000;
/** The demo partner, as the token endpoint issues its tokens (read once its catalogue is). */
let demo: TokenSubject;

async function tokenSigned(
  secret: string,
  issuedAt = new Date(),
  subject: TokenSubject = demo,
): Promise<string> {
  const config = { tokenSecrets: [secret], tokenTtlSeconds: TTL_SECONDS };
  return (await issueToken(config, subject, { now: issuedAt })).access_token;
}

/** An app on a real port, graphql-ws on its upgrades. */
async function listening(app: App): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(app).on('upgrade', app.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}/graphql`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function clientOf(url: string, authorization?: string): Client {
  return createClient({
    url,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    connectionParams: authorization === undefined ? undefined : { authorization },
  });
}

/** One operation's result, or what ended it (a close event, or the error message's errors). */
async function runOnce(client: Client, query: string): Promise<any> {
  const results = client.iterate({ query });
  try {
    return (await results.next()).value;
  } catch (ended) {
    return ended;
  } finally {
    await results.return?.();
  }
}

describe(`graphql-ws access on ${databaseKind}`, () => {
  const catalogue = useSeededCatalogue(SETTINGS);
  const { nextTarget, push } = feedPusher(catalogue);
  let app: App;
  let served: Awaited<ReturnType<typeof listening>>;
  const clients: Client[] = [];
  const client = (authorization?: string) => {
    const made = clientOf(served.url, authorization);
    clients.push(made);
    return made;
  };

  beforeAll(async () => {
    demo = await tokenSubjectOf(catalogue.database.db, DEMO_CLIENT.id);
    app = createApp({
      config: loadConfig(SETTINGS),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    await app.listening;
    served = await listening(app);
  });
  afterAll(async () => {
    await Promise.all(clients.map((made) => made.dispose()));
    await served?.close();
    await app?.dispose();
  });

  it("admits a partner's token from connection_init; its subscription's offers carry the ref", async () => {
    const partner = client(`Bearer ${await tokenSigned(TOKEN_SECRET)}`);
    expect(await runOnce(partner, MARKETS)).toMatchObject({ data: { markets: expect.any(Array) } });

    const target = await nextTarget();
    const events = partner.iterate({
      query: `subscription($id: Int!, $ref: String!) {
        offerChanged(market: SE, productId: $id) { offerId offer { url(ref: $ref) price { value } } }
      }`,
      variables: { id: target.productId, ref: DEMO_CLIENT.ref },
    });
    const first = events.next();
    await waitUntil(() => app.liveSubscriptions() > 0);
    const newPrice = Math.max(1, Math.floor(target.lowest / 2));
    await push(target, newPrice, app);
    const { value } = await first;
    const change = (value as any).data.offerChanged;
    expect(change).toMatchObject({
      offerId: target.offerId,
      offer: { price: { value: newPrice } },
    });
    expect(new URL(change.offer.url).searchParams.get('ref')).toBe(DEMO_CLIENT.ref);
    await events.return?.();
  });

  it('closes the socket with 4403 and the 401 message for a refused token', async () => {
    const anHourAgo = new Date(Date.now() - 3600_000);
    const refused = {
      'the access token has expired': `Bearer ${await tokenSigned(TOKEN_SECRET, anHourAgo)}`,
      'the access token is invalid': `Bearer ${await tokenSigned('another-secret-0123456789abcdef')}`,
      'the Authorization header must be "Bearer <access token>"': 'Bearer',
    };
    for (const [message, authorization] of Object.entries(refused)) {
      const ended = await runOnce(client(authorization), MARKETS);
      expect(ended, authorization).toMatchObject({ code: 4403, reason: message });
    }
  });

  it('closes the socket with 4403 for a revoked client’s token, once the process is told', async () => {
    const db = catalogue.database.db;
    const revoked = await insertPartnerClient(db, {
      id: 'partner-ws-revoked',
      secret: 'a-secret-of-its-own',
      refs: [],
    });
    const authorization = `Bearer ${await tokenSigned(TOKEN_SECRET, new Date(), revoked)}`;
    expect(await runOnce(client(authorization), MARKETS)).toMatchObject({
      data: expect.any(Object),
    });
    await deleteApiClient(db, revoked.id);
    await announceNotice(db, { kind: 'clients-changed' });
    await vi.waitFor(
      async () =>
        expect(await runOnce(client(authorization), MARKETS)).toMatchObject({
          code: 4403,
          reason: 'the access token has been revoked',
        }),
      { timeout: TOLD_BOUND_MS, interval: 50 },
    );
  });

  it('closes the socket with 4403 once its token expires, at the next operation', async () => {
    // Issued so that it expires a second and a half from now.
    const issuedAt = new Date(Date.now() - TTL_SECONDS * 1000 + 1_500);
    const expiring = client(`Bearer ${await tokenSigned(TOKEN_SECRET, issuedAt)}`);
    expect(await runOnce(expiring, MARKETS)).toMatchObject({ data: expect.any(Object) });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await runOnce(expiring, MARKETS)).toMatchObject({
      code: 4403,
      reason: 'the access token has expired',
    });
  });

  describe('request limits', () => {
    let limited: App;
    let limitedServed: Awaited<ReturnType<typeof listening>>;
    beforeAll(async () => {
      limited = createApp({
        config: loadConfig({
          ...SETTINGS,
          RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2',
          RATE_LIMIT_CLIENT_PER_MINUTE: '3',
        }),
        database: catalogue.database,
        logger: pino({ level: 'silent' }),
      });
      await limited.listening;
      limitedServed = await listening(limited);
    });
    afterAll(async () => {
      await limitedServed?.close();
      await limited?.dispose();
    });

    it("counts each operation against the caller's allowance, shared with HTTP", async () => {
      const anonymous = clientOf(limitedServed.url);
      const partner = clientOf(limitedServed.url, `Bearer ${await tokenSigned(TOKEN_SECRET)}`);
      clients.push(anonymous, partner);
      // The address's allowance of 2: one HTTP request, one operation over the socket.
      const http = await fetch(limitedServed.url.replace('ws:', 'http:'), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: MARKETS }),
      });
      expect(http.status).toBe(200);
      expect(await runOnce(anonymous, MARKETS)).toMatchObject({ data: expect.any(Object) });
      const refused = await runOnce(anonymous, MARKETS);
      expect(refused).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(/^rate limit exceeded: retry after \d+ s$/),
          extensions: { code: 'RATE_LIMITED' },
        }),
      ]);
      // The partner's own allowance of 3, whatever the address has used.
      for (let operation = 0; operation < 3; operation++) {
        expect(await runOnce(partner, MARKETS)).toMatchObject({ data: expect.any(Object) });
      }
      expect(await runOnce(partner, MARKETS)).toEqual([
        expect.objectContaining({ extensions: { code: 'RATE_LIMITED' } }),
      ]);
    });
  });
});
