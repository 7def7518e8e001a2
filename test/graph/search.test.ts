/**
 * Text search through the GraphQL API: `products(query: …)` in each market's language with
 * prefixes and typos, its filters and orders, hostile input, and `categories(query: …)`.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import { searchProductIds } from '../../src/db/repositories/product-search.ts';
import { rebuildSearchWords } from '../../src/db/repositories/search-vocabulary.ts';
import {
  searchTermOf,
  splitQuery,
  textSearchOf,
  type TextSearch,
} from '../../src/search/text-search.ts';
import { readTypoVocabulary } from '../../src/search/vocabularies.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { insertBasics, insertOffers, insertProduct } from '../helpers/fixtures.ts';
import { postGraphql } from '../helpers/graphql.ts';

const AS_OF = '2026-11-01';
/** 90 days before AS_OF: the first day of the price-trend window. */
const WINDOW_START = '2026-08-03';

/** Categories below insertBasics' Electronics (1) › Mobile phones (2). */
const CATEGORIES = [
  { id: 3, parent_id: 1, slug: 'headphones', name: 'Headphones', is_leaf: true },
  { id: 4, parent_id: null, slug: 'home-and-leisure', name: 'Home and leisure', is_leaf: false },
  { id: 5, parent_id: 4, slug: 'bags', name: 'Bags', is_leaf: true },
  { id: 6, parent_id: 4, slug: 'toys', name: 'Toys', is_leaf: true },
  { id: 7, parent_id: 1, slug: 'mobile-phone-cases', name: 'Mobile phone cases', is_leaf: true },
];

/** id, name, popularity, leaf category, and the markets where it has an available offer. */
const PRODUCTS = [
  [1, 'Samsung Galaxy S24 128GB', 90, 2, ['se', 'gb']],
  [2, 'Samsung Galaxy A55', 95, 2, ['se', 'gb']],
  [3, 'Apple iPhone 15 Pro', 99, 2, ['se']],
  [4, 'Samsung Galaxy Buds3 Pro', 60, 3, ['se']],
  [5, 'Väska Classic Leather', 40, 5, ['se', 'gb']],
  [6, 'Pony Toy Rainbow', 30, 6, ['se', 'gb']],
  // Most popular of all, but only a typo-like match for "galaxy" in Swedish.
  [7, 'Galaxi Star Projector', 100, 6, ['se']],
  [8, 'The Hörlurar Kit', 20, 3, ['se', 'gb']],
] as const;

