/**
 * What a feed did, seen in the graph: `Shop.offers` lists the shop's served offers newest
 * first, each with its `itemId` and `product`, checked against the offers table's own rows
 * (the availability rule stated here, not read from the code's view).
 */
import { offsetToCursor } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { applyFeedRun } from '../../src/feeds/apply-run.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });

interface ServedOffer {
  id: number;
  item_id: string;
  product_id: number;
  market: string;
}

/** The shop's served offers as the table holds them, newest first. */
async function servedOffers(shopId: number): Promise<ServedOffer[]> {
  const { rows } = await sql<ServedOffer>`
    select id, item_id, product_id, market from offers
     where shop_id = ${shopId} and withdrawn_at is null and purchasable
       and stock_status <> 'OUT_OF_STOCK'
     order by updated_at desc, id desc`.execute(catalogue.database.db);
  return rows;
}

const PAGE = `query($shop: Int!, $first: Int, $after: String) { shop(id: $shop) {
  offers(first: $first, after: $after) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage endCursor }
    edges { node { offerId itemId market url product { productId market name } } }
  } } }`;

async function page(shop: number, first?: number, after?: string) {
  const body = await catalogue.graphql(PAGE, { shop, first, after });
  expect(body.errors).toBeUndefined();
  return body.data.shop.offers;
}

let shopId: number;
let expected: ServedOffer[];

beforeAll(async () => {
  // The shop with the most served offers: its pages are the longest list to walk.
  const { rows } = await sql<{ shop_id: number }>`
    select shop_id from offers where withdrawn_at is null and purchasable
       and stock_status <> 'OUT_OF_STOCK'
     group by shop_id order by count(*) desc, shop_id limit 1`.execute(catalogue.database.db);
  shopId = rows[0]!.shop_id;
  expected = await servedOffers(shopId);
});

describe('Shop.offers', () => {
  it('lists the served offers newest first, with their item ids and products', async () => {
    expect(expected.length).toBeGreaterThan(25);
    const offers = await page(shopId, 25);
    expect(offers.totalCount).toBe(expected.length);
    expect(offers.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const { rows: names } = await sql<{ id: number; name: string }>`
      select id, name from products where id = any(${expected.map((o) => o.product_id)})`.execute(
      catalogue.database.db,
    );
    const nameOf = new Map(names.map((row) => [row.id, row.name]));
    expect(offers.edges.map((edge: any) => edge.node)).toEqual(
      expected.slice(0, 25).map((offer) => ({
        offerId: offer.id,
        itemId: offer.item_id,
        market: offer.market.toUpperCase(),
        url: expect.any(String),
        product: {
          productId: offer.product_id,
          market: offer.market.toUpperCase(),
          name: nameOf.get(offer.product_id),
        },
      })),
    );
  });

  it('pages with first and after to the end, and a page past the end is empty', async () => {
    // Pages of 40 walk the list in several; the largest page (250) holds the whole of it.
    for (const size of [40, 250]) {
      const seen: number[] = [];
      let after: string | undefined;
      for (;;) {
        const offers = await page(shopId, size, after);
        seen.push(...offers.edges.map((edge: any) => edge.node.offerId));
        if (!offers.pageInfo.hasNextPage) break;
        expect(offers.edges).toHaveLength(size);
        after = offers.pageInfo.endCursor;
      }
      expect(seen).toEqual(expected.map((offer) => offer.id));
    }
    // After the last offer, and far past it: no offers, and the count still the whole list's.
    for (const offset of [expected.length - 1, expected.length + 10]) {
      expect(await page(shopId, 5, offsetToCursor(offset))).toMatchObject({
        edges: [],
        totalCount: expected.length,
        pageInfo: { hasNextPage: false, hasPreviousPage: true },
      });
    }
  });

  it('refuses a page over 250, before anything runs', async () => {
    const body = await catalogue.graphql(PAGE, { shop: shopId, first: 251 });
    expect(body.data).toBeUndefined();
    expect(body.errors?.[0]).toMatchObject({
      message: 'first must be between 0 and 250',
      extensions: { code: 'BAD_USER_INPUT' },
    });
  });

  it('counts only when totalCount is selected', async () => {
    await catalogue.graphql(
      `query($shop: Int!) { shop(id: $shop) {
      offers(first: 3) { edges { node { itemId } } } } }`,
      { shop: shopId },
    );
    expect(catalogue.statements.some((statement) => statement.includes('count('))).toBe(false);
  });

  it('leaves out the offers a feed withdrew', async () => {
    const [newest, second] = expected;
    const applied = await applyFeedRun(catalogue.database.db, {
      runId: 'graph-withdraw',
      shopId,
      kind: 'push',
      items: [],
      withdrawItemIds: [newest!.item_id],
    });
    expect(applied.counts.withdrawn).toBe(1);
    const offers = await page(shopId, 2);
    expect(offers.totalCount).toBe(expected.length - 1);
    expect(offers.edges[0].node.offerId).toBe(second!.id);
    expect(offers.edges.map((edge: any) => edge.node.itemId)).not.toContain(newest!.item_id);
    expect((await servedOffers(shopId)).map((offer) => offer.id)).toEqual(
      expected.slice(1).map((offer) => offer.id),
    );
  });
});

describe('Offer.product and Shop.offers in a scope', () => {
  it('an offer’s product is in the offer’s market; URLs carry the ref of the scope', async () => {
    const body = await catalogue.graphql(
      `query($id: Int!) { product(id: $id, market: SE, ref: "r-1") {
        offers(first: 1) { edges { node { product { productId market }
          shop { shopId offers(first: 2) { edges { node { url product { market } } } } } } } } } }`,
      { id: expected[1]!.product_id },
    );
    expect(body.errors).toBeUndefined();
    const offer = body.data.product.offers.edges[0].node;
    expect(offer.product).toEqual({ productId: expected[1]!.product_id, market: 'SE' });
    for (const edge of offer.shop.offers.edges) {
      expect(new URL(edge.node.url).searchParams.get('ref')).toBe('r-1');
      expect(edge.node.product.market).toBe('SE');
    }
    const untagged = await page(offer.shop.shopId, 2);
    for (const edge of untagged.edges) {
      expect(new URL(edge.node.url).searchParams.get('ref')).toBeNull();
    }
  });
});

describe('statements', () => {
  const OFFERS_WITH_PRODUCTS = `query($shop: Int!, $first: Int!) { shop(id: $shop) {
    offers(first: $first) { totalCount edges { node { itemId price { amount }
      product { name gtins offerSummary { offerCount } } shop { name } } } } } }`;

  it('a page of offers with their products runs the same statements for 2 offers or 100', async () => {
    const run = async (first: number) => {
      const body = await catalogue.graphql(OFFERS_WITH_PRODUCTS, { shop: shopId, first });
      expect(body.errors).toBeUndefined();
      expect(body.data.shop.offers.edges).toHaveLength(first);
      // Sorted: on a server, batches of one level answer in any order.
      return [...catalogue.statements].sort();
    };
    const small = await run(2);
    const large = await run(100);
    expect(large).toEqual(small);
    expect(new Set(small).size, 'each statement runs once').toBe(small.length);
    expect(small.filter((statement) => /from "?products"? /.test(statement))).toHaveLength(1);
  });
});
