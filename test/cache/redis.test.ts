/**
 * The shared response cache on a real Redis (the run's, see test/helpers/redis.ts):
 * the behaviours every cache has, entries that expire with the TTL, and answers shared between
 * apps (processes). Every key this file writes is under a prefix of its own, deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { databaseKind } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { startOwnRedis } from '../helpers/redis.ts';
import { describeCacheBehaviour, PRODUCT_PAGE, useCacheTestbed } from './testbed.ts';

const REDIS_URL = inject('redisUrl');
const PREFIX = `catalogue-test:${randomUUID()}:`;
const TTL_SECONDS = 120;

const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    keys.push(...found);
    cursor = next;
  } while (cursor !== '0');
  return keys;
}

beforeAll(async () => {
  await redis.connect();
});
afterAll(async () => {
  const keys = await keysUnder(PREFIX);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

const bed = useCacheTestbed(() => ({
  REDIS_URL,
  REDIS_KEY_PREFIX: PREFIX,
  RESPONSE_CACHE_TTL_SECONDS: String(TTL_SECONDS),
  // These tests are about what is cached. On a machine short of CPU, a reply can wait longer
  // than the default timeout to be read; a timeout would leave Redis alone for 5 s and turn a
  // hit into a miss. Failing soft has its own tests (redis-unavailable.test.ts).
  REDIS_COMMAND_TIMEOUT_MS: '10000',
}));

describeCacheBehaviour(`in Redis, on ${databaseKind}`, bed);

describe('in Redis', () => {
  it('stores each answer once, under the prefix, with its tags, expiring with the TTL', async () => {
    const prefix = `${PREFIX}stores:`;
    const app = await bed.build({ REDIS_KEY_PREFIX: prefix });
    const before = await keysUnder(prefix);
    const variables = { id: bed.productIds[0], market: 'GB' };
    const answer = await bed.graphql(app, PRODUCT_PAGE, variables);
    await landed(app);
    const added = (await keysUnder(prefix)).filter((key) => !before.includes(key));
    const entries = added.filter((key) => key.startsWith(`${prefix}response:`));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatch(new RegExp(`^${prefix}response:[0-9a-f]{64}$`));
    const ttl = await redis.pttl(entries[0]!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(TTL_SECONDS * 1000);
    // What Redis holds is the execution result the answer was made from.
    const stored = JSON.parse((await redis.get(entries[0]!))!);
    expect(stored).toEqual({ data: JSON.parse(answer.text).data });
    // Besides it, the set of its one tag (the page shows one product), expiring with it.
    const tagKey = `${prefix}tag:product:${variables.id}`;
    expect(added.sort()).toEqual([entries[0], tagKey].sort());
    expect(await redis.smembers(tagKey)).toEqual(entries);
    const tagTtl = await redis.pttl(tagKey);
    expect(tagTtl).toBeGreaterThan(0);
    expect(tagTtl).toBeLessThanOrEqual(TTL_SECONDS * 1000);
  });

  it('shares answers between apps (processes) on the same Redis', async () => {
    const prefix = `${PREFIX}shared:`;
    const first = await bed.build({ REDIS_KEY_PREFIX: prefix });
    const second = await bed.build({ REDIS_KEY_PREFIX: prefix });
    const path = `/products/${bed.productIds[2]}?market=se`;
    const original = await bed.get(first, path);
    expect(original.statements.length).toBeGreaterThan(0);
    await landed(first);
    const shared = await bed.get(second, path);
    expect(shared.statements).toEqual([]);
    expect(shared.text).toBe(original.text);
    expect(shared.headers.get('etag')).toBe(original.headers.get('etag'));
    const metrics = await scrape(second);
    expect(valueOf(metrics, 'catalogue_response_cache_errors_total')).toBe(0);

    // Another prefix (another deployment) shares nothing.
    const elsewhere = await bed.build({ REDIS_KEY_PREFIX: `${PREFIX}elsewhere:` });
    expect((await bed.get(elsewhere, path)).statements.length).toBeGreaterThan(0);
  });

  it('goes to RESPONSE_CACHE_REDIS_URL when set, leaving REDIS_URL to the limits', async () => {
    const prefix = `${PREFIX}apart:`;
    const own = await startOwnRedis();
    const ownClient = new Redis(own.url);
    try {
      const app = await bed.build({
        REDIS_KEY_PREFIX: prefix,
        RESPONSE_CACHE_REDIS_URL: own.url,
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000',
      });
      await bed.graphql(app, PRODUCT_PAGE, { id: bed.productIds[4], market: 'SE' });
      await landed(app);
      const kinds = (keys: string[]) =>
        [...new Set(keys.map((key) => key.slice(prefix.length).split(':')[0]))].sort();
      expect(kinds(await ownClient.keys(`${prefix}*`))).toEqual(['response', 'tag']);
      expect(kinds(await keysUnder(prefix))).toEqual(['limit']);
    } finally {
      ownClient.disconnect();
      await own.stop();
    }
  });

  it('keeps processes with other site URLs apart', async () => {
    const prefix = `${PREFIX}sites:`;
    const plain = await bed.build({ REDIS_KEY_PREFIX: prefix });
    const rebranded = await bed.build({
      REDIS_KEY_PREFIX: prefix,
      SITE_URL_SE: 'https://elsewhere.example',
    });
    const path = `/v1/products/${bed.productIds[3]}?market=se`;
    const original = await bed.get(plain, path);
    await landed(plain);
    const other = await bed.get(rebranded, path);
    expect(other.statements.length).toBeGreaterThan(0);
    expect(other.text).toContain('https://elsewhere.example');
    expect(original.text).not.toContain('https://elsewhere.example');
  });
});

/**
 * A request does not wait for its answer to be stored. An app's commands go over one
 * connection, which Redis serves in order: once a later lookup of the app has been answered,
 * every earlier store of it has landed.
 */
async function landed(app: App): Promise<void> {
  // An answer with an error is looked up but never stored, so it adds no key.
  await bed.graphql(app, '{ product(market: SE, id: 1, ref: "!") { name } }');
}