describe(`text search on ${databaseKind}`, () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    await db.insertInto('categories').values(CATEGORIES).execute();
    let offerId = 0;
    for (const [id, name, popularity, categoryId, markets] of PRODUCTS) {
      await insertProduct(db, id, { name, popularity, category_id: categoryId });
      await insertOffers(
        db,
        markets.map((market) => ({ id: ++offerId, product_id: id, price: 100 * id, market })),
      );
    }
    // Known in the catalogue, but with no available offer: never found.
    await insertProduct(db, 20, { name: 'Samsung Galaxy Tab S9', popularity: 99, category_id: 2 });
    await insertProduct(db, 21, { name: 'Samsung Galaxy S23', popularity: 99, category_id: 2 });
    await insertOffers(db, [
      { id: 100, product_id: 20, price: 1, stock_status: 'OUT_OF_STOCK' },
      { id: 101, product_id: 21, price: 1, purchasable: false },
    ]);
    // Price trends in se: product 1 is 20 % below its average, product 2 10 % above.
    await db
      .insertInto('price_history')
      .values([
        { product_id: 1, market: 'se', first_day: WINDOW_START, daily_lowest_prices: fill(125) },
        { product_id: 2, market: 'se', first_day: WINDOW_START, daily_lowest_prices: fill(180) },
        { product_id: 4, market: 'se', first_day: WINDOW_START, daily_lowest_prices: fill(400) },
      ])
      .execute();
    await refreshProductMarketSummaries(db, { asOf: AS_OF });
    await rebuildSearchWords(db);

    app = createApp({ config: loadConfig({}), database, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => database?.dispose());

  function fill(price: number): number[] {
    return Array<number>(90).fill(price);
  }

  interface GraphQLResponse {
    data?: Record<string, any> | null;
    errors?: { message: string; extensions?: { code?: string } }[];
  }

  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const response = await postGraphql(app, query, variables);
    return { status: response.status, body: (await response.json()) as GraphQLResponse };
  }

  const PRODUCTS_QUERY = /* GraphQL */ `
    query Search(
      $market: Market!
      $query: String
      $category: String
      $priceTrend: PriceTrendFilter
      $orderBy: ProductOrder
      $first: Int
      $after: String
    ) {
      products(
        market: $market
        query: $query
        category: $category
        priceTrend: $priceTrend
        orderBy: $orderBy
        first: $first
        after: $after
      ) {
        totalCount
        pageInfo {
          hasNextPage
          endCursor
        }
        edges {
          node {
            productId
          }
        }
      }
    }
  `;

  /** The product ids a search finds, in order (fails on any error). */
  async function search(variables: Record<string, unknown>): Promise<number[]> {
    const { body } = await graphql(PRODUCTS_QUERY, { market: 'SE', ...variables });
    expect(body.errors).toBeUndefined();
    return body.data!.products.edges.map((edge: any) => edge.node.productId);
  }

  async function errorCodeOf(variables: Record<string, unknown>, query = PRODUCTS_QUERY) {
    const { status, body } = await graphql(query, { market: 'SE', ...variables });
    expect(status).toBeLessThan(500);
    return { code: body.errors?.[0]?.extensions?.code, message: body.errors?.[0]?.message };
  }

  describe('matching', () => {
    it('finds whole words in any case, ranked by relevance then popularity', async () => {
      // Both match both words exactly: the more popular A55 first.
      expect(await search({ query: 'samsung galaxy' })).toEqual([2, 1, 4]);
      expect(await search({ query: 'SAMSUNG' })).toEqual([2, 1, 4]);
    });

    it('requires every term to match', async () => {
      expect(await search({ query: 'samsung a55' })).toEqual([2]);
      expect(await search({ query: 'galaxy s24 128gb' })).toEqual([1]);
      expect(await search({ query: 'samsung iphone' })).toEqual([]);
    });

    it('matches prefixes of words', async () => {
      expect(await search({ query: 'sams' })).toEqual([2, 1, 4]);
      expect(await search({ query: 'iph' })).toEqual([3]);
      expect(await search({ query: 'sams gal s2' })).toEqual([1]);
    });

    it('tolerates typos', async () => {
      expect(await search({ query: 'samsumg' })).toEqual([2, 1, 4]);
      expect(await search({ query: 'galaxi a55' })).toEqual([2]);
      // Two neighbours swapped is one typo (issue 13).
      expect(await search({ query: 'iphnoe' })).toEqual([3]);
    });

    it('ranks a better match above a more popular, weaker one', async () => {
      // In Swedish "galaxy" and "galaxi" stem differently: the projector (popularity 100)
      // matches only by similarity and comes after the Samsungs' exact matches.
      expect(await search({ query: 'galaxy' })).toEqual([2, 1, 4, 7]);
      // "Pro" as a word comes before a word that starts with it ("Projector", popularity 100).
      expect(await search({ query: 'pro' })).toEqual([3, 4, 7]);
    });

    it('stems in the market’s language: Swedish in se, English in gb', async () => {
      // Swedish stems "väskor" (bags) and "väska" (bag) alike; English does not.
      expect(await search({ query: 'väskor' })).toEqual([5]);
      expect(await search({ query: 'väskor', market: 'GB' })).toEqual([]);
      // English stems "ponies" and "pony" alike; Swedish does not.
      expect(await search({ query: 'ponies', market: 'GB' })).toEqual([6]);
      expect(await search({ query: 'ponies' })).toEqual([]);
      // Stop words are words like any other (migration 0005's configurations keep them).
      expect(await search({ query: 'the', market: 'GB' })).toEqual([8]);
    });

    it('writes the market’s text-search configuration into the SQL as a constant', async () => {
      database.statements.length = 0;
      await search({ query: 'samsung' });
      await search({ query: 'samsung', market: 'GB' });
      const text = database.statements.join('\n');
      expect(text).toContain(`to_tsquery('search_swedish'::regconfig, $`);
      expect(text).toContain(`to_tsquery('search_english'::regconfig, $`);
      expect(text).not.toContain('samsung');
    });

    it('finds only products with an available offer in the market', async () => {
      expect(await search({ query: 'galaxy tab' })).toEqual([]);
      expect(await search({ query: 's23' })).toEqual([]);
      expect(await search({ query: 'iphone', market: 'GB' })).toEqual([]);
      expect(await search({ query: 'samsung', market: 'GB' })).toEqual([2, 1]);
    });

    it('treats a blank query as none and a query without words as matching nothing', async () => {
      const all = await search({ first: 50 });
      expect(all).toHaveLength(PRODUCTS.length);
      expect(await search({ query: '   ', first: 50 })).toEqual(all);
      expect(await search({ query: '!!! ::' })).toEqual([]);
    });
  });

  describe('filters, orders and paging', () => {
    it('combines the query with a category subtree', async () => {
      expect(await search({ query: 'samsung', category: 'mobile-phones' })).toEqual([2, 1]);
      expect(await search({ query: 'samsung', category: 'headphones' })).toEqual([4]);
      expect(await search({ query: 'samsung', category: '1' })).toEqual([2, 1, 4]);
      expect(await search({ query: 'samsung', category: 'bags' })).toEqual([]);
    });

    it('combines the query with price trend bounds', async () => {
      // Trends: 1 → +20.0 (100 against 125), 2 → −11.1 (200 against 180), 4 → 0.0.
      expect(await search({ query: 'samsung', priceTrend: { gte: 0 } })).toEqual([1, 4]);
      expect(await search({ query: 'samsung', priceTrend: { lte: 0 } })).toEqual([2, 4]);
      expect(await search({ query: 'samsung', priceTrend: { gte: -12, lte: 10 } })).toEqual([2, 4]);
    });

    it('orders a search by popularity, price or price trend when asked', async () => {
      expect(await search({ query: 'galaxy', orderBy: 'POPULARITY' })).toEqual([7, 2, 1, 4]);
      expect(await search({ query: 'galaxy', orderBy: 'PRICE' })).toEqual([1, 2, 4, 7]);
      expect(await search({ query: 'galaxy', orderBy: 'PRICE_TREND' })).toEqual([1, 4, 2, 7]);
      expect(await search({ query: 'galaxy', orderBy: 'RELEVANCE' })).toEqual([2, 1, 4, 7]);
    });

    it('pages through the results and counts them', async () => {
      const first = await graphql(PRODUCTS_QUERY, { market: 'SE', query: 'galaxy', first: 3 });
      const { totalCount, pageInfo, edges } = first.body.data!.products;
      expect(edges.map((edge: any) => edge.node.productId)).toEqual([2, 1, 4]);
      expect(totalCount).toBe(4);
      expect(pageInfo.hasNextPage).toBe(true);
      const second = await graphql(PRODUCTS_QUERY, {
        market: 'SE',
        query: 'galaxy',
        first: 3,
        after: pageInfo.endCursor,
      });
      expect(second.body.data!.products.edges).toEqual([{ node: { productId: 7 } }]);
      expect(second.body.data!.products.pageInfo.hasNextPage).toBe(false);
      expect(second.body.data!.products.totalCount).toBe(4);
    });

    it('rejects RELEVANCE without a query', async () => {
      expect(await errorCodeOf({ orderBy: 'RELEVANCE' })).toMatchObject({
        code: 'BAD_USER_INPUT',
        message: expect.stringContaining('query'),
      });
      const { body } = await graphql(`
        {
          category(market: SE, slug: "mobile-phones") {
            products(orderBy: RELEVANCE) {
              edges {
                node {
                  productId
                }
              }
            }
          }
        }
      `);
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });

    it('rejects a query together with ids', async () => {
      const { body } = await graphql(`
        {
          products(market: SE, ids: [1], query: "samsung") {
            edges {
              node {
                productId
              }
            }
          }
        }
      `);
      expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    });
  });

  describe('bounds and hostile input', () => {
    it('accepts eight terms and rejects nine', async () => {
      const eight = 'samsung galaxy s24 128gb sams gal s2 128';
      expect(await search({ query: eight })).toEqual([1]);
      expect(await errorCodeOf({ query: `${eight} extra` })).toEqual({
        code: 'BAD_USER_INPUT',
        message: 'query must have at most 8 space-separated terms, not 9',
      });
    });

    it('rejects a query longer than 200 characters', async () => {
      expect(await search({ query: 'a'.repeat(200) })).toEqual([]);
      expect(await errorCodeOf({ query: 'a'.repeat(201) })).toMatchObject({
        code: 'BAD_USER_INPUT',
      });
      expect(await errorCodeOf({ query: 'samsung '.repeat(5000) })).toMatchObject({
        code: 'BAD_USER_INPUT',
      });
    });

    const hostile = [
      "'",
      '"',
      "samsung'",
      "sam'sung",
      '&|!():*',
      'samsung & galaxy',
      'samsung | iphone',
      '!samsung',
      '(samsung',
      'samsung:*',
      'samsung:A',
      'samsung <-> galaxy',
      '\\',
      'samsung\\',
      "\\' or 1=1 --",
      "'; drop table products; --",
      '%_%',
      '\u0000samsung',
      'sam\u0000sung',
      '\ud800',
      '🚀 samsung',
      'Sämsüng Ġalaxy',
      'Samsung\u0301',
      '三星 갤럭시',
      'سامسونج',
      'x'.repeat(200),
      'a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s.t.u.v.w.x.y.z',
      '\t\nsamsung\r\n',
    ];
    it.each(hostile)('never fails on %j', async (query) => {
      for (const market of ['SE', 'NO', 'DK', 'FI', 'FR', 'GB', 'NZ']) {
        const { status, body } = await graphql(PRODUCTS_QUERY, { market, query });
        expect(status).toBe(200);
        expect(body.errors).toBeUndefined();
        expect(body.data!.products.totalCount).toBeGreaterThanOrEqual(0);
      }
      const categories = await graphql(
        `
          query ($query: String!) {
            categories(market: SE, query: $query) {
              totalCount
            }
          }
        `,
        { query },
      );
      expect(categories.status).toBe(200);
      expect(categories.body.errors).toBeUndefined();
    });

    it('finds what hostile punctuation surrounds', async () => {
      expect(await search({ query: '(samsung) & !galaxy:* a55' })).toEqual([2]);
      expect(await search({ query: "'samsung'" })).toEqual([2, 1, 4]);
      expect(await search({ query: '\tsamsung\n' })).toEqual([2, 1, 4]);
    });
  });

  describe('categories', () => {
    const CATEGORIES_QUERY = /* GraphQL */ `
      query ($query: String!, $first: Int, $after: String) {
        categories(market: SE, query: $query, first: $first, after: $after) {
          totalCount
          pageInfo {
            hasNextPage
          }
          edges {
            node {
              categoryId
              slug
              name
              url
              productsTotal
            }
          }
        }
      }
    `;

    async function findCategories(query: string, first?: number) {
      const { body } = await graphql(CATEGORIES_QUERY, { query, first });
      expect(body.errors).toBeUndefined();
      return body.data!.categories;
    }
    const slugs = async (query: string, first?: number) =>
      (await findCategories(query, first)).edges.map((edge: any) => edge.node.slug);

    it('finds leaf categories by name, prefix, typo and slug, best match first', async () => {
      expect(await slugs('headphones')).toEqual(['headphones']);
      expect(await slugs('head')).toEqual(['headphones']);
      expect(await slugs('hedphones')).toEqual(['headphones']);
      expect(await slugs('Bags')).toEqual(['bags']);
      expect(await slugs('b')).toEqual(['bags']);
      // Both start with "mobile": the closer (shorter) name first.
      expect(await slugs('mobile')).toEqual(['mobile-phones', 'mobile-phone-cases']);
      expect(await slugs('mobile phones')).toEqual(['mobile-phones', 'mobile-phone-cases']);
      expect(await slugs('phone case')).toEqual(['mobile-phone-cases']);
      // Every term must match, as in products(query:): "cases" is not in "Mobile phones".
      expect(await slugs('mobile-phone-cases')).toEqual(['mobile-phone-cases']);
    });

    it('leaves out categories that are not leaves', async () => {
      expect(await slugs('electronics')).toEqual([]);
      expect(await slugs('home')).toEqual([]);
    });

    it('returns scoped categories with counts and pages', async () => {
      const page = await findCategories('mobile', 1);
      expect(page.totalCount).toBe(2);
      expect(page.pageInfo.hasNextPage).toBe(true);
      expect(page.edges[0].node).toEqual({
        categoryId: 2,
        slug: 'mobile-phones',
        name: 'Mobiltelefoner',
        url: 'https://www.pricecompare.se/category/mobile-phones',
        productsTotal: 3,
      });
    });

    it('rejects an empty query, an over-long query and a page over 100', async () => {
      for (const variables of [
        { query: '' },
        { query: '   ' },
        { query: 'x'.repeat(201) },
        { query: 'bags', first: 101 },
      ]) {
        const { status, body } = await graphql(CATEGORIES_QUERY, variables);
        expect(status).toBeLessThan(500);
        expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
      }
    });

    it('lists every category, parents before children, without a query', async () => {
      const { body } = await graphql(/* GraphQL */ `
        {
          categories(market: SE, first: 100) {
            totalCount
            edges {
              node {
                categoryId
                parent {
                  categoryId
                }
              }
            }
          }
        }
      `);
      const listed = body.data!.categories.edges.map(
        (edge: { node: { categoryId: number; parent: { categoryId: number } | null } }) =>
          edge.node,
      );
      const stored = await database.db
        .selectFrom('categories')
        .select('id')
        .orderBy('id')
        .execute();
      expect(listed.map((node: { categoryId: number }) => node.categoryId)).toEqual(
        stored.map((row) => row.id),
      );
      expect(body.data!.categories.totalCount).toBe(stored.length);
      const seen = new Set<number>();
      for (const node of listed) {
        if (node.parent) expect(seen.has(node.parent.categoryId)).toBe(true);
        seen.add(node.categoryId);
      }
    });
  });
});

