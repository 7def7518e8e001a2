/**
 * Brute-force protection on the token endpoint (src/auth/token-attempts.ts): failed client
 * authentications delay the address they come from, alone and with the client id it named,
 * by delays that double up to a cap; a client id's failures from elsewhere never refuse its
 * right secret, they only warn; and none of it touches the read routes' rate limit. The
 * limiter alone, counting in this process, on a clock the test moves (the counters read Date);
 * the endpoint on a real database; the app on a socket, reached from two loopback addresses,
 * counting in this process and in Redis.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  inject,
  it,
  vi,
} from 'vitest';
import { hashClientSecret } from '../../src/auth/client-secrets.ts';
import {
  createTokenAttemptLimiter,
  createTokenAttemptLimiterFromConfig,
  type TokenAttemptLimiterOptions,
} from '../../src/auth/token-attempts.ts';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import { createMetrics } from '../../src/metrics.ts';
import { packageVersion } from '../../src/version.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { handleTokenRequest, TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { databaseKind } from '../helpers/database.ts';
import { sendRaw, serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { countersInProcess } from '../helpers/limit-counters.ts';
import { keptLines } from '../helpers/kept-lines.ts';
import { removeKeys } from '../helpers/redis.ts';

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
    failuresPerIp: 10,
    failuresPerIpAndClient: 3,
    maxDelaySeconds: 8,
    windowSeconds: WINDOW_MS / 1000,
    failuresPerClientWarning: 0,
    counters: countersInProcess(),
    ...options,
  });
}

/** What a verify step answers: a client for the right secret, nothing for a wrong one. */
const right = async () => ({ id: 'acme' });
const wrong = async () => undefined;
const passed = { throttled: false, result: { id: 'acme' } };
const failed = { throttled: false, result: undefined };
const throttled = (retryAfterSeconds: number) => ({ throttled: true, retryAfterSeconds });

/**
 * Fakes only Date for the describe it is called in: the counters' windows and the delays end
 * by it; the database and scrypt keep real time. Returns how to move it on.
 */
function useMovingDate() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  return (ms: number) => vi.setSystemTime(Date.now() + ms);
}

