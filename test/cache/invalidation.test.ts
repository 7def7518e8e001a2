/**
 * After a feed run commits, cached answers follow it (docs/api.md, "Feeds"): answers holding
 * a product the run changed, the lists of its market and its shop's offers are answered
 * afresh, in every process (each app here stands for one), with their own memory cache or
 * sharing Redis; answers about other products stay cached; a rerun that changes nothing
 * drops nothing. Runs are heard as the app hears them in production: LISTEN/NOTIFY on a
 * server, PGlite's own notifications on the embedded database.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import { applyFeedRun } from '../../src/feeds/apply-run.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import { databaseKind } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { feedOfShop } from '../feeds/shop-feed.ts';
import { PRODUCT_PAGE, useCacheTestbed, type Answer } from './testbed.ts';

const REDIS_URL = inject('redisUrl');
const PREFIX = `catalogue-test:${randomUUID()}:`;

const bed = useCacheTestbed(() => ({ RESPONSE_CACHE_TTL_SECONDS: '300' }));

/** A list of the market's products, cheapest first: a run's new price can enter it. */
const CHEAPEST = `{ products(market: SE, first: 5, orderBy: PRICE) {
  totalCount edges { node { productId lowestOffer { price { value } } } } } }`;

/** A product page holding a list too: its category's products. */
const WITH_CATEGORY = `query($id: Int!) { product(market: SE, id: $id) {
  name category { productsTotal products(first: 3) { edges { node { productId } } } } } }`;

const SHOP_OFFERS = `query($shop: Int!) { shop(id: $shop) {
  offers(first: 3) { edges { node { itemId price { value } } } } } }`;

interface Sold {
  productId: number;
  shopId: number;
  item: FeedItem;
}

/** An offer of the product in Sweden a feed can state, with the shop and its feed row. */
async function soldIn(productId: number): Promise<Sold> {
  const { rows } = await sql<{ shop_id: number; item_id: string }>`
    select o.shop_id, o.item_id from available_offers o
     where o.product_id = ${productId} and o.market = 'se'
     order by o.id`.execute(bed.database.db);
  for (const { shop_id: shopId, item_id: itemId } of rows) {
    const item = (await feedOfShop(bed.database.db, shopId)).find((each) => each.itemId === itemId);
    if (item) return { productId, shopId, item };
  }
  throw new Error(`no offer of product ${productId} in Sweden a feed can state`);
}

let runs = 0;
/** A push run of the shop stating the item at `price` (no sale): returns its changes. */
async function pushPrice({ shopId, item }: Sold, price: number) {
  return applyFeedRun(bed.database.db, {
    runId: `invalidation-${++runs}`,
    shopId,
    kind: 'push',
    items: [{ ...item, price, sale: null }],
  });
}

async function invalidations(app: App): Promise<number> {
  return valueOf(await scrape(app), 'catalogue_response_cache_invalidations_total');
}

/** Waits until the app has followed `count` runs in all. */
async function followed(app: App, count: number): Promise<void> {
  await vi.waitFor(async () => expect(await invalidations(app)).toBe(count), {
    timeout: 10_000,
    interval: 20,
  });
}

const hit = (answer: Answer) => expect(answer.statements).toEqual([]);
const miss = (answer: Answer) => expect(answer.statements.length).toBeGreaterThan(0);

let touched: Sold;
let untouched: number;

beforeAll(async () => {
  touched = await soldIn(bed.productIds[0]!);
  untouched = bed.productIds[1]!;
});

