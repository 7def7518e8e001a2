/**
 * A full feed as a run, from its bytes to its report (docs/api.md, "Feeds"): a shop's own
 * offers sent back as TSV with a few prices changed are applied, the rejected rows and
 * ignored columns reported, and the graph then answers the feed's prices; a feed with too
 * many rows rejected, or empty, is rejected whole and changes nothing; gzip reads the same.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import { runFullFeed, type FullFeed } from '../../src/feeds/feed-run.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { feedOfShop, itemsTsv as tsv } from './shop-feed.ts';

const PRICES = `query($ids: [Int!]!) {
  products(ids: $ids, market: SE, first: 50) {
    edges { node { productId offers(first: 50) { edges { node { url price { value } } } } } }
  }
}`;

describe(`a full feed run on ${databaseKind}`, () => {
  const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });
  const db = () => catalogue.database.db;
  const feed = (shopId: number, body: Buffer, extra: Partial<FullFeed> = {}) =>
    runFullFeed(db(), {
      shopId,
      body: Readable.from([body]),
      format: 'tsv',
      gzip: false,
      maxRejectedShare: 0.5,
      ...extra,
    });

  /**
   * The `nth` Swedish shop's feed of its offers that are not on sale, as the catalogue holds
   * them: each case takes a shop of its own.
   */
  async function shopFeed(nth: number): Promise<{ shopId: number; items: FeedItem[] }> {
    const shop = await db()
      .selectFrom('shops')
      .select('id')
      .where('market', '=', 'se')
      .orderBy('id')
      .offset(nth)
      .executeTakeFirstOrThrow();
    const items = (await feedOfShop(db(), shop.id)).filter(
      (item) => item.sale === null && item.shippingPrice === null,
    );
    expect(items.length).toBeGreaterThan(5);
    return { shopId: shop.id, items };
  }

  it('applies the rows, reports the rejected and the ignored, and the graph answers its prices', async () => {
    const { shopId, items } = await shopFeed(0);
    // First as the catalogue has them: offers the feed leaves out are withdrawn, stock states
    // the feed cannot state (limited, incoming) become in stock.
    expect((await feed(shopId, tsv(items, 'SEK'))).state).toBe('applied');
    const changed = items.slice(0, 3).map((item) => ({ ...item, price: item.price + 1 }));
    const sent = [...changed, ...items.slice(3)];
    const report = await feed(
      shopId,
      tsv(sent, 'SEK', ['BAD-1\tA bad row\thttps://x.example\tfree\tin_stock']),
    );

    expect(report).toMatchObject({
      shopId,
      kind: 'full',
      format: 'tsv',
      state: 'applied',
      reason: null,
      ignoredColumns: ['custom_label_0'],
      rejectedRows: [{ line: sent.length + 2, itemId: 'BAD-1', field: 'price' }],
    });
    expect(report.counts, JSON.stringify(report)).toMatchObject({
      rows: sent.length + 1,
      rejected: 1,
      updated: 3,
    });
    expect(report.counts.unchanged).toBe(sent.length - 3);

    const links = new Map(changed.map((item) => [item.link, item.price]));
    const offers = await db()
      .selectFrom('offers')
      .select(['url', 'price', 'product_id'])
      .where('shop_id', '=', shopId)
      .where('url', 'in', [...links.keys()])
      .execute();
    const served = await catalogue.graphql(PRICES, {
      ids: offers.map((offer) => offer.product_id),
    });
    expect(served.errors).toBeUndefined();
    const servedPrices = new Map<string, number>();
    for (const { node: product } of served.data.products.edges) {
      for (const { node } of product.offers.edges) servedPrices.set(node.url, node.price.value);
    }
    for (const [link, price] of links) expect(servedPrices.get(link), link).toBe(price);

    // The same feed again: nothing to change.
    const again = await feed(shopId, tsv(sent, 'SEK'));
    expect(again.counts).toMatchObject({ created: 0, updated: 0, withdrawn: 0 });
  });

  it('rejects a feed with more rows rejected than allowed, and changes nothing', async () => {
    const { shopId, items } = await shopFeed(1);
    const before = await db()
      .selectFrom('offers')
      .selectAll()
      .where('shop_id', '=', shopId)
      .execute();
    const broken = items.map((item) => ({ ...item, price: item.price + 5 }));
    // Every row but the first priced in another currency: a broken export.
    const body = tsv(broken.slice(0, 1), 'SEK', tsvRows(broken.slice(1), 'EUR'));
    const report = await feed(shopId, body);
    expect(report.state).toBe('rejected');
    expect(report.reason).toMatch(/rows rejected, more than 50 %: nothing applied/);
    expect(report.counts).toMatchObject({ rows: broken.length, rejected: broken.length - 1 });
    expect(report.rejectedRows[0]).toMatchObject({ field: 'price' });
    const after = await db()
      .selectFrom('offers')
      .selectAll()
      .where('shop_id', '=', shopId)
      .execute();
    expect(after).toEqual(before);

    // Allowed a larger share, the same feed applies its one good row and withdraws the rest.
    const lenient = await feed(shopId, body, { maxRejectedShare: 1 });
    expect(lenient.state).toBe('applied');
    expect(lenient.counts.updated).toBe(1);
  });

  it('rejects the second and later rows with an id, whatever became of the first', async () => {
    const { shopId, items } = await shopFeed(3);
    const [first, second] = items;
    const rows = [first!, second!, first!, second!, first!];
    // The first row with the first id is priced in another currency: rejected, and still the
    // first with that id.
    const body = tsv([], 'SEK', [
      ...tsvRows(rows.slice(0, 1), 'EUR'),
      ...tsvRows(rows.slice(1), 'SEK'),
    ]);
    const report = await feed(shopId, body, { maxRejectedShare: 1 });
    expect(report.state).toBe('applied');
    expect(report.rejectedRows.map((row) => [row.line, row.itemId, row.field, row.reason])).toEqual(
      [
        [2, first!.itemId, 'price', "in EUR, not the market's currency SEK"],
        [4, first!.itemId, 'id', 'a duplicate of the item on line 2'],
        [5, second!.itemId, 'id', 'a duplicate of the item on line 3'],
        [6, first!.itemId, 'id', 'a duplicate of the item on line 2'],
      ],
    );
    expect(report.counts).toMatchObject({ rows: 5, rejected: 4 });
    // The one row applied is the second id's first: the shop lists that item alone now.
    const listed = await db()
      .selectFrom('offers')
      .select('item_id')
      .where('shop_id', '=', shopId)
      .where('withdrawn_at', 'is', null)
      .execute();
    expect(listed.map((offer) => offer.item_id)).toEqual([second!.itemId]);
  });

  it('rejects an empty feed whole, and reads a gzip feed as the plain one', async () => {
    const { shopId, items } = await shopFeed(2);
    const empty = await feed(shopId, Buffer.alloc(0));
    expect(empty).toMatchObject({ state: 'rejected', reason: expect.stringMatching(/empty/) });
    const plain = tsv(items, 'SEK');
    const zipped = await feed(shopId, gzipSync(plain), { gzip: true });
    expect(zipped.state).toBe('applied');
    expect(zipped.counts.rows).toBe(items.length);
  });
});

/** Rows without the header, each priced in `currency`. */
function tsvRows(items: FeedItem[], currency: string): string[] {
  return tsv(items, currency).toString().split('\n').slice(1);
}
