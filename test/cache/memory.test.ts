/**
 * The in-process response cache (the default: no REDIS_URL): the shared behaviours, its
 * bound, and RESPONSE_CACHE_TTL_SECONDS=0 turning it off.
 */
import { getIntrospectionQuery } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { databaseKind } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { describeCacheBehaviour, distinct, PRODUCT_PAGE, useCacheTestbed } from './testbed.ts';

const bed = useCacheTestbed(() => ({}));

describeCacheBehaviour(`in process, on ${databaseKind}`, bed);

describe('in process', () => {
  it('is on by default, for 30 s, with at most 500 entries', () => {
    expect(loadConfig({})).toMatchObject({
      responseCacheTtlSeconds: 30,
      responseCacheMaxEntries: 500,
      redisUrl: undefined,
    });
  });

  it('is off with RESPONSE_CACHE_TTL_SECONDS=0: every request executes', async () => {
    const app = await bed.build({ RESPONSE_CACHE_TTL_SECONDS: '0' });
    const variables = { id: bed.productIds[0], market: 'SE' };
    const first = await bed.graphql(app, PRODUCT_PAGE, variables);
    const second = await bed.graphql(app, PRODUCT_PAGE, variables);
    expect(second.statements.length).toBeGreaterThan(0);
    expect(distinct(second.statements)).toEqual(distinct(first.statements));
    const path = `/v1/products/${bed.productIds[0]}?market=se`;
    await bed.get(app, path);
    expect((await bed.get(app, path)).statements.length).toBeGreaterThan(0);

    // Nothing is looked up, so nothing is counted; /graphql still tags its answers.
    const metrics = await scrape(app);
    expect(valueOf(metrics, 'catalogue_response_cache_hits_total')).toBe(0);
    expect(valueOf(metrics, 'catalogue_response_cache_misses_total')).toBe(0);
    const tagged = await bed.graphql(app, PRODUCT_PAGE, variables, {
      'if-none-match': first.headers.get('etag')!,
    });
    expect(tagged.status).toBe(304);
  });

  it('keeps at most RESPONSE_CACHE_MAX_ENTRIES answers, dropping the least recently used', async () => {
    const app = await bed.build({ RESPONSE_CACHE_MAX_ENTRIES: '2' });
    const [a, b, c] = bed.productIds.map((id) => ({ id, market: 'SE' }));
    await bed.graphql(app, PRODUCT_PAGE, a);
    await bed.graphql(app, PRODUCT_PAGE, b);
    expect((await bed.graphql(app, PRODUCT_PAGE, a)).statements).toEqual([]);
    await bed.graphql(app, PRODUCT_PAGE, c); // b is the least recently used: it leaves
    expect((await bed.graphql(app, PRODUCT_PAGE, a)).statements).toEqual([]);
    expect((await bed.graphql(app, PRODUCT_PAGE, c)).statements).toEqual([]);
    expect((await bed.graphql(app, PRODUCT_PAGE, b)).statements.length).toBeGreaterThan(0);
  });

  it('answers introspection as it is, and never from the cache', async () => {
    const app = await bed.fresh();
    const query = getIntrospectionQuery();
    const reference = await bed.graphql(bed.uncached, query);
    const first = await bed.graphql(app, query);
    const second = await bed.graphql(app, query);
    expect(first.text).toBe(reference.text);
    expect(second.text).toBe(reference.text);
    expect(valueOf(await scrape(app), 'catalogue_response_cache_hits_total')).toBe(0);
  });

  it('tags /graphql answers to GET too, and leaves event streams untagged', async () => {
    const path = `/graphql?query=${encodeURIComponent('{ markets { code currency } }')}`;
    const json = await bed.get(bed.app, path, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    const tag = json.headers.get('etag');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const revalidated = await bed.get(bed.app, path, {
      headers: { accept: 'application/json', 'if-none-match': tag! },
    });
    expect(revalidated.status).toBe(304);
    const stream = await bed.get(bed.app, path, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('etag')).toBeNull();
    expect(stream.text).toContain('event: next');
  });

  it('caches a document of connections nested 200 fields deep, as cheaply as its size', async () => {
    // Nested past the depth bound on purpose (raised here), so that it reaches the cache: its
    // key and its result cost time linear in their size, not 2^n for n nested lists.
    const app = await bed.build({ GRAPHQL_MAX_DEPTH: '1000' });
    let selection = 'productId';
    for (let level = 0; level < 40; level++) {
      selection = `category { products(first: 1) { edges { node { ${selection} } } } }`;
    }
    const query = `{ products(market: SE, first: 1) { edges { node { ${selection} } } } }`;
    const first = await bed.graphql(app, query);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.text).errors).toBeUndefined();
    expect(first.text.match(/"productId"/g)).toHaveLength(1);
    const second = await bed.graphql(app, query);
    expect(second.statements).toEqual([]);
    expect(second.text).toBe(first.text);
  });

  it('keeps the answers of one app to itself', async () => {
    const first = await bed.build();
    const second = await bed.build();
    const variables = { id: bed.productIds[5], market: 'SE' };
    await bed.graphql(first, PRODUCT_PAGE, variables);
    expect((await bed.graphql(first, PRODUCT_PAGE, variables)).statements).toEqual([]);
    expect((await bed.graphql(second, PRODUCT_PAGE, variables)).statements.length).toBeGreaterThan(
      0,
    );
  });
});
