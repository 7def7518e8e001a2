/**
 * Limits shared through Redis, by real processes: two `serve` processes on the run's Redis
 * (a key prefix of this file's own) enforce one request limit per IP and one token-failure
 * limit per client id between them, not one each, and one response cache; and a process
 * whose Redis goes away (a redis-server of the test's own, stopped) goes on answering,
 * counting in its own memory, with one warning and a metric. Each process on a database of its own: the run's server when there
 * is one, else the embedded one in memory (the limits need no catalogue).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { METRICS_PATH } from '../../src/metrics.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { parseExposition, valueOf } from '../helpers/prometheus.ts';
import { freePort, untilOutput } from '../helpers/process.ts';
import { provideTestRedis, removeKeys, type TestRedis } from '../helpers/redis.ts';
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.ts';

const REDIS_URL = inject('redisUrl');
/** Generous: the machine may be busy. */
const PATIENCE_MS = 60_000;
const RATE_LIMIT = 10;

const started: ServeProcess[] = [];

afterAll(() => Promise.all(started.map((service) => service.stop())));

/** `serve` with the given Redis and limits, on a database of its own; once listening. */
async function startService(env: Record<string, string>): Promise<ServeProcess> {
  const service = await startServeProcess({
    RESPONSE_CACHE_TTL_SECONDS: '0',
    // The test is the trusted proxy: X-Forwarded-For names each request's client IP.
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(RATE_LIMIT),
    ...env,
  });
  started.push(service);
  return service;
}

/** A GraphQL request that needs no data, counted against `ip`'s limit: its status. */
async function graphql(service: ServeProcess, ip: string): Promise<number> {
  const response = await fetch(`${service.base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ query: '{ __typename }' }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function tokenRequest(service: ServeProcess, clientId: string, ip: string) {
  const response = await fetch(`${service.base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: 'guess',
    }).toString(),
  });
  const body = (await response.json()) as { error_description?: string };
  return { status: response.status, description: body.error_description };
}

const uniquePrefix = () => `test-limits-${randomBytes(4).toString('hex')}:`;

describe('two processes on one Redis', () => {
  const prefix = uniquePrefix();
  let services: ServeProcess[];

  beforeAll(async () => {
    const env = { REDIS_URL, REDIS_KEY_PREFIX: prefix, TOKEN_FAILURES_PER_IP_AND_CLIENT: '2' };
    services = await Promise.all([startService(env), startService(env)]);
  });
  afterAll(() => removeKeys(REDIS_URL, prefix));

  it('enforce one request limit per IP between them', async () => {
    const statuses: number[] = [];
    // Alternating: each process sees six requests, twelve in all.
    for (let i = 0; i < 12; i++) statuses.push(await graphql(services[i % 2]!, '198.51.100.7'));
    expect(statuses).toEqual([...Array(RATE_LIMIT).fill(200), 429, 429]);
    // Another IP has its own limit, on either process.
    expect(await graphql(services[1]!, '198.51.100.8')).toBe(200);

    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.get(`${prefix}limit:requests:ip:198.51.100.7`)).toBe('12');
    } finally {
      redis.disconnect();
    }
  });

  it("enforce one delay on an address's failed token requests between them", async () => {
    const [first, second] = services;
    expect((await tokenRequest(first!, 'nobody', '203.0.113.1')).status).toBe(400);
    expect((await tokenRequest(second!, 'nobody', '203.0.113.1')).status).toBe(400);
    // Two failures, one on each: the address is delayed on both (for a second)...
    for (const service of [first!, second!]) {
      const refused = await tokenRequest(service, 'nobody', '203.0.113.1');
      expect(refused.status).toBe(429);
      expect(refused.description).toMatch(/^too many failed attempts: retry after \d+ s$/);
    }
    // ...and no other address is.
    for (const service of [first!, second!]) {
      expect((await tokenRequest(service, 'nobody', '203.0.113.2')).status).toBe(400);
    }
  });
});

describe('two processes on one Redis, with the response cache on', () => {
  const prefix = uniquePrefix();
  let services: ServeProcess[];

  beforeAll(async () => {
    // Each seeds the same sample catalogue (same seed, same day) on a database of its own.
    // One public origin, as behind one balancer: the cache keeps answers per origin, since
    // their links and pictures name it, and each process here is reached on a port of its own.
    const env = {
      PUBLIC_BASE_URL: 'https://catalogue.example',
      REDIS_URL,
      REDIS_KEY_PREFIX: prefix,
      RESPONSE_CACHE_TTL_SECONDS: '60',
      LOG_REQUEST_SAMPLE_RATE: '1',
    };
    services = await Promise.all([startService(env), startService(env)]);
  });
  afterAll(() => removeKeys(REDIS_URL, prefix));

  it('share one cache: what one stored, the other answers from it', async () => {
    const query = '{ product(market: SE, id: 1) { name brand { name } } }';
    const cacheLookups = (service: ServeProcess) =>
      service.logLines().filter((entry) => entry.route === 'graphql' && 'cache' in entry);
    const ask = async (service: ServeProcess) => {
      const before = cacheLookups(service).length;
      const response = await fetch(`${service.base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.30' },
        body: JSON.stringify({ query }),
      });
      const body = await response.text();
      // The request's log line, written as the answer ends, says how the cache answered.
      const cache = await untilOutput(
        service.started,
        'the request log line',
        () => cacheLookups(service)[before]?.cache,
        PATIENCE_MS,
      );
      return { status: response.status, body, cache };
    };
    const first = await ask(services[0]!);
    expect(first).toMatchObject({ status: 200, cache: 'miss' });
    const second = await ask(services[1]!);
    expect(second).toEqual({ ...first, cache: 'hit' });
  });
});

describe('a process whose Redis goes away', () => {
  let redis: TestRedis;
  let service: ServeProcess;

  beforeAll(async () => {
    // Nothing answers on a free port: a redis-server of this test's own is started.
    redis = await provideTestRedis(`redis://127.0.0.1:${await freePort()}`);
    service = await startService({
      REDIS_URL: redis.url,
      REDIS_KEY_PREFIX: uniquePrefix(),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '5',
    });
  });
  afterAll(() => redis?.stop());

  it('goes on answering, counting in its own memory, with one warning and a metric', async () => {
    const ip = '198.51.100.20';
    expect([await graphql(service, ip), await graphql(service, ip)]).toEqual([200, 200]);
    await redis.stop();

    // Counted afresh in memory: five more, then refused, and never a failure.
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push(await graphql(service, ip));
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);

    const warnings = service
      .logLines()
      .filter((line) => String(line.msg).startsWith('rate limits: Redis unusable'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe(40);
    const metrics = parseExposition(await (await fetch(`${service.base}${METRICS_PATH}`)).text());
    expect(valueOf(metrics, 'catalogue_rate_limit_fallbacks_total')).toBeGreaterThanOrEqual(8);
  });
});
