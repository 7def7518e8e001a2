/**
 * Brute-force protection on the token endpoint (src/auth/token-attempts.ts): failed client
 * authentications are limited per client id and per client IP, a locked id or IP gets no
 * token even for the right secret until its window closes, and none of it touches the read
 * routes' rate limit. The limiter alone, counting in this process, on a clock the test moves
 * (the counters read Date; test/scale/processes-limits.test.ts counts in Redis); the endpoint
 * on a real database; the app on a socket behind a trusted proxy, so each test client has its
 * own IP.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { hashClientSecret } from '../../src/auth/client-secrets.ts';
import {
  createTokenAttemptLimiter,
  createTokenAttemptLimiterFromConfig,
  type TokenAttemptLimiterOptions,
} from '../../src/auth/token-attempts.ts';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import { packageVersion } from '../../src/version.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { handleTokenRequest, TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { databaseKind } from '../helpers/database.ts';
import { sendRaw, serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { countersInProcess } from '../helpers/limit-counters.ts';

const catalogue = useSeededCatalogue();
/** A client beside the seeded catalogue's demo client. */
const OTHER = { id: 'other-partner', secret: 'other-secret' };

beforeAll(async () => {
  const secretHash = await hashClientSecret(OTHER.secret);
  await catalogue.database.db
    .insertInto('api_clients')
    .values({ id: OTHER.id, name: OTHER.id, secret_hash: secretHash })
    .execute();
});

const WINDOW_MS = 15 * 60_000;

function limiterOf(options: Partial<TokenAttemptLimiterOptions>) {
  return createTokenAttemptLimiter({
    failuresPerClient: 3,
    failuresPerIp: 10,
    windowSeconds: WINDOW_MS / 1000,
    counters: countersInProcess(),
    ...options,
  });
}

// Only Date: the counters' windows close by it; the database and scrypt keep real time.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const clock = { advance: (ms: number) => vi.setSystemTime(Date.now() + ms) };

/** What a verify step answers: a client for the right secret, nothing for a wrong one. */
const right = async () => ({ id: 'acme' });
const wrong = async () => undefined;