describe('the attempt limiter', () => {
  const advance = useMovingDate();

  it('delays an address past its free failures for a client id, doubling up to the cap', async () => {
    const limiter = limiterOf({});
    for (let i = 0; i < 2; i++)
      expect(await limiter.attempt('acme', '10.0.0.1', wrong)).toEqual(failed);
    const delays = [];
    for (let i = 0; i < 6; i++) {
      expect(await limiter.attempt('acme', '10.0.0.1', wrong)).toEqual(failed);
      const outcome = await limiter.attempt('acme', '10.0.0.1', right);
      delays.push(outcome.throttled && outcome.retryAfterSeconds);
      if (outcome.throttled) advance(outcome.retryAfterSeconds * 1000);
    }
    // Three free failures, then 1 s, doubling, up to the 8 s cap.
    expect(delays).toEqual([1, 2, 4, 8, 8, 8]);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(passed);
  });

  it('never refuses the right secret from an address that has not failed, whatever other addresses did', async () => {
    const limiter = limiterOf({ maxDelaySeconds: 900 });
    for (let i = 0; i < 9; i++) await limiter.attempt('acme', '10.0.0.1', wrong);
    for (let i = 0; i < 50; i++) await limiter.attempt('acme', `10.0.1.${i}`, wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
    let verified = 0;
    const counted = async () => {
      verified += 1;
      return { id: 'acme' };
    };
    expect(await limiter.attempt('acme', '10.0.0.2', counted)).toEqual(passed);
    expect(verified).toBe(1);
  });

  it('holds an address back over every client id once it has spent its own free failures', async () => {
    const limiter = limiterOf({ failuresPerIp: 4, failuresPerIpAndClient: 100 });
    for (const id of ['a', 'b', 'c', 'not a valid id!']) {
      expect(await limiter.attempt(id, '10.0.0.1', wrong)).toEqual(failed);
    }
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
    expect(await limiter.attempt('acme', '10.0.0.2', right)).toEqual(passed);
    // Without an address (no socket) callers share one.
    for (const id of ['a', 'b', 'c', 'd']) await limiter.attempt(id, undefined, wrong);
    expect((await limiter.attempt('acme', undefined, right)).throttled).toBe(true);
    advance(1000);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(passed);
  });

  it('gives the free failures back once the window that opened with the first has closed', async () => {
    const limiter = limiterOf({ failuresPerIpAndClient: 2 });
    await limiter.attempt('acme', '10.0.0.1', wrong);
    advance(10 * 60_000);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    advance(1000);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(2));
    // The window closes 15 minutes after the first failure, not the last: two free again.
    advance(5 * 60_000);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', wrong)).toEqual(failed);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
  });

  it('counts neither a success nor an attempt that failed for another reason', async () => {
    const limiter = limiterOf({ failuresPerIpAndClient: 2 });
    for (let i = 0; i < 5; i++) await limiter.attempt('acme', '10.0.0.1', right);
    const outage = () => Promise.reject(new Error('database down'));
    for (let i = 0; i < 5; i++) {
      await expect(limiter.attempt('acme', '10.0.0.1', outage)).rejects.toThrow('database down');
    }
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(passed);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
  });

  it('counts attempts under way: a burst of parallel guesses gets no more than the free failures, then one at a time', async () => {
    const limiter = limiterOf({ failuresPerIpAndClient: 3 });
    let verified = 0;
    const slowly = (answer: { id: string } | undefined) => async () => {
      verified += 1;
      await new Promise((resolve) => setImmediate(resolve));
      return answer;
    };
    const burst = async (answer: { id: string } | undefined) => {
      verified = 0;
      return Promise.all(
        Array.from({ length: 20 }, () => limiter.attempt('acme', '10.0.0.1', slowly(answer))),
      );
    };

    // Refused while the three under way might still fail: told to retry in a second.
    const rightSecrets = await burst({ id: 'acme' });
    expect(verified).toBe(3);
    expect(rightSecrets.filter((outcome) => !outcome.throttled)).toHaveLength(3);
    expect(rightSecrets.filter((outcome) => outcome.throttled)).toEqual(
      Array(17).fill(throttled(1)),
    );
    // They succeeded: nothing is counted, and the next burst gets three tries again, no more.
    await burst(undefined);
    expect(verified).toBe(3);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
    // Past the free failures, one try per delay, however many are sent at once.
    advance(1000);
    await burst(undefined);
    expect(verified).toBe(1);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(2));
  });

  it('treats 0 as never delayed, per kind of key', async () => {
    const limiter = limiterOf({ failuresPerIpAndClient: 0, failuresPerIp: 2 });
    await limiter.attempt('acme', '10.0.0.1', wrong);
    await limiter.attempt('acme', '10.0.0.1', wrong);
    expect((await limiter.attempt('acme', '10.0.0.1', right)).throttled).toBe(true);
    expect((await limiter.attempt('acme', '10.0.0.2', right)).throttled).toBe(false);

    const unlimited = limiterOf({ failuresPerIpAndClient: 0, failuresPerIp: 0 });
    for (let i = 0; i < 50; i++) await unlimited.attempt('acme', '10.0.0.1', wrong);
    expect((await unlimited.attempt('acme', '10.0.0.1', right)).throttled).toBe(false);
  });

  it("warns once a window when a client id's failures from anywhere reach the threshold, and refuses nothing for it", async () => {
    const { lines, logger } = keptLines('warn');
    const metrics = createMetrics(
      {
        statementCount: () => 0,
        databases: () => [],
        pools: () => [],
        onStatement: () => () => {},
      },
      '',
    );
    const limiter = limiterOf({
      failuresPerClientWarning: 5,
      signals: { logger, metrics },
    });
    for (let i = 0; i < 12; i++) await limiter.attempt('acme', `10.0.0.${i}`, wrong);
    for (let i = 0; i < 3; i++) await limiter.attempt('x'.repeat(100), '10.0.1.1', wrong);
    for (let i = 0; i < 2; i++) await limiter.attempt('x'.repeat(100), '10.0.1.2', wrong);
    expect(await limiter.attempt('acme', '10.0.0.99', right)).toEqual(passed);

    const warning = 'token requests: many failed authentications for one client id';
    expect(
      lines.map(({ msg, tokenClientId, clientIp, failures }) => ({
        msg,
        tokenClientId,
        clientIp,
        failures,
      })),
    ).toEqual([
      { msg: warning, tokenClientId: 'acme', clientIp: '10.0.0.4', failures: 5 },
      // An id no client can have is never written out: it could be 8 KiB of anything.
      { msg: warning, tokenClientId: '(malformed)', clientIp: '10.0.1.2', failures: 5 },
    ]);
    const exposition = await (await metrics.respond()).text();
    expect(exposition).toMatch(/^catalogue_token_failures_total 17$/m);
    expect(exposition).toMatch(/^catalogue_token_client_warnings_total 2$/m);
    expect(exposition).not.toContain('acme');

    advance(WINDOW_MS);
    for (let i = 0; i < 5; i++) await limiter.attempt('acme', `10.0.2.${i}`, wrong);
    expect(lines).toHaveLength(3);
  });

  it('takes its limits from the configuration', async () => {
    const limiter = createTokenAttemptLimiterFromConfig(
      loadConfig({
        TOKEN_FAILURES_PER_IP_AND_CLIENT: '1',
        TOKEN_FAILURE_MAX_DELAY_SECONDS: '1',
        TOKEN_FAILURE_WINDOW_SECONDS: '60',
      }),
      countersInProcess(),
    );
    for (let i = 0; i < 3; i++) {
      await limiter.attempt('acme', '10.0.0.1', wrong);
      const outcome = await limiter.attempt('acme', '10.0.0.1', right);
      expect(outcome.throttled && outcome.retryAfterSeconds).toBe(1);
      advance(1000);
    }
    advance(60_000);
    // A new window: one free failure again, then the delay.
    expect(await limiter.attempt('acme', '10.0.0.1', wrong)).toEqual(failed);
    expect(await limiter.attempt('acme', '10.0.0.1', right)).toEqual(throttled(1));
  });
});

