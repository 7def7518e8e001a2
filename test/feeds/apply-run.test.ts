/**
 * Applying a feed run to the seeded catalogue (docs/api.md, "Feeds"): offers created, updated
 * and withdrawn as the feed says, rows matched by GTIN or brand and MPN, unmatched rows kept,
 * the sale rule, derived data following in the same transaction, nothing written twice, runs
 * for one shop one after the other, and a failing run changing nothing. Served answers are
 * checked against the feed and the other shops' offers as served before the run.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import { applyFeedRun, type FeedRun } from '../../src/feeds/apply-run.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { SEEDED_CATALOGUE } from '../helpers/templates.ts';
import { feedOfShop, heldItems, newItem, productsNotAtShop } from './shop-feed.ts';

/** Midday of the seed's as-of date: its history ends the day before. */
const NOW = new Date(`${SEEDED_CATALOGUE.asOf}T12:00:00Z`);
const TODAY = SEEDED_CATALOGUE.asOf;
const LATER = new Date(NOW.getTime() + 3_600_000);

const PRODUCT = `query($id: Int!, $market: Market!) {
  product(id: $id, market: $market) {
    offers(first: 50) {
      edges { node { offerId url price { value includingShipping } salesPrice { value }
                     originalPrice { value } stockStatus } }
    }
    lowestOffer { price { value } }
    marketPrices { market lowestPrice { value } offerCount }
    priceHistory(days: 2) { date lowestPrice { value } }
  }
}`;

interface ServedOffer {
  offerId: number;
  url: string;
  price: { value: number; includingShipping: number | null };
  salesPrice: { value: number } | null;
  originalPrice: { value: number } | null;
  stockStatus: string;
}