describe('the attempt limiter', () => {
  it('locks a client id after its failures, for the right secret too, until the window closes', async () => {
    const limiter = limiterOf({});
    for (let i = 0; i < 3; i++) {
      expect(await limiter.attempt('acme', '10.0.0.1', wrong)).toEqual({
        locked: false,
        result: undefined,
      });
    }
    let verified = 0;
    const counted = async () => {
      verified += 1;
      return { id: 'acme' };
    };
    // From any address: the lock is the client id's.
    for (const ip of ['10.0.0.1', '10.0.0.2']) {
      expect(await limiter.attempt('acme', ip, counted)).toEqual({
        locked: true,
        retryAfterSeconds: 900,
      });
    }
    expect(verified).toBe(0);
    expect(await limiter.attempt('globex', '10.0.0.1', right)).toEqual({
      locked: false,
      result: { id: 'acme' },
    });

    clock.advance(WINDOW_MS - 1_500);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual({
      locked: true,
      retryAfterSeconds: 2,
    });
    clock.advance(1_500);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual({
      locked: false,
      result: { id: 'acme' },
    });
  });

  it('counts the window from the first failure: later ones do not extend it', async () => {
    const limiter = limiterOf({});
    await limiter.attempt('acme', '10.0.0.1', wrong);
    clock.advance(10 * 60_000);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual({
      locked: true,
      retryAfterSeconds: 300,
    });
  });

  it('gives each IP a budget of failures over every client id, known or not', async () => {
    const limiter = limiterOf({ failuresPerClient: 100, failuresPerIp: 4 });
    for (const id of ['a', 'b', 'c', 'not a valid id!']) {
      expect((await limiter.attempt(id, '10.0.0.1', wrong)).locked).toBe(false);
    }
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual({
      locked: true,
      retryAfterSeconds: 900,
    });
    expect((await limiter.attempt('acme', '10.0.0.2', right)).locked).toBe(false);
    // Without an address (no socket) callers share one budget.
    for (const id of ['a', 'b', 'c', 'd']) await limiter.attempt(id, undefined, wrong);
    expect((await limiter.attempt('acme', undefined, right)).locked).toBe(true);
    clock.advance(WINDOW_MS);
    expect((await limiter.attempt('acme', '10.0.0.1', right)).locked).toBe(false);
  });

  it('counts neither a success nor an attempt that failed for another reason', async () => {
    const limiter = limiterOf({ failuresPerClient: 2 });
    for (let i = 0; i < 5; i++) await limiter.attempt('acme', '10.0.0.1', right);
    const outage = () => Promise.reject(new Error('database down'));
    for (let i = 0; i < 5; i++) {
      await expect(limiter.attempt('acme', '10.0.0.1', outage)).rejects.toThrow('database down');
    }
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect((await limiter.attempt('acme', '10.0.0.1', right)).locked).toBe(false);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect((await limiter.attempt('acme', '10.0.0.1', right)).locked).toBe(true);
  });

  it('counts attempts under way: a burst of parallel guesses gets no more than the limit', async () => {
    const limiter = limiterOf({ failuresPerClient: 3 });
    let verified = 0;
    const slowly = (answer: { id: string } | undefined) => async () => {
      verified += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return answer;
    };
    const burst = (answer: { id: string } | undefined) =>
      Promise.all(
        Array.from({ length: 20 }, () => limiter.attempt('acme', '10.0.0.1', slowly(answer))),
      );

    // Refused while the three under way might still fail: told to retry in a second.
    const rightSecrets = await burst({ id: 'acme' });
    expect(verified).toBe(3);
    expect(rightSecrets.filter((outcome) => !outcome.locked)).toHaveLength(3);
    expect(rightSecrets.filter((outcome) => outcome.locked)).toEqual(
      Array(17).fill({ locked: true, retryAfterSeconds: 1 }),
    );
    // They succeeded: nothing is counted, and the next burst gets three tries again, no more.
    verified = 0;
    await burst(undefined);
    expect(verified).toBe(3);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual({
      locked: true,
      retryAfterSeconds: 900,
    });
  });

  it('treats 0 as unlimited, per kind of key', async () => {
    const limiter = limiterOf({ failuresPerClient: 0, failuresPerIp: 2 });
    await limiter.attempt('acme', '10.0.0.1', wrong);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect((await limiter.attempt('acme', '10.0.0.1', right)).locked).toBe(true);
    expect((await limiter.attempt('acme', '10.0.0.2', right)).locked).toBe(false);

    const unlimited = limiterOf({ failuresPerClient: 0, failuresPerIp: 0 });
    for (let i = 0; i < 50; i++) await unlimited.attempt('acme', '10.0.0.1', wrong);
    expect((await unlimited.attempt('acme', '10.0.0.1', right)).locked).toBe(false);
  });

  it('starts each key afresh once its window has closed', async () => {
    const limiter = limiterOf({ failuresPerClient: 1, failuresPerIp: 2 });
    for (const id of ['a', 'b']) await limiter.attempt(id, 'ip-x', wrong);
    expect((await limiter.attempt('a', 'ip-y', right)).locked).toBe(true);
    expect((await limiter.attempt('c', 'ip-x', right)).locked).toBe(true);
    clock.advance(WINDOW_MS);
    expect((await limiter.attempt('a', 'ip-x', right)).locked).toBe(false);
    expect((await limiter.attempt('b', 'ip-x', right)).locked).toBe(false);
  });

  it('takes its limits from the configuration', async () => {
    const limiter = createTokenAttemptLimiterFromConfig(
      loadConfig({ TOKEN_FAILURES_PER_CLIENT: '1', TOKEN_FAILURE_WINDOW_SECONDS: '60' }),
      countersInProcess(),
    );
    await limiter.attempt('acme', '10.0.0.1', wrong);
    const outcome = await limiter.attempt('acme', '10.0.0.1', right);
    expect(outcome.locked && outcome.retryAfterSeconds).toBe(60);
  });
});

// --- the endpoint ---------------------------------------------------------------------------

const TOKEN_CONFIG = { tokenSecret: 's'.repeat(40), tokenTtlSeconds: 3600 };
const REQUEST_ID = 'req-brute-force';

/** The error body the OpenAPI document promises for the token endpoint. */
const documentedTokenError = new Ajv2020({ strict: true }).compile(
  buildOpenApiDocument(restRoutes, { version: packageVersion() }).components.schemas.TokenError!,
);