// --- the endpoint ---------------------------------------------------------------------------

const TOKEN_CONFIG = { tokenSecrets: ['s'.repeat(40)], tokenTtlSeconds: 3600 };
const REQUEST_ID = 'req-brute-force';

/** The error body the OpenAPI document promises for the token endpoint. */
const documentedTokenError = new Ajv2020({ strict: true }).compile(
  buildOpenApiDocument(restRoutes, { version: packageVersion() }).components.schemas.TokenError!,
);

describe(`POST ${TOKEN_PATH} under the failure delays on ${databaseKind}`, () => {
  const advance = useMovingDate();

  function endpoint(options: Partial<TokenAttemptLimiterOptions> = {}) {
    const attempts = limiterOf(options);
    return (id: string, secret: string, clientIp = '198.51.100.1') =>
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
  }

  /** A delay: 429 in the endpoint's own RFC 6749 body, with Retry-After, never cached. */
  async function expectThrottled(response: Response, retryAfterSeconds: number) {
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

  it('delays the failing address, right secret included, while another address gets its token', async () => {
    const post = endpoint();
    for (let i = 0; i < 3; i++) expect((await post(DEMO_CLIENT.id, 'guess')).status).toBe(400);
    await expectThrottled(await post(DEMO_CLIENT.id, 'guess'), 1);
    await expectThrottled(await post(DEMO_CLIENT.id, DEMO_CLIENT.secret), 1);
    const elsewhere = await post(DEMO_CLIENT.id, DEMO_CLIENT.secret, '203.0.113.9');
    expect(elsewhere.status).toBe(200);
    expect((await elsewhere.json()).access_token).toEqual(expect.any(String));

    advance(1000);
    expect((await post(DEMO_CLIENT.id, 'guess')).status).toBe(400);
    await expectThrottled(await post(DEMO_CLIENT.id, DEMO_CLIENT.secret), 2);
    advance(2000);
    expect((await post(DEMO_CLIENT.id, DEMO_CLIENT.secret)).status).toBe(200);
  });

  it('treats an unknown client id exactly as a known one: the same answers, the same delays', async () => {
    const post = endpoint();
    const answers = async (id: string, clientIp: string) => {
      const texts = [];
      for (let i = 0; i < 5; i++) {
        const response = await post(id, 'guess', clientIp);
        texts.push([response.status, response.headers.get('retry-after'), await response.text()]);
      }
      return texts;
    };
    const known = await answers(DEMO_CLIENT.id, '198.51.100.1');
    expect(known.map(([status]) => status)).toEqual([400, 400, 400, 429, 429]);
    expect(await answers('nobody', '198.51.100.2')).toEqual(known);
  });

  it('delays an address over every client id; another address still gets tokens', async () => {
    const post = endpoint({ failuresPerIpAndClient: 10, failuresPerIp: 4 });
    for (const id of ['nobody', 'someone', DEMO_CLIENT.id, OTHER.id]) {
      expect((await post(id, 'guess')).status).toBe(400);
    }
    await expectThrottled(await post(OTHER.id, OTHER.secret), 1);
    expect((await post(OTHER.id, OTHER.secret, '203.0.113.9')).status).toBe(200);
    advance(1000);
    expect((await post(OTHER.id, OTHER.secret)).status).toBe(200);
  });
});

// --- the app on a socket ----------------------------------------------------------------------

interface TokenAnswer {
  status: number;
  retryAfter: string | undefined;
  body: { error_description?: string; access_token?: string };
}

/**
 * A token request over node:http from the loopback address `from`: the service sees it as the
 * socket's address, as it sees a partner's without a proxy in front.
 */
function tokenRequestFrom(
  port: number,
  from: string,
  id: string,
  secret: string,
): Promise<TokenAnswer> {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    client_id: id,
    client_secret: secret,
  }).toString();
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      {
        host: '127.0.0.1',
        port,
        localAddress: from,
        method: 'POST',
        path: TOKEN_PATH,
        headers: { 'content-type': 'application/x-www-form-urlencoded', connection: 'close' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode!,
            retryAfter: response.headers['retry-after'],
            body: JSON.parse(text),
          }),
        );
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(form);
  });
}

