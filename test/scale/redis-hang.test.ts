/**
 * A hung Redis, for real: a `serve` process whose response cache and rate limits live in a
 * redis-server of the test's own, which the test stops with SIGSTOP (it keeps every
 * connection open and answers nothing, as a hung server does) and continues with SIGCONT.
 * While it hangs every request is answered, and once the connection's circuit breaker has
 * opened none waits for the command timeout: answers are uncached and the limits counted in
 * the process. Once Redis answers again, the breaker's own probe closes it, and caching and
 * counting in Redis resume. The process runs on a database of its own: the run's server when
 * there is one, else the embedded one in memory (nothing here needs a catalogue).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS_PATH } from '../../src/metrics.ts';
import { parseExposition, valueOf } from '../helpers/prometheus.ts';
import { startOwnRedis, type OwnRedis } from '../helpers/redis.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';

/** Generous: the breaker's probe runs every second, but the machine may be busy. */
const PATIENCE_MS = 60_000;
/** Long, so that a request that waited for a command is told apart from one that did not. */
const COMMAND_TIMEOUT_MS = 3_000;
const RATE_LIMIT = 5;
const PREFIX = `test-hang-${randomBytes(4).toString('hex')}:`;
/** The uses of Redis, as the breaker's metric labels them and as the log names them. */
const USES = ['response_cache', 'rate_limits'];
const USE_NAMES = ['response cache', 'rate limits'];

let redis: OwnRedis;
let service: ServeProcess;

beforeAll(async () => {
  redis = await startOwnRedis();
  service = await startServeProcess({
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: PREFIX,
    REDIS_COMMAND_TIMEOUT_MS: String(COMMAND_TIMEOUT_MS),
    RESPONSE_CACHE_TTL_SECONDS: '60',
    // The test is the trusted proxy: X-Forwarded-For names each request's client IP.
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(RATE_LIMIT),
  });
});

afterAll(async () => {
  await service?.stop();
  await redis?.stop();
});

let addresses = 0;
/** A client IP no request has come from yet: its requests are never over the limit. */
function freshIp(): string {
  addresses++;
  return `10.0.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

/** A cacheable GraphQL query from `ip`: its status, and how long its answer took. */
async function ask(query: string, ip: string): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await fetch(`${service.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ query }),
  });
  await response.arrayBuffer();
  return { status: response.status, ms: performance.now() - started };
}

/** A query of its own for each case, so that no case finds another's answer in the cache. */
const queryNumbered = (id: number) => `{ product(market: SE, id: ${id}) { name } }`;

async function metrics() {
  const exposition = parseExposition(await (await fetch(`${service.base}${METRICS_PATH}`)).text());
  return {
    hits: valueOf(exposition, 'catalogue_response_cache_hits_total'),
    breakers: USES.map((use) => valueOf(exposition, 'catalogue_redis_breaker_open', { use })),
  };
}

/** The count of `ip`'s window of requests as Redis holds it (null: none there). */
async function countInRedis(ip: string): Promise<string | null> {
  const client = new Redis(redis.url);
  try {
    return await client.get(`${PREFIX}limit:requests:ip:${ip}`);
  } finally {
    client.disconnect();
  }
}

/** Resolves once `done` holds, asking every 100 ms. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = performance.now() + PATIENCE_MS;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${PATIENCE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const logLinesStarting = (text: string) =>
  service.logLines().filter((line) => String(line.msg).startsWith(text));

describe('a Redis that hangs', () => {
  it('caches answers and counts limits in Redis while it answers', async () => {
    const ip = freshIp();
    const before = await metrics();
    expect(before.breakers).toEqual([0, 0]);
    expect(await ask(queryNumbered(1), ip)).toMatchObject({ status: 200 });
    expect(await ask(queryNumbered(1), ip)).toMatchObject({ status: 200 });
    expect((await metrics()).hits).toBe(before.hits + 1);
    expect(await countInRedis(ip)).toBe('2');
  });

  it('is answered around: every request 200, and none waits once the breaker is open', async () => {
    redis.hang();
    // The requests in flight when Redis stops wait for their commands, at most the timeout.
    const first = await Promise.all(
      Array.from({ length: 8 }, () => ask(queryNumbered(2), freshIp())),
    );
    expect(first.map(({ status }) => status)).toEqual(Array(8).fill(200));
    const opened = await metrics();
    expect(opened.breakers).toEqual([1, 1]);

    // From then on, no request waits for Redis: each is answered inside the timeout,
    // uncached.
    for (let i = 0; i < 20; i++) {
      const answer = await ask(queryNumbered(3), freshIp());
      expect(answer.status).toBe(200);
      expect(answer.ms).toBeLessThan(COMMAND_TIMEOUT_MS);
    }
    expect((await metrics()).hits).toBe(opened.hits);

    // The limits hold, counted in the process.
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT + 2; i++) {
      statuses.push((await ask(queryNumbered(4), ip)).status);
    }
    expect(statuses).toEqual([...Array(RATE_LIMIT).fill(200), 429, 429]);

    for (const use of USE_NAMES) {
      const warnings = logLinesStarting(`${use}: Redis unusable`);
      expect(warnings, use).toHaveLength(1);
      expect(warnings[0]!.level).toBe(40);
    }
  });

  it('is used again once it answers: the probe closes the breaker, caching and counting resume', async () => {
    redis.resume();
    // No request is needed: the breaker's own probe finds Redis answering.
    await until('the breaker to close', async () =>
      (await metrics()).breakers.every((open) => open === 0),
    );
    // A use is back at a command that succeeds a second after it last had to skip one.
    await until('both uses to be back', async () => {
      expect((await ask(queryNumbered(5), freshIp())).status).toBe(200);
      return USE_NAMES.every((name) => logLinesStarting(`${name}: Redis is back`).length === 1);
    });

    const ip = freshIp();
    const before = await metrics();
    expect(await ask(queryNumbered(6), ip)).toMatchObject({ status: 200 });
    expect(await ask(queryNumbered(6), ip)).toMatchObject({ status: 200 });
    expect((await metrics()).hits).toBe(before.hits + 1);
    expect(await countInRedis(ip)).toBe('2');
  });
});