/**
 * A search takes its page from the front rows when they hold enough matches, else from the
 * text indexes. The fixtures are far smaller than FRONT_ROWS, so the API tests above take
 * the first path only: shrinking the front makes every search take the second, which must
 * give the same pages.
 */
describe(`the front rows and the text indexes agree on ${databaseKind}`, () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    await db.insertInto('categories').values(CATEGORIES).execute();
    let offerId = 0;
    for (const [id, name, popularity, categoryId, markets] of PRODUCTS) {
      await insertProduct(db, id, { name, popularity, category_id: categoryId });
      await insertOffers(
        db,
        markets.map((market) => ({
          id: ++offerId,
          product_id: id,
          price: 1000 - 100 * id,
          market,
        })),
      );
    }
    await db
      .insertInto('price_history')
      .values(
        [1, 2, 4, 5, 7].map((id) => ({
          product_id: id,
          market: 'se' as const,
          first_day: WINDOW_START,
          daily_lowest_prices: Array<number>(90).fill(900 - 37 * id),
        })),
      )
      .execute();
    await refreshProductMarketSummaries(db, { asOf: AS_OF });
    await rebuildSearchWords(db);
  });
  afterAll(() => database?.dispose());

  // "phones" is a category word only: its matches are the category's products.
  const queries = [
    'samsung',
    'sams',
    'galaxy',
    'samsumg',
    'galaxi a55',
    'pro',
    'väskor',
    'phones',
    'xyzzy',
  ];
  const orders = ['RELEVANCE', 'POPULARITY', 'PRICE', 'PRICE_TREND'] as const;
  const filters = [{}, { categoryId: 1 }, { categoryId: 3 }, { priceTrend: { gte: 0 } }];
  const pages = [
    { offset: 0, limit: 2 },
    { offset: 1, limit: 3 },
    { offset: 0, limit: 50 },
  ];

  it.each(queries)('for %j in every order, filter and page', async (query) => {
    const text: TextSearch = textSearchOf(
      'swedish',
      splitQuery(query).flatMap((term) => searchTermOf(term) ?? []),
      await readTypoVocabulary(database.db, 'swedish'),
    );
    for (const order of orders) {
      for (const extra of filters) {
        const filter = { market: 'se' as const, text, ...extra };
        for (const page of pages) {
          const fromFront = await searchProductIds(database.db, filter, order, page);
          // The last also searches whole categories past their first product.
          const options = [
            { frontRows: 1 },
            { frontRows: 3 },
            { frontRows: 1, categoryHeadRows: 1 },
          ];
          for (const option of options) {
            const fromIndexes = await searchProductIds(database.db, filter, order, page, option);
            expect(
              fromIndexes,
              `${order} ${JSON.stringify(extra)} ${JSON.stringify(option)}`,
            ).toEqual(fromFront);
          }
        }
      }
    }
  });
});