describe(`after a feed run, on ${databaseKind}`, () => {
  it('answers afresh what holds the changed product, a list of its market and its shop’s offers; other products stay cached', async () => {
    const app = await bed.build();
    const page = { id: touched.productId, market: 'SE' };
    const other = { id: untouched, market: 'SE' };
    const rest = `/v1/products/${touched.productId}?market=se&fields=*,offers`;
    const shop = { shop: touched.shopId };
    const ask = {
      page: () => bed.graphql(app, PRODUCT_PAGE, page),
      other: () => bed.graphql(app, PRODUCT_PAGE, other),
      category: () => bed.graphql(app, WITH_CATEGORY, { id: untouched }),
      list: () => bed.graphql(app, CHEAPEST),
      shop: () => bed.graphql(app, SHOP_OFFERS, shop),
      rest: () => bed.get(app, rest),
    };
    const before: Record<string, Answer> = {};
    for (const [name, request] of Object.entries(ask)) {
      before[name] = await request();
      expect(before[name]!.status, name).toBe(200);
      hit(await request());
    }

    const applied = await pushPrice(touched, 1);
    expect(applied.changedProductIds).toEqual([touched.productId]);
    await followed(app, 1);

    const after = {
      page: await ask.page(),
      list: await ask.list(),
      category: await ask.category(),
      shop: await ask.shop(),
      rest: await ask.rest(),
    };
    for (const [name, answer] of Object.entries(after)) {
      miss(answer);
      const reference =
        name === 'rest'
          ? await bed.get(bed.uncached, rest)
          : await bed.graphql(
              bed.uncached,
              { page: PRODUCT_PAGE, list: CHEAPEST, category: WITH_CATEGORY, shop: SHOP_OFFERS }[
                name
              ]!,
              { page, list: {}, category: { id: untouched }, shop }[name],
            );
      expect(answer.text, name).toBe(reference.text);
    }
    expect(after.page.text).not.toBe(before.page!.text);
    expect(after.page.text).toContain('"value":1');
    expect(after.list.text).not.toBe(before.list!.text);
    expect(after.rest.text).not.toBe(before.rest!.text);
    expect(after.rest.headers.get('etag')).not.toBe(before.rest!.headers.get('etag'));
    hit(await ask.rest());

    // A product the run did not touch is still answered from the cache, the same bytes.
    const cached = await ask.other();
    hit(cached);
    expect(cached.text).toBe(before.other!.text);
  });

  it('drops nothing for a rerun that changes nothing', async () => {
    const app = await bed.build();
    const sold = await soldIn(bed.productIds[2]!);
    await pushPrice(sold, 2);
    await followed(app, 1);
    const page = { id: sold.productId, market: 'SE' };
    const cachedPage = await bed.graphql(app, PRODUCT_PAGE, page);
    const cachedList = await bed.graphql(app, CHEAPEST);
    hit(await bed.graphql(app, PRODUCT_PAGE, page));

    const rerun = await pushPrice(sold, 2);
    expect(rerun.changedProductIds).toEqual([]);
    // A run that changes something, heard after the rerun would have been: the count then
    // says whether the rerun was followed too.
    await pushPrice(touched, 3);
    await followed(app, 2);

    const again = await bed.graphql(app, PRODUCT_PAGE, page);
    hit(again);
    expect(again.text).toBe(cachedPage.text);
    miss(await bed.graphql(app, CHEAPEST));
    expect(cachedList.status).toBe(200);
  });

  it('is followed by every process, each with its own memory cache', async () => {
    const [first, second] = [await bed.build(), await bed.build()];
    const page = { id: touched.productId, market: 'SE' };
    for (const app of [first, second]) {
      await bed.graphql(app, PRODUCT_PAGE, page);
      hit(await bed.graphql(app, PRODUCT_PAGE, page));
    }
    await pushPrice(touched, 4);
    for (const app of [first, second]) {
      await followed(app, 1);
      const fresh = await bed.graphql(app, PRODUCT_PAGE, page);
      miss(fresh);
      expect(fresh.text).toContain('"value":4');
    }
  });
});

describe(`after a feed run, with Redis, on ${databaseKind}`, () => {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  beforeAll(() => redis.connect());
  afterAll(async () => {
    const keys = await redis.keys(`${PREFIX}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('serves the fresh answer from every process sharing Redis, and keeps the others', async () => {
    const shared = {
      REDIS_URL,
      REDIS_KEY_PREFIX: `${PREFIX}shared:`,
      REDIS_COMMAND_TIMEOUT_MS: '10000',
    };
    const [first, second] = [await bed.build(shared), await bed.build(shared)];
    const page = { id: touched.productId, market: 'SE' };
    const other = { id: untouched, market: 'SE' };
    const original = await bed.graphql(first, PRODUCT_PAGE, page);
    const kept = await bed.graphql(first, PRODUCT_PAGE, other);
    // Commands of one app go over one connection in order: this lookup lands after the stores.
    await bed.graphql(first, '{ product(market: SE, id: 1, ref: "!") { name } }');
    hit(await bed.graphql(second, PRODUCT_PAGE, page));
    expect(await redis.exists(`${PREFIX}shared:tag:product:${touched.productId}`)).toBe(1);

    await pushPrice(touched, 5);
    await followed(first, 1);
    await followed(second, 1);

    const fresh = await bed.graphql(second, PRODUCT_PAGE, page);
    miss(fresh);
    expect(fresh.text).not.toBe(original.text);
    expect(fresh.text).toContain('"value":5');
    expect(fresh.text).toBe((await bed.graphql(bed.uncached, PRODUCT_PAGE, page)).text);
    const still = await bed.graphql(second, PRODUCT_PAGE, other);
    hit(still);
    expect(still.text).toBe(kept.text);
    expect(valueOf(await scrape(second), 'catalogue_response_cache_errors_total')).toBe(0);
  });
});