describe(`applying a feed run on ${databaseKind}`, () => {
  const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });
  const db = () => catalogue.database.db;
  let runs = 0;
  const run = (
    shopId: number,
    items: FeedItem[] | FeedRun['items'],
    extra: Partial<FeedRun> = {},
  ) =>
    applyFeedRun(db(), { runId: `run-${++runs}`, shopId, kind: 'full', items, now: NOW, ...extra });

  async function served(productId: number, market: string) {
    const body = await catalogue.graphql(PRODUCT, { id: productId, market: market.toUpperCase() });
    expect(body.errors).toBeUndefined();
    const product = body.data.product;
    return {
      offers: product.offers.edges.map((edge: { node: ServedOffer }) => edge.node) as ServedOffer[],
      lowest: product.lowestOffer?.price.value as number | undefined,
      marketPrice: (
        product.marketPrices as {
          market: string;
          lowestPrice: { value: number };
          offerCount: number;
        }[]
      ).find((price) => price.market === market.toUpperCase()),
      history: product.priceHistory as { date: string; lowestPrice: { value: number } | null }[],
    };
  }

  /** A shop of the market with many offers, none of them used by another test yet. */
  async function shopWithOffers(market: string, rank: number): Promise<number> {
    const { rows } = await sql<{ shop_id: number }>`
      select shop_id from offers where market = ${market}
       group by shop_id order by count(*) desc, shop_id limit 1 offset ${rank}`.execute(db());
    return rows[0]!.shop_id;
  }

  async function shopRows(shopId: number) {
    const { rows } = await sql<Record<string, unknown>>`
      select * from offers where shop_id = ${shopId} order by id`.execute(db());
    return rows;
  }

  async function withdrawnItems(shopId: number): Promise<string[]> {
    const rows = await db()
      .selectFrom('offers')
      .select('item_id')
      .where('shop_id', '=', shopId)
      .where('withdrawn_at', 'is not', null)
      .execute();
    return rows.map((row) => row.item_id).sort();
  }

  async function changeCount(): Promise<number> {
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::integer as n from catalogue_changes`.execute(db());
    return rows[0]!.n;
  }

  it('finds every seeded offer by its item id, and MPNs on three products in four', async () => {
    const { rows } = await sql<{
      offers: number;
      by_product: number;
      products: number;
      mpns: number;
    }>`
      select (select count(*)::integer from offers) as offers,
             (select count(*)::integer from offers where item_id = product_id::text) as by_product,
             (select count(*)::integer from products) as products,
             (select count(*)::integer from products where mpn is not null) as mpns`.execute(db());
    const counts = rows[0]!;
    expect(counts.by_product).toBe(counts.offers);
    expect(counts.mpns).toBe(counts.products - Math.floor(counts.products / 4));
  });

  it('applies a full feed: new offers, changed prices, out of stock, withdrawn, unmatched', async () => {
    const shopId = await shopWithOffers('se', 0);
    const baseline = await feedOfShop(db(), shopId);
    const first = await run(shopId, baseline);
    expect(first.counts.rows).toBe(baseline.length);
    expect(first.counts.created + first.counts.unmatched).toBe(0);
    expect(first.counts.updated + first.counts.unchanged).toBe(baseline.length);
    // Offers of products a feed row cannot name (no GTIN, no MPN) are not in the feed.
    const withdrawnBefore = await withdrawnItems(shopId);
    expect(withdrawnBefore).toHaveLength(first.counts.withdrawn);

    const [byGtin] = await productsNotAtShop(db(), shopId, 'gtin', 1);
    const [byMpn] = await productsNotAtShop(db(), shopId, 'brand and mpn', 1);
    const inStock = baseline.filter(
      (item) => item.availability === 'in_stock' && item.sale === null,
    );
    const [cheaper, dearer, soldOut, gone1, gone2] = inStock;
    const othersBefore = new Map<number, ServedOffer[]>();
    const productOf = async (itemId: string) =>
      (
        await db()
          .selectFrom('offers')
          .select('product_id')
          .where('shop_id', '=', shopId)
          .where('item_id', '=', itemId)
          .executeTakeFirstOrThrow()
      ).product_id;
    const changedProducts = new Map<string, number>();
    for (const item of [cheaper!, dearer!, soldOut!, gone1!, gone2!]) {
      const productId = await productOf(item.itemId);
      changedProducts.set(item.itemId, productId);
      othersBefore.set(
        productId,
        (await served(productId, 'se')).offers.filter((offer) => offer.url !== item.link),
      );
    }
    const feed = baseline
      .filter((item) => item !== gone1 && item !== gone2)
      .map((item) =>
        item === cheaper
          ? { ...item, price: Math.round(item.price * 0.5) }
          : item === dearer
            ? { ...item, price: item.price + 100, shippingPrice: 49 }
            : item === soldOut
              ? { ...item, availability: 'out_of_stock' as const }
              : item,
      );
    feed.push(
      newItem('new-by-gtin', byGtin!, 1234.5, { shippingPrice: 0 }),
      newItem(
        'new-by-mpn',
        { ...byMpn!, brand: byMpn!.brand!.toLowerCase(), mpn: byMpn!.mpn!.toLowerCase() },
        99,
      ),
      newItem('unknown', { gtin: '04006381333931', brand: 'Nobody', mpn: 'X-1' }, 10),
    );
    const changesBefore = await changeCount();
    const applied = await run(shopId, feed, { runId: 'full-feed' });
    expect(applied.counts).toEqual({
      rows: feed.length,
      created: 2,
      updated: 3,
      unchanged: feed.length - 6,
      withdrawn: 2,
      rejected: 0,
      unmatched: 1,
    });

    // Served as the feed says, beside the other shops' offers as they were.
    const expectServed = async (item: FeedItem, productId: number, price: number | null) => {
      const after = await served(productId, 'se');
      const mine = after.offers.filter((offer) => offer.url === item.link);
      expect(mine.map((offer) => offer.price.value)).toEqual(price === null ? [] : [price]);
      const others = othersBefore.get(productId) ?? [];
      expect(after.offers.filter((offer) => offer.url !== item.link)).toEqual(others);
      const prices = [
        ...others.map((offer) => offer.price.value),
        ...(price === null ? [] : [price]),
      ];
      const lowest = prices.length === 0 ? undefined : Math.min(...prices);
      expect(after.lowest).toBe(lowest);
      expect(after.marketPrice?.lowestPrice.value).toBe(lowest);
      expect(after.marketPrice?.offerCount).toBe(lowest === undefined ? undefined : prices.length);
      // The REST route answers the same offers at the same prices.
      const rest = await catalogue.app.fetch(
        new Request(
          `http://test/v1/products/${productId}?market=se&fields=id,offers.url,offers.price`,
        ),
      );
      expect(rest.status).toBe(200);
      const restOffers = (
        (await rest.json()) as { items: { offers: { url: string; price: { value: number } }[] }[] }
      ).items[0]!.offers;
      expect(restOffers.map((offer) => [offer.url, offer.price.value]).sort()).toEqual(
        [
          ...others.map((offer) => [offer.url, offer.price.value]),
          ...(price === null ? [] : [[item.link, price]]),
        ].sort(),
      );
      return { after, lowest };
    };
    const { after: cheaperServed } = await expectServed(
      cheaper!,
      changedProducts.get(cheaper!.itemId)!,
      Math.round(cheaper!.price * 0.5),
    );
    expect(cheaperServed.history.at(-1)).toEqual({
      date: TODAY,
      lowestPrice: { value: cheaperServed.lowest },
    });
    const dearerServed = await expectServed(
      dearer!,
      changedProducts.get(dearer!.itemId)!,
      dearer!.price + 100,
    );
    expect(
      dearerServed.after.offers.find((offer) => offer.url === dearer!.link)?.price
        .includingShipping,
    ).toBe(dearer!.price + 149);
    for (const item of [soldOut!, gone1!, gone2!])
      await expectServed(item, changedProducts.get(item.itemId)!, null);
    const byGtinServed = (await served(byGtin!.productId, 'se')).offers.find((offer) =>
      offer.url.endsWith('/new-by-gtin'),
    );
    expect(byGtinServed?.price).toEqual({ value: 1234.5, includingShipping: 1234.5 });
    expect(
      (await served(byMpn!.productId, 'se')).offers.some((offer) =>
        offer.url.endsWith('/new-by-mpn'),
      ),
    ).toBe(true);

    // Withdrawn offers stay as rows; the unmatched row is kept for the catalogue team.
    const withdrawnNow = await withdrawnItems(shopId);
    expect(withdrawnNow).toEqual([...withdrawnBefore, gone1!.itemId, gone2!.itemId].sort());
    const unmatched = await db()
      .selectFrom('unmatched_feed_items')
      .selectAll()
      .where('shop_id', '=', shopId)
      .execute();
    expect(unmatched).toMatchObject([
      {
        item_id: 'unknown',
        title: 'Feed item unknown',
        brand: 'Nobody',
        mpn: 'X-1',
        price: 10,
        currency: 'SEK',
        last_seen_on: TODAY,
        last_run_id: 'full-feed',
      },
    ]);

    // The outbox: one row per product whose offers changed.
    const changes = await db()
      .selectFrom('catalogue_changes')
      .selectAll()
      .where('run_id', '=', 'full-feed')
      .orderBy('product_id')
      .execute();
    expect(await changeCount()).toBe(changesBefore + changes.length);
    const expectedProducts = [
      ...new Set([...changedProducts.values(), byGtin!.productId, byMpn!.productId]),
    ].sort((a, b) => a - b);
    expect(changes.map((change) => change.product_id)).toEqual(expectedProducts);
    expect(applied.changedProductIds).toEqual(expectedProducts);
    expect(applied.market).toBe('se');
    const goneChange = changes.find(
      (change) => change.product_id === changedProducts.get(gone1!.itemId),
    )!;
    expect(goneChange.withdrawn_offer_ids).toHaveLength(1);
    expect(goneChange.new_offer_count).toBe(goneChange.old_offer_count - 1);
    const addedChange = changes.find((change) => change.product_id === byGtin!.productId)!;
    expect(addedChange).toMatchObject({ new_lowest_price: expect.any(Number), market: 'se' });
    expect(addedChange.added_offer_ids).toHaveLength(1);
  });

  it('counts the same feed again unchanged, and writes no offer, history, summary or change', async () => {
    const shopId = await shopWithOffers('no', 0);
    const feed = await feedOfShop(db(), shopId);
    await run(shopId, feed);
    const versions = async () =>
      (
        await sql<{ row: string }>`
          select o.id || ':' || o.xmin::text || ':' || coalesce(h.xmin::text, '-') || ':'
                 || coalesce(s.xmin::text, '-') as row
            from offers o
            left join price_history h on h.product_id = o.product_id and h.market = o.market
            left join product_market_summaries s
                   on s.product_id = o.product_id and s.market = o.market
           where o.shop_id = ${shopId} order by o.id`.execute(db())
      ).rows.map((row) => row.row);
    const before = await versions();
    const changesBefore = await changeCount();
    catalogue.database.statements.length = 0;
    const again = await run(shopId, feed, { now: LATER });
    expect(again.counts).toEqual({
      rows: feed.length,
      created: 0,
      updated: 0,
      unchanged: feed.length,
      withdrawn: 0,
      rejected: 0,
      unmatched: 0,
    });
    const writes = catalogue.database.statements.filter((statement) =>
      /\b(insert into|update|delete from)\s+(offers|price_history|product_market_summaries|catalogue_changes)\b/i.test(
        statement,
      ),
    );
    expect(writes).toEqual([]);
    expect(again).toMatchObject({ changedProductIds: [], summarisedProductIds: [] });
    expect(await versions()).toEqual(before);
    expect(await changeCount()).toBe(changesBefore);
  });

  it("keeps today's history point at the day's lowest price across runs: lower prices lower it, higher ones leave it", async () => {
    const shopId = await shopWithOffers('gb', 0);
    const [product] = await productsNotAtShop(db(), shopId, 'gtin', 1);
    const before = await served(product!.productId, 'gb');
    const lowest = before.lowest!;
    const todaysPoint = async () => {
      const { history } = await served(product!.productId, 'gb');
      expect(history.at(-1)?.date).toBe(TODAY);
      return history.at(-1)?.lowestPrice?.value;
    };
    const push = (price: number, minutes: number) =>
      run(shopId, [newItem('history-day', product!, price)], {
        kind: 'push',
        now: new Date(NOW.getTime() + minutes * 60_000),
      });

    await push(Math.round(lowest / 2), 0);
    expect(await todaysPoint()).toBe(Math.round(lowest / 2));
    // Dearer than every other offer: the product's lowest price is back, today's point is not.
    await push(lowest * 2, 10);
    expect((await served(product!.productId, 'gb')).lowest).toBe(lowest);
    expect(await todaysPoint()).toBe(Math.round(lowest / 2));
    await push(Math.round(lowest / 4), 20);
    expect(await todaysPoint()).toBe(Math.round(lowest / 4));
    await push(Math.round(lowest / 3), 30);
    expect(await todaysPoint()).toBe(Math.round(lowest / 4));
  });

  it('serves the sale price while its period includes now, with the regular price as the original', async () => {
    const shopId = await shopWithOffers('dk', 0);
    const products = await productsNotAtShop(db(), shopId, 'gtin', 4);
    const day = 86_400_000;
    const at = (offset: number) => new Date(NOW.getTime() + offset).toISOString();
    const items = [
      newItem('sale-on', products[0]!, 1000, {
        sale: { price: 800, start: at(-day), end: at(day) },
        shippingPrice: 50,
      }),
      newItem('sale-open', products[1]!, 1000, { sale: { price: 700, start: null, end: null } }),
      newItem('sale-later', products[2]!, 1000, {
        sale: { price: 600, start: at(day), end: at(2 * day) },
      }),
      newItem('sale-over', products[3]!, 1000, {
        sale: { price: 500, start: at(-2 * day), end: at(-1) },
      }),
    ];
    const applied = await run(shopId, items, { kind: 'push' });
    expect(applied.counts).toMatchObject({ rows: 4, created: 4, withdrawn: 0 });
    const expected = [
      {
        price: { value: 800, includingShipping: 850 },
        salesPrice: { value: 800 },
        originalPrice: { value: 1000 },
      },
      {
        price: { value: 700, includingShipping: null },
        salesPrice: { value: 700 },
        originalPrice: { value: 1000 },
      },
      { price: { value: 1000, includingShipping: null }, salesPrice: null, originalPrice: null },
      { price: { value: 1000, includingShipping: null }, salesPrice: null, originalPrice: null },
    ];
    for (const [index, item] of items.entries()) {
      const offer = (await served(products[index]!.productId, 'dk')).offers.find(
        (candidate) => candidate.url === item.link,
      );
      expect(offer, item.itemId).toMatchObject(expected[index]!);
    }
  });

  it('keeps an unmatched row until the catalogue has its product, then serves it', async () => {
    const shopId = await shopWithOffers('fr', 0);
    const [product] = await productsNotAtShop(db(), shopId, 'gtin', 1);
    const item = newItem('not-yet', { gtin: null, brand: 'Acme Unknown', mpn: 'AU-77' }, 55);
    expect((await run(shopId, [item], { kind: 'push' })).counts).toMatchObject({
      unmatched: 1,
      created: 0,
    });
    expect(
      await db()
        .selectFrom('unmatched_feed_items')
        .select(['item_id', 'price', 'gtin'])
        .where('shop_id', '=', shopId)
        .execute(),
    ).toEqual([{ item_id: 'not-yet', price: 55, gtin: null }]);

    // The catalogue team gives the product its GTIN (an 8-digit one, which feeds send
    // zero-padded to 14); the next push matches it.
    await db()
      .insertInto('gtins')
      .values({ gtin: '96385074', product_id: product!.productId })
      .execute();
    const matched = await run(shopId, [{ ...item, gtin: '00000096385074' }], { kind: 'push' });
    expect(matched.counts).toMatchObject({ unmatched: 0, created: 1 });
    expect(
      await db()
        .selectFrom('unmatched_feed_items')
        .select('item_id')
        .where('shop_id', '=', shopId)
        .execute(),
    ).toEqual([]);
    const offers = (await served(product!.productId, 'fr')).offers;
    expect(offers.find((offer) => offer.url === item.link)?.price.value).toBe(55);
  });

  it('applies two runs for one shop one after the other: the later one is what stays', async () => {
    const shopId = await shopWithOffers('fi', 0);
    const baseline = await feedOfShop(db(), shopId);
    const first = baseline.map((item) => ({ ...item, price: item.price + 1, sale: null }));
    const second = baseline.map((item) => ({ ...item, price: item.price + 2, sale: null }));
    const held = heldItems(first);
    const firstRun = run(shopId, held.items, { runId: 'race-first' });
    await held.started;
    let secondDone = false;
    const secondRun = run(shopId, second, { runId: 'race-second' }).then((result) => {
      secondDone = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The first run holds the shop while it reads its rows: the second waits.
    expect(secondDone).toBe(false);
    if (databaseKind === 'postgres') {
      // Meanwhile a run for another shop applies (PGlite is one session: runs take turns).
      const otherShop = await shopWithOffers('fi', 1);
      const other = await run(otherShop, await feedOfShop(db(), otherShop), { kind: 'push' });
      expect(other.counts.rows).toBeGreaterThan(0);
      expect(secondDone).toBe(false);
    }
    held.open();
    const [a, b] = await Promise.all([firstRun, secondRun]);
    expect(a.counts.rows).toBe(baseline.length);
    // The second compared its rows with the first one's offers: every price differs by one.
    expect(b.counts).toMatchObject({ updated: baseline.length, unchanged: 0 });
    const prices = await db()
      .selectFrom('offers')
      .select(['item_id', 'price'])
      .where('shop_id', '=', shopId)
      .where('withdrawn_at', 'is', null)
      .execute();
    const expected = new Map(second.map((item) => [item.itemId, item.price]));
    for (const row of prices) expect(row.price, row.item_id).toBe(expected.get(row.item_id));
    // And its outbox rows start where the first one's ended.
    const { rows } = await sql<{
      product_id: number;
      first_new: number | null;
      second_old: number | null;
    }>`
      select f.product_id, f.new_lowest_price as first_new, s.old_lowest_price as second_old
        from catalogue_changes f join catalogue_changes s on s.product_id = f.product_id
       where f.run_id = 'race-first' and s.run_id = 'race-second'`.execute(db());
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.second_old, String(row.product_id)).toBe(row.first_new);
  });

  it('applies runs of two shops of one market side by side: shared products end with both shops’ prices', async () => {
    const [shopA, shopB] = [await shopWithOffers('no', 0), await shopWithOffers('no', 1)];
    const [feedA, feedB] = [await feedOfShop(db(), shopA), await feedOfShop(db(), shopB)];
    const productOf = async (shopId: number, itemId: string) =>
      (
        await db()
          .selectFrom('offers')
          .select('product_id')
          .where('shop_id', '=', shopId)
          .where('item_id', '=', itemId)
          .executeTakeFirstOrThrow()
      ).product_id;
    // Every price lower, so both runs change the lowest price of the products they share.
    const cheaper = (items: FeedItem[], by: number) =>
      items.map((item) => ({ ...item, price: Math.max(1, item.price - by), sale: null }));
    const [a, b] = await Promise.all([
      run(shopA, cheaper(feedA, 3), { runId: 'market-a' }),
      run(shopB, cheaper(feedB, 5), { runId: 'market-b' }),
    ]);
    expect(a.counts.updated + b.counts.updated).toBeGreaterThan(0);
    // Each product's summary is the lowest of the served offers, whichever run committed last.
    const shared = new Set(await Promise.all(feedA.map((item) => productOf(shopA, item.itemId))));
    const { rows } = await sql<{ product_id: number; summary: number; served: number }>`
      select s.product_id, s.lowest_price as summary, min(o.price) as served
        from product_market_summaries s
        join available_offers o on o.product_id = s.product_id and o.market = s.market
       where s.market = 'no' and s.product_id = any(${[...shared]}::int[])
       group by s.product_id, s.lowest_price`.execute(db());
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(row.summary, String(row.product_id)).toBe(row.served);
  });

  it('withdraws a product’s last offer: it leaves the listing, its history stays, and it comes back', async () => {
    const { rows } = await sql<{
      product_id: number;
      shop_id: number;
      item_id: string;
      id: number;
      price: number;
      slug: string;
    }>`
      select o.product_id, o.shop_id, o.item_id, o.id, o.price, c.slug
        from available_offers o
        join products p on p.id = o.product_id join categories c on c.id = p.category_id
       where o.market = 'gb'
         and (select count(*) from available_offers a
               where a.product_id = o.product_id and a.market = 'gb') = 1
       order by o.product_id limit 1`.execute(db());
    const only = rows[0]!;
    const listed = async () => {
      const body = await catalogue.graphql(
        `query($slug: String!) { products(market: GB, category: $slug, first: 100) { edges { node { productId } } } }`,
        { slug: only.slug },
      );
      expect(body.errors).toBeUndefined();
      return body.data.products.edges.map(
        (edge: { node: { productId: number } }) => edge.node.productId,
      );
    };
    expect(await listed()).toContain(only.product_id);
    const historyBefore = (await served(only.product_id, 'gb')).history;

    const withdrawn = await run(only.shop_id, [], {
      kind: 'push',
      withdrawItemIds: [only.item_id],
    });
    expect(withdrawn.counts).toMatchObject({ rows: 0, withdrawn: 1 });
    const after = await served(only.product_id, 'gb');
    expect(after.offers).toEqual([]);
    expect(after.marketPrice).toBeUndefined();
    expect(await listed()).not.toContain(only.product_id);
    // The days before today as they were, and today's point the price it was offered at.
    expect(after.history).toEqual([
      historyBefore.at(-1),
      { date: TODAY, lowestPrice: { value: only.price } },
    ]);
    expect(
      await db()
        .selectFrom('offers')
        .select('withdrawn_at')
        .where('id', '=', only.id)
        .executeTakeFirst(),
    ).toEqual({
      withdrawn_at: NOW.toISOString(),
    });

    // Listed again by a push: the same offer, served and listed again.
    const { rows: stored } = await sql<{ offer_name: string; url: string }>`
      select offer_name, url from offers where id = ${only.id}`.execute(db());
    const identity = await productsIdentity(only.product_id);
    const relisted = await run(
      only.shop_id,
      [
        newItem(only.item_id, identity, only.price + 10, {
          title: stored[0]!.offer_name,
          link: stored[0]!.url,
        }),
      ],
      { kind: 'push' },
    );
    expect(relisted.counts).toMatchObject({ created: 1 });
    const back = await served(only.product_id, 'gb');
    expect(back.offers.map((offer) => [offer.offerId, offer.price.value])).toEqual([
      [only.id, only.price + 10],
    ]);
    expect(back.marketPrice).toMatchObject({
      lowestPrice: { value: only.price + 10 },
      offerCount: 1,
    });
    expect(await listed()).toContain(only.product_id);
  });

  it('leaves the changed products’ summaries as a rebuild of them writes them', async () => {
    const shopId = await shopWithOffers('nz', 0);
    const feed = await feedOfShop(db(), shopId);
    // Prices move up, and down to the lowest; a product new to the shop, one of its offers gone.
    const [added] = await productsNotAtShop(db(), shopId, 'gtin', 1);
    const items = [
      ...feed.slice(1).map((item, index) => ({
        ...item,
        sale: null,
        price: index % 2 ? item.price + 7 : Math.max(1, Math.round(item.price / 2)),
      })),
      newItem('new-to-the-shop', added!, 55),
    ];
    const applied = await run(shopId, items);
    expect(applied.summarisedProductIds.length).toBeGreaterThan(5);
    const summaries = () =>
      db()
        .selectFrom('product_market_summaries')
        .selectAll()
        .where('market', '=', 'nz')
        .where('product_id', 'in', applied.summarisedProductIds)
        .orderBy('product_id')
        .execute();
    const afterRun = await summaries();
    await refreshProductMarketSummaries(db(), {
      productIds: applied.summarisedProductIds,
      market: 'nz',
      asOf: TODAY,
    });
    expect(afterRun).toEqual(await summaries());
  });

  it('writes again a summary that no longer says what its offers hold, once a run touches the product', async () => {
    const shopId = await shopWithOffers('gb', 1);
    const [item] = await feedOfShop(db(), shopId);
    const productId = Number(item!.itemId);
    const truth = await served(productId, 'gb');
    // A hand-made change to a summary, beside the offers it should follow.
    await db()
      .updateTable('product_market_summaries')
      .set((eb) => ({
        lowest_price: eb('lowest_price', '+', 1000),
        available_offer_count: eb('available_offer_count', '+', 3),
      }))
      .where('product_id', '=', productId)
      .where('market', '=', 'gb')
      .execute();
    expect((await served(productId, 'gb')).marketPrice).not.toEqual(truth.marketPrice);

    // Only the offer's title changes: the product's offers hold what they held.
    const applied = await run(shopId, [{ ...item!, title: `${item!.title} (renamed)` }], {
      kind: 'push',
    });
    expect(applied.counts).toMatchObject({ updated: 1 });
    expect(applied.summarisedProductIds).toEqual([productId]);
    expect((await served(productId, 'gb')).marketPrice).toEqual(truth.marketPrice);
  });

  it('matches a feed too large for a lookup per row as it matches a small one', async () => {
    const shopId = await shopWithOffers('nz', 1);
    const byGtin = await productsNotAtShop(db(), shopId, 'gtin', 20);
    const byPartNumber = await productsNotAtShop(db(), shopId, 'brand and mpn', 5);
    const known = [...byGtin, ...byPartNumber];
    const named = known.map((product, index) => newItem(`known-${index}`, product, 100));
    // GTINs the catalogue has none of: over 10,000 rows, the catalogue's GTINs are hashed.
    const unknown = Array.from({ length: 10_000 }, (_, index) =>
      newItem(
        `unknown-${index}`,
        { gtin: `9${String(index).padStart(13, '0')}`, brand: null, mpn: null },
        100,
      ),
    );
    const items = [...(await feedOfShop(db(), shopId)), ...named, ...unknown].map(
      (item, index) => ({ ...item, line: index + 2 }),
    );
    const applied = await run(shopId, items);
    expect(applied.counts).toMatchObject({ unmatched: unknown.length, created: known.length });
    const offers = await db()
      .selectFrom('offers')
      .select(['item_id', 'product_id'])
      .where('shop_id', '=', shopId)
      .where(
        'item_id',
        'in',
        named.map((item) => item.itemId),
      )
      .execute();
    expect(new Map(offers.map((offer) => [offer.item_id, offer.product_id]))).toEqual(
      new Map(named.map((item, index) => [item.itemId, known[index]!.productId])),
    );
  });

  it('changes nothing when a run fails midway', async () => {
    const shopId = await shopWithOffers('se', 1);
    const feed = await feedOfShop(db(), shopId);
    await run(shopId, feed);
    const before = await shopRows(shopId);
    const changesBefore = await changeCount();
    const [product] = await productsNotAtShop(db(), shopId, 'gtin', 1);
    const broken = [
      ...feed.slice(2).map((item) => ({ ...item, price: item.price + 5, sale: null })),
      newItem('fine', product!, 10),
      // A price the offers table refuses (its check), after every other row is staged.
      { ...feed[1]!, price: -1, sale: null },
    ];
    await expect(run(shopId, broken)).rejects.toThrow(/offers_price_check/);
    expect(await shopRows(shopId)).toEqual(before);
    expect(await changeCount()).toBe(changesBefore);
  });

  /** How a feed names a product: its first GTIN, else its brand and MPN. */
  async function productsIdentity(productId: number) {
    const { rows } = await sql<{ gtin: string | null; brand: string | null; mpn: string | null }>`
      select (select g.gtin from gtins g where g.product_id = p.id order by g.gtin limit 1) as gtin,
             b.name as brand, p.mpn
        from products p left join brands b on b.id = p.brand_id where p.id = ${productId}`.execute(
      db(),
    );
    const row = rows[0]!;
    return row.gtin === null
      ? { gtin: null, brand: row.brand, mpn: row.mpn }
      : { gtin: row.gtin.padStart(14, '0'), brand: null, mpn: null };
  }
});