describe(`POST ${TOKEN_PATH} under the attempt limits on ${databaseKind}`, () => {
  function endpoint(options: Partial<TokenAttemptLimiterOptions> = {}) {
    const attempts = limiterOf(options);
    const post = (id: string, secret: string, clientIp = '198.51.100.1') =>
      handleTokenRequest(
        new Request(`http://test${TOKEN_PATH}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'client_credentials',
            client_id: id,
            client_secret: secret,
          }).toString(),
        }),
        {
          db: catalogue.database.db,
          config: TOKEN_CONFIG,
          requestId: REQUEST_ID,
          attempts,
          clientIp,
        },
      );
    return { clock, post };
  }

  /** A lockout: 429 in the endpoint's own RFC 6749 body, with Retry-After, never cached. */
  async function expectLocked(response: Response, retryAfterSeconds: number) {
    const body = await response.json();
    expect(response.status, JSON.stringify(body)).toBe(429);
    expect(documentedTokenError(body), JSON.stringify(documentedTokenError.errors)).toBe(true);
    expect(body).toEqual({
      error: 'temporarily_unavailable',
      error_description: `too many failed attempts: retry after ${retryAfterSeconds} s`,
      request_id: REQUEST_ID,
    });
    expect(response.headers.get('retry-after')).toBe(String(retryAfterSeconds));
    expect(response.headers.get('cache-control')).toBe('no-store');
  }

  it('locks a client id after its failures, right secret included, while another client gets tokens', async () => {
    const { clock, post } = endpoint();
    for (let i = 0; i < 3; i++) expect((await post(DEMO_CLIENT.id, 'guess')).status).toBe(400);
    await expectLocked(await post(DEMO_CLIENT.id, 'guess'), 900);
    await expectLocked(await post(DEMO_CLIENT.id, DEMO_CLIENT.secret), 900);
    await expectLocked(await post(DEMO_CLIENT.id, DEMO_CLIENT.secret, '203.0.113.9'), 900);
    expect((await post(OTHER.id, OTHER.secret)).status).toBe(200);

    clock.advance(WINDOW_MS);
    const response = await post(DEMO_CLIENT.id, DEMO_CLIENT.secret);
    expect(response.status).toBe(200);
    expect((await response.json()).access_token).toEqual(expect.any(String));
  });

  it('treats an unknown client id exactly as a known one: the same answers, the same lockout', async () => {
    const { post } = endpoint();
    const answers = async (id: string) => {
      const texts = [];
      for (let i = 0; i < 5; i++) {
        const response = await post(id, 'guess');
        texts.push([response.status, response.headers.get('retry-after'), await response.text()]);
      }
      return texts;
    };
    const known = await answers(DEMO_CLIENT.id);
    expect(known.map(([status]) => status)).toEqual([400, 400, 400, 429, 429]);
    expect(await answers('nobody')).toEqual(known);
  });

  it('gives an IP a budget of failures over every client id; another IP still gets tokens', async () => {
    const { clock, post } = endpoint({ failuresPerClient: 10, failuresPerIp: 4 });
    for (const id of ['nobody', 'someone', DEMO_CLIENT.id, OTHER.id]) {
      expect((await post(id, 'guess')).status).toBe(400);
    }
    await expectLocked(await post(OTHER.id, OTHER.secret), 900);
    expect((await post(OTHER.id, OTHER.secret, '203.0.113.9')).status).toBe(200);
    clock.advance(WINDOW_MS);
    expect((await post(OTHER.id, OTHER.secret)).status).toBe(200);
  });
});

// --- the app --------------------------------------------------------------------------------

describe(`a tripped token limit and the read routes on ${databaseKind}`, () => {
  let served: ServedApp;

  beforeAll(async () => {
    served = await serveApp(catalogue.database, {
      // The test is the trusted proxy: X-Forwarded-For names each request's client IP.
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '6',
      TOKEN_FAILURES_PER_CLIENT: '2',
      TOKEN_FAILURES_PER_IP: '4',
    });
  });
  afterAll(() => served?.close());

  const from = (ip: string): [string, string] => ['X-Forwarded-For', ip];

  function tokenRequest(ip: string, secret: string, id: string = DEMO_CLIENT.id) {
    return sendRaw(served.port, {
      method: 'POST',
      target: TOKEN_PATH,
      headers: [from(ip), ['Content-Type', 'application/x-www-form-urlencoded']],
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: id,
        client_secret: secret,
      }).toString(),
    });
  }

  function readRoutes(ip: string) {
    const query = JSON.stringify({ query: '{ markets { code } }' });
    return Promise.all([
      sendRaw(served.port, {
        method: 'GET',
        target: '/suggestions?market=se&limit=1',
        headers: [from(ip)],
      }),
      sendRaw(served.port, {
        method: 'POST',
        target: '/graphql',
        headers: [from(ip), ['Content-Type', 'application/json']],
        body: query,
      }),
    ]);
  }

  it('leaves the same IP its read routes, whichever token limit tripped', async () => {
    const ip = '203.0.113.10';
    const attempts: [string, string][] = [
      ['nobody', 'guess'],
      ['nobody', 'guess'],
      ['nobody', 'guess'], // the client id's two failures are spent
      ['a', 'guess'],
      ['b', 'guess'],
      [DEMO_CLIENT.id, DEMO_CLIENT.secret], // the IP's four are spent
      [DEMO_CLIENT.id, DEMO_CLIENT.secret], // the seventh request in a minute
    ];
    const answers = [];
    for (const [id, secret] of attempts) {
      const response = await tokenRequest(ip, secret, id);
      answers.push(response.status === 429 ? response.body.error_description : response.status);
      if (response.status === 429) {
        expect(response.body.error).toBe('temporarily_unavailable');
        expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    }
    expect(answers).toEqual([
      400,
      400,
      expect.stringMatching(/^too many failed attempts/),
      400,
      400,
      expect.stringMatching(/^too many failed attempts/),
      expect.stringMatching(/^rate limit exceeded/),
    ]);

    const [suggestions, graphql] = await readRoutes(ip);
    expect(suggestions.status, suggestions.text).toBe(200);
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body.data.markets).toHaveLength(7);
  });

  it('gives another IP its tokens, but not for the client id that is locked', async () => {
    const elsewhere = '203.0.113.11';
    expect((await tokenRequest(elsewhere, DEMO_CLIENT.secret)).status).toBe(200);
    expect((await tokenRequest(elsewhere, 'guess', 'nobody')).status).toBe(429);
  });
});