const redisUrl = inject('redisUrl');
const redisPrefix = `test-brute-force-${randomBytes(4).toString('hex')}:`;

describe.each<{ counted: string; env: Record<string, string> }>([
  { counted: 'in this process', env: {} },
  { counted: 'in Redis', env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix } },
])(
  `guesses from 127.0.0.2, a partner at 127.0.0.3, counted $counted, on ${databaseKind}`,
  ({ env }) => {
    let served: ServedApp;
    const { lines, logger } = keptLines();

    beforeAll(async () => {
      served = await serveApp(
        catalogue.database,
        {
          ...env,
          TOKEN_FAILURES_PER_IP_AND_CLIENT: '2',
          TOKEN_FAILURES_PER_IP: '4',
          TOKEN_FAILURES_PER_CLIENT_WARNING: '3',
        },
        logger,
      );
    });
    afterAll(async () => {
      await served?.close();
      if ('REDIS_URL' in env) await removeKeys(redisUrl, redisPrefix);
    });

    const token = (from: string, id: string, secret: string) =>
      tokenRequestFrom(served.port, from, id, secret);
    /** Waits out a Retry-After, as a client following it would. */
    const waitOut = (answer: TokenAnswer) => sleep(Number(answer.retryAfter) * 1000);

    it('slows the guesser with growing delays; the right secret from elsewhere gets its token at once', async () => {
      const guesses = [];
      for (let i = 0; i < 3; i++)
        guesses.push(await token('127.0.0.2', DEMO_CLIENT.id, `wrong${i}`));
      expect(guesses.map(({ status }) => status)).toEqual([400, 400, 429]);
      expect(guesses[2]!.retryAfter).toBe('1');
      expect(guesses[2]!.body.error_description).toBe('too many failed attempts: retry after 1 s');

      const partner = await token('127.0.0.3', DEMO_CLIENT.id, DEMO_CLIENT.secret);
      expect(partner.status, JSON.stringify(partner.body)).toBe(200);
      expect(partner.body.access_token).toEqual(expect.any(String));

      await waitOut(guesses[2]!);
      expect((await token('127.0.0.2', DEMO_CLIENT.id, 'wrong3')).status).toBe(400);
      const longer = await token('127.0.0.2', DEMO_CLIENT.id, DEMO_CLIENT.secret);
      expect(longer.status).toBe(429);
      expect(longer.retryAfter).toBe('2');
      expect((await token('127.0.0.3', DEMO_CLIENT.id, DEMO_CLIENT.secret)).status).toBe(200);

      // The token lines name the client id and the address, failures and delays alike.
      const guesserLines = lines.filter(
        ({ route, clientIp }) => route === 'token' && clientIp === '127.0.0.2',
      );
      expect(guesserLines.map(({ status, tokenClientId }) => [status, tokenClientId])).toEqual(
        [400, 400, 429, 400, 429].map((status) => [status, DEMO_CLIENT.id]),
      );
      // Three failures for one id, from one address or many: a warning naming it, nothing refused.
      expect(lines.filter(({ level }) => level === 40)).toEqual([
        expect.objectContaining({
          msg: 'token requests: many failed authentications for one client id',
          tokenClientId: DEMO_CLIENT.id,
          clientIp: '127.0.0.2',
          failures: 3,
        }),
      ]);
      await waitOut(longer);
    });

    it('holds the guessing address back by its own key under another client id', async () => {
      // 127.0.0.2 has three failures (demo-partner); its fourth, under another id, spends its own.
      expect((await token('127.0.0.2', OTHER.id, 'wrong')).status).toBe(400);
      const sameAddress = await token('127.0.0.2', OTHER.id, OTHER.secret);
      expect(sameAddress.status).toBe(429);
      expect(sameAddress.retryAfter).toBe('1');
      expect((await token('127.0.0.3', OTHER.id, OTHER.secret)).status).toBe(200);
      await waitOut(sameAddress);
      expect((await token('127.0.0.2', OTHER.id, OTHER.secret)).status).toBe(200);
    });
  },
);

describe(`a token delay and the read routes on ${databaseKind}`, () => {
  let served: ServedApp;

  beforeAll(async () => {
    served = await serveApp(catalogue.database, {
      // The test is the trusted proxy: X-Forwarded-For names each request's client IP.
      TRUST_PROXY: 'loopback',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '6',
      TOKEN_FAILURES_PER_IP_AND_CLIENT: '2',
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
      ['nobody', 'guess'], // the IP and client id pair's two free failures are spent
      ['nobody', 'guess'],
      ['a', 'guess'],
      ['b', 'guess'], // the IP's four are spent
      [DEMO_CLIENT.id, DEMO_CLIENT.secret],
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

  it('gives another IP its tokens, and its own free failures for the same client id', async () => {
    const elsewhere = '203.0.113.11';
    expect((await tokenRequest(elsewhere, DEMO_CLIENT.secret)).status).toBe(200);
    expect((await tokenRequest(elsewhere, 'guess', 'nobody')).status).toBe(400);
  });
});
