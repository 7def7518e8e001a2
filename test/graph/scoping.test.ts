/**
 * Market scoping, the availability rule and ref tagging as a client sees them: every nested
 * field inherits the root field's market and ref, and compared with the raw tables, no
 * unavailable offer shows anywhere.
 */
import { sql, type Insertable } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import type { OffersTable } from '../../src/db/types.ts';
import { MARKET_CURRENCY, type MarketCode } from '../../src/markets.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

/** A hand-made product beside the generated ones, with every case the rules distinguish. */
const FIXTURE = 900_001;
const OFFER = {
  seNew: 9_000_001,
  seOutOfStock: 9_000_002,
  seNotPurchasable: 9_000_003,
  seUsedUnknown: 9_000_004,
  seLimited: 9_000_005,
  noInStock: 9_000_011,
  noOutOfStock: 9_000_012,
};
const STORED_URL = {
  seNew: 'https://shop.example/p/1?color=red&size=m',
  seUsedUnknown: 'https://shop.example/p/4?ref=stale',
  seLimited: 'https://shop.example/p/5',
};

async function insertFixture(): Promise<void> {
  const { db } = catalogue.database;
  const shopOf = async (market: MarketCode) =>
    (
      await db
        .selectFrom('shops')
        .select('id')
        .where('market', '=', market)
        .orderBy('id')
        .executeTakeFirstOrThrow()
    ).id;
  const leaf = await db
    .selectFrom('categories')
    .select('id')
    .where('is_leaf', '=', true)
    .orderBy('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('products')
    .values({
      id: FIXTURE,
      name: 'Scoping fixture',
      brand_id: null,
      category_id: leaf.id,
      rank_within_category: 999,
      popularity: 0,
      description: null,
      image_small_url: null,
      image_large_url: null,
    })
    .execute();
  const se = await shopOf('se');
  const no = await shopOf('no');
  const offer = (
    id: number,
    market: MarketCode,
    shop_id: number,
    fields: Partial<Insertable<OffersTable>>,
  ): Insertable<OffersTable> => ({
    id,
    item_id: `fixture-${id}`,
    product_id: FIXTURE,
    shop_id,
    market,
    currency: MARKET_CURRENCY[market],
    offer_name: `Fixture offer ${id}`,
    url: `https://shop.example/p/${id}`,
    condition: 'CONDITION_NEW',
    stock_status: 'IN_STOCK',
    purchasable: true,
    price: 100,
    price_including_shipping: null,
    member_price: null,
    sales_price: null,
    original_price: null,
    updated_at: '2026-11-01T00:00:00Z',
    ...fields,
  });
  await db
    .insertInto('offers')
    .values([
      offer(OFFER.seNew, 'se', se, { price: 100, url: STORED_URL.seNew }),
      offer(OFFER.seOutOfStock, 'se', se, { price: 50, stock_status: 'OUT_OF_STOCK' }),
      offer(OFFER.seNotPurchasable, 'se', se, { price: 40, purchasable: false }),
      offer(OFFER.seUsedUnknown, 'se', se, {
        price: 120,
        condition: 'CONDITION_USED',
        stock_status: 'UNKNOWN',
        url: STORED_URL.seUsedUnknown,
      }),
      offer(OFFER.seLimited, 'se', se, {
        price: 110,
        stock_status: 'LIMITED_STOCK',
        url: STORED_URL.seLimited,
      }),
      offer(OFFER.noInStock, 'no', no, { price: 900 }),
      offer(OFFER.noOutOfStock, 'no', no, { price: 500, stock_status: 'OUT_OF_STOCK' }),
    ])
    .execute();
  await db
    .insertInto('offer_alternative_prices')
    .values([
      { offer_id: OFFER.seNew, position: 0, price: 95, url: 'https://shop.example/alt/1?v=2' },
      { offer_id: OFFER.seNew, position: 1, price: 97, url: 'https://shop.example/alt/2' },
    ])
    .execute();
  await refreshProductMarketSummaries(db, { productIds: [FIXTURE], asOf: '2026-11-01' });
}

beforeAll(insertFixture);

const OFFER_FIELDS = `offerId market url stockStatus productCondition
  price { value currency } shop { shopId market }
  alternativePrices { url price { value currency } }`;

const PRODUCT_FIELDS = `id productId market
  lowestPrice { ${OFFER_FIELDS} }
  offerSummary {
    offerCount bestStockStatus
    lowestNewPrice { value currency } lowestAlternativePrice { value currency }
    lowestInStockPrice { value currency }
  }
  offers(first: 100) { totalCount edges { node { ${OFFER_FIELDS} } } }`;

interface OfferView {
  offerId: number;
  market: string;
  url: string;
  stockStatus: string;
  price: { value: number; currency: string };
  shop: { shopId: number; market: string };
  alternativePrices: { url: string; price: { value: number; currency: string } }[];
}

interface ProductView {
  id: string;
  productId: number;
  market: string;
  lowestPrice: OfferView | null;
  offerSummary: {
    offerCount: number;
    bestStockStatus: string | null;
    lowestNewPrice: { value: number; currency: string } | null;
    lowestAlternativePrice: { value: number; currency: string } | null;
    lowestInStockPrice: { value: number; currency: string } | null;
  };
  offers: { totalCount: number; edges: { node: OfferView }[] };
}

async function data<Data>(query: string, variables?: Record<string, unknown>): Promise<Data> {
  const body = await catalogue.graphql<Data>(query, variables);
  expect(body.errors).toBeUndefined();
  return body.data!;
}

const offersOf = (product: ProductView) => product.offers.edges.map((edge) => edge.node);

describe('market scoping', () => {
  it('shows one product in two markets with each market’s prices, currency and shops', async () => {
    const { se, no } = await data<{ se: ProductView; no: ProductView }>(
      `query ($id: Int!) {
        se: product(market: SE, id: $id) { ${PRODUCT_FIELDS} }
        no: product(market: NO, id: $id) { ${PRODUCT_FIELDS} }
      }`,
      { id: FIXTURE },
    );
    expect(se.market).toBe('SE');
    expect(no.market).toBe('NO');
    expect(se.id).not.toBe(no.id);
    expect(offersOf(se).map((o) => o.offerId)).toEqual([
      OFFER.seNew,
      OFFER.seLimited,
      OFFER.seUsedUnknown,
    ]);
    expect(offersOf(no).map((o) => o.offerId)).toEqual([OFFER.noInStock]);
    for (const [product, market, currency] of [
      [se, 'SE', 'SEK'],
      [no, 'NO', 'NOK'],
    ] as const) {
      for (const offer of [...offersOf(product), product.lowestPrice!]) {
        expect(offer.market).toBe(market);
        expect(offer.price.currency).toBe(currency);
        expect(offer.shop.market).toBe(market);
        for (const alternative of offer.alternativePrices) {
          expect(alternative.price.currency).toBe(currency);
        }
      }
      for (const price of Object.values(product.offerSummary)) {
        if (price !== null && typeof price === 'object') expect(price.currency).toBe(currency);
      }
    }
    expect(se.lowestPrice).toMatchObject({ offerId: OFFER.seNew, price: { value: 100 } });
    expect(no.lowestPrice).toMatchObject({ offerId: OFFER.noInStock, price: { value: 900 } });
  });

  it('keeps a generated product’s markets apart as the tables do', async () => {
    const { db } = catalogue.database;
    const sold = await db
      .selectFrom('available_offers')
      .select([
        'product_id',
        sql<string[]>`array_agg(distinct market order by market)`.as('markets'),
      ])
      .where('product_id', '<', FIXTURE)
      .groupBy('product_id')
      .having(sql`count(distinct market)`, '>=', 2)
      .orderBy('product_id')
      .executeTakeFirstOrThrow();
    const [first, second] = sold.markets as MarketCode[];
    const views = await data<{ a: ProductView; b: ProductView }>(
      `query ($id: Int!, $a: Market!, $b: Market!) {
        a: product(market: $a, id: $id) { ${PRODUCT_FIELDS} }
        b: product(market: $b, id: $id) { ${PRODUCT_FIELDS} }
      }`,
      { id: sold.product_id, a: first!.toUpperCase(), b: second!.toUpperCase() },
    );
    for (const [view, market] of [
      [views.a, first!],
      [views.b, second!],
    ] as const) {
      const rows = await db
        .selectFrom('available_offers')
        .select(['id', 'shop_id'])
        .where('product_id', '=', sold.product_id)
        .where('market', '=', market)
        .orderBy('price')
        .orderBy('id')
        .execute();
      expect(offersOf(view).map((o) => o.offerId)).toEqual(rows.map((row) => row.id));
      expect(offersOf(view).map((o) => o.shop.shopId)).toEqual(rows.map((row) => row.shop_id));
      expect(new Set(offersOf(view).map((o) => o.price.currency))).toEqual(
        new Set([MARKET_CURRENCY[market]]),
      );
    }
  });

  it('passes the root’s market down through categories, listings and offers', async () => {
    const { category } = await data<{
      category: {
        lowestPrice: { currency: string } | null;
        url: string;
        products: {
          edges: {
            node: {
              market: string;
              category: { lowestPrice: { currency: string } | null };
              offers: {
                edges: {
                  node: { market: string; price: { currency: string }; shop: { market: string } };
                }[];
              };
            };
          }[];
        };
        children: { lowestPrice: { currency: string } | null }[];
      };
    }>(
      `query ($slug: String!) {
        category(market: NO, slug: $slug) {
          url
          lowestPrice { currency }
          children { lowestPrice { currency } }
          products(first: 10) {
            edges { node {
              market
              category { lowestPrice { currency } }
              offers(first: 5) { edges { node { market price { currency } shop { market } } } }
            } }
          }
        }
      }`,
      { slug: await rootWithProductsIn('no') },
    );
    expect(category.url).toMatch(/^https:\/\/www\.pricecompare\.no\/category\//);
    expect(category.lowestPrice?.currency).toBe('NOK');
    for (const child of category.children) {
      if (child.lowestPrice) expect(child.lowestPrice.currency).toBe('NOK');
    }
    expect(category.products.edges.length).toBeGreaterThan(0);
    for (const { node } of category.products.edges) {
      expect(node.market).toBe('NO');
      expect(node.category.lowestPrice?.currency).toBe('NOK');
      expect(node.offers.edges.length).toBeGreaterThan(0);
      for (const offer of node.offers.edges) {
        expect(offer.node).toEqual({
          market: 'NO',
          price: { currency: 'NOK' },
          shop: { market: 'NO' },
        });
      }
    }
  });
});

/** The slug of the root category holding the most products available in the market. */
async function rootWithProductsIn(market: MarketCode): Promise<string> {
  const { rows } = await sql<{ slug: string }>`
    with recursive up (leaf, id, parent_id) as (
      select c.id, c.id, c.parent_id from categories c where c.is_leaf
      union all
      select up.leaf, c.id, c.parent_id from up join categories c on c.id = up.parent_id
    )
    select root.slug from up
      join categories root on root.id = up.id and root.parent_id is null
      join product_market_summaries s on s.category_id = up.leaf and s.market = ${market}
     group by root.slug order by count(*) desc, root.slug limit 1`.execute(catalogue.database.db);
  return rows[0]!.slug;
}

describe('the availability rule through GraphQL', () => {
  it('leaves out of stock and non-purchasable offers from offers, lowest price and summary', async () => {
    const { product } = await data<{ product: ProductView }>(
      `query ($id: Int!) { product(market: SE, id: $id) { ${PRODUCT_FIELDS} } }`,
      { id: FIXTURE },
    );
    const shown = offersOf(product).map((o) => o.offerId);
    expect(shown).not.toContain(OFFER.seOutOfStock);
    expect(shown).not.toContain(OFFER.seNotPurchasable);
    expect(product.offers.totalCount).toBe(3);
    expect(product.lowestPrice?.offerId).toBe(OFFER.seNew);
    expect(product.offerSummary).toEqual({
      offerCount: 3,
      bestStockStatus: 'IN_STOCK',
      lowestNewPrice: { value: 100, currency: 'SEK' },
      lowestAlternativePrice: { value: 120, currency: 'SEK' },
      lowestInStockPrice: { value: 100, currency: 'SEK' },
    });
  });

  it('does not find an unavailable offer by its global id', async () => {
    const offerId = (id: number) => btoa(`Offer:${id}`);
    const body = await catalogue.graphql<{ nodes: ({ offerId: number } | null)[] }>(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { ... on Offer { offerId } } }`,
      { ids: [OFFER.seNew, OFFER.seOutOfStock, OFFER.seNotPurchasable].map(offerId) },
    );
    expect(body.data?.nodes).toEqual([{ offerId: OFFER.seNew }, null, null]);
    // Unknown to the API like any id naming no object: NOT_FOUND at its position.
    expect(body.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['nodes', 1], 'NOT_FOUND'],
      [['nodes', 2], 'NOT_FOUND'],
    ]);
  });

  it('agrees with the raw tables on every generated product of a market', async () => {
    const { db } = catalogue.database;
    const { products } = await data<{ products: { edges: { node: ProductView }[] } }>(
      `{ products(market: DK, first: 250) { edges { node { ${PRODUCT_FIELDS} } } } }`,
    );
    const listed = products.edges.map((edge) => edge.node);
    expect(listed.length).toBeGreaterThan(10);
    const rows = await db
      .selectFrom('offers')
      .select(['id', 'product_id', 'price', 'condition', 'stock_status', 'purchasable'])
      .where('market', '=', 'dk')
      .where(
        'product_id',
        'in',
        listed.map((product) => product.productId),
      )
      .execute();
    expect(rows.some((row) => !row.purchasable || row.stock_status === 'OUT_OF_STOCK')).toBe(true);
    const available = rows.filter((row) => row.purchasable && row.stock_status !== 'OUT_OF_STOCK');
    for (const product of listed) {
      const own = available.filter((row) => row.product_id === product.productId);
      const cheapest = Math.min(...own.map((row) => row.price));
      const newOnes = own.filter((row) => row.condition === 'CONDITION_NEW');
      expect(
        offersOf(product)
          .map((o) => o.offerId)
          .sort(),
      ).toEqual(own.map((row) => row.id).sort());
      expect(product.offers.totalCount).toBe(own.length);
      expect(product.offerSummary.offerCount).toBe(own.length);
      expect(product.lowestPrice?.price.value).toBe(cheapest);
      expect(product.offerSummary.lowestNewPrice?.value ?? null).toBe(
        newOnes.length > 0 ? Math.min(...newOnes.map((row) => row.price)) : null,
      );
      expect(offersOf(product).every((o) => o.stockStatus !== 'OUT_OF_STOCK')).toBe(true);
    }
  });
});

describe('ref tagging', () => {
  const urlsOf = (product: ProductView) =>
    [...offersOf(product), product.lowestPrice!].flatMap((offer) => [
      offer.url,
      ...offer.alternativePrices.map((alternative) => alternative.url),
    ]);

  it('adds ref to every offer and alternative price URL, merged into the query string', async () => {
    const { product } = await data<{ product: ProductView }>(
      `query ($id: Int!, $ref: String) { product(market: SE, id: $id, ref: $ref) { ${PRODUCT_FIELDS} } }`,
      { id: FIXTURE, ref: 'partner-42' },
    );
    const byId = new Map(offersOf(product).map((offer) => [offer.offerId, offer]));
    expect(byId.get(OFFER.seNew)!.url).toBe(
      'https://shop.example/p/1?color=red&size=m&ref=partner-42',
    );
    expect(byId.get(OFFER.seNew)!.alternativePrices.map((a) => a.url)).toEqual([
      'https://shop.example/alt/1?v=2&ref=partner-42',
      'https://shop.example/alt/2?ref=partner-42',
    ]);
    expect(byId.get(OFFER.seUsedUnknown)!.url).toBe('https://shop.example/p/4?ref=partner-42');
    expect(byId.get(OFFER.seLimited)!.url).toBe('https://shop.example/p/5?ref=partner-42');
    expect(product.lowestPrice!.url).toBe(byId.get(OFFER.seNew)!.url);
  });

  it('URL-encodes the ref and tags every URL of a listing', async () => {
    const ref = 'a.b~c_d';
    const { products } = await data<{ products: { edges: { node: ProductView }[] } }>(
      `query ($ref: String) { products(market: SE, first: 20, ref: $ref) { edges { node { ${PRODUCT_FIELDS} } } } }`,
      { ref },
    );
    const urls = products.edges.flatMap((edge) => urlsOf(edge.node));
    expect(urls.length).toBeGreaterThan(20);
    for (const url of urls) {
      const parsed = new URL(url);
      expect(parsed.searchParams.getAll('ref')).toEqual([ref]);
      expect(url).toMatch(/[?&]ref=a\.b(~|%7E)c_d(&|$)/);
    }
  });

  it('returns URLs exactly as stored without ref', async () => {
    const { db } = catalogue.database;
    const { products } = await data<{ products: { edges: { node: ProductView }[] } }>(
      `{ products(market: SE, first: 20) { edges { node { ${PRODUCT_FIELDS} } } } }`,
    );
    const shown = products.edges.flatMap((edge) => offersOf(edge.node));
    const stored = await db
      .selectFrom('offers')
      .select(['id', 'url'])
      .where(
        'id',
        'in',
        shown.map((offer) => offer.offerId),
      )
      .execute();
    const storedUrl = new Map(stored.map((row) => [row.id, row.url]));
    for (const offer of shown) expect(offer.url).toBe(storedUrl.get(offer.offerId));

    const alternatives = await db
      .selectFrom('offer_alternative_prices')
      .select(['offer_id', 'url'])
      .where(
        'offer_id',
        'in',
        shown.map((offer) => offer.offerId),
      )
      .orderBy('offer_id')
      .orderBy('position')
      .execute();
    expect(shown.flatMap((offer) => offer.alternativePrices.map((a) => a.url)).sort()).toEqual(
      alternatives.map((row) => row.url).sort(),
    );

    const { product } = await data<{ product: ProductView }>(
      `query ($id: Int!) { product(market: SE, id: $id) { ${PRODUCT_FIELDS} } }`,
      { id: FIXTURE },
    );
    expect(offersOf(product).find((o) => o.offerId === OFFER.seUsedUnknown)!.url).toBe(
      STORED_URL.seUsedUnknown,
    );
  });
});

describe('global ids', () => {
  it('round-trip Product, Offer, Shop, Brand and Category through node and nodes', async () => {
    const { products } = await data<{
      products: {
        edges: {
          node: {
            id: string;
            productId: number;
            brand: { id: string; brandId: number } | null;
            category: { id: string; categoryId: number };
            lowestPrice: { id: string; offerId: number; shop: { id: string; shopId: number } };
          };
        }[];
      };
    }>(`{ products(market: FI, first: 20) { edges { node {
        id productId
        brand { id brandId }
        category { id categoryId }
        lowestPrice { id offerId shop { id shopId } }
      } } } }`);
    const product = products.edges.map((edge) => edge.node).find((node) => node.brand)!;
    expect(product).toBeDefined();
    const expected = [
      { id: product.id, __typename: 'Product', productId: product.productId, market: 'FI' },
      { id: product.lowestPrice.id, __typename: 'Offer', offerId: product.lowestPrice.offerId },
      {
        id: product.lowestPrice.shop.id,
        __typename: 'Shop',
        shopId: product.lowestPrice.shop.shopId,
      },
      { id: product.brand!.id, __typename: 'Brand', brandId: product.brand!.brandId },
      { id: product.category.id, __typename: 'Category', categoryId: product.category.categoryId },
    ];
    const selection = `id __typename
      ... on Product { productId market }
      ... on Offer { offerId }
      ... on Shop { shopId }
      ... on Brand { brandId }
      ... on Category { categoryId }`;
    const { nodes } = await data<{ nodes: unknown[] }>(
      `query ($ids: [ID!]!) { nodes(ids: $ids) { ${selection} } }`,
      { ids: expected.map((node) => node.id) },
    );
    expect(nodes).toEqual(expected);
    for (const node of expected) {
      const found = await data<{ node: unknown }>(
        `query ($id: ID!) { node(id: $id) { ${selection} } }`,
        { id: node.id },
      );
      expect(found.node).toEqual(node);
    }
  });

  it('keeps the market in a product’s and a category’s id', async () => {
    const { se, no } = await data<{
      se: { id: string; category: { id: string } };
      no: { id: string; category: { id: string } };
    }>(
      `query ($id: Int!) {
        se: product(market: SE, id: $id) { id category { id } }
        no: product(market: NO, id: $id) { id category { id } }
      }`,
      { id: FIXTURE },
    );
    const { nodes } = await data<{
      nodes: { market?: string; lowestPrice?: { currency: string } }[];
    }>(
      `query ($ids: [ID!]!) { nodes(ids: $ids) {
        ... on Product { market }
        ... on Category { lowestPrice { currency } }
      } }`,
      { ids: [se.id, no.id, se.category.id, no.category.id] },
    );
    expect(nodes[0]).toEqual({ market: 'SE' });
    expect(nodes[1]).toEqual({ market: 'NO' });
    expect(nodes[2]!.lowestPrice?.currency).toBe('SEK');
    expect(nodes[3]!.lowestPrice?.currency).toBe('NOK');
  });
});
