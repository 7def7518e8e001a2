/**
 * The matching rules of text search (issue 13, docs/api.md "Text search") on a small known
 * catalogue, through GraphQL and REST: typos of each kind by term length, prefixes, brand and
 * category words in the market's language, plurals, synonyms, the relevance tiers, nonsense,
 * hostile input, and the bound on totalCount.
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import {
  findFrontMatches,
  SEARCH_COUNT_CAP,
  searchProductIds,
} from '../../src/db/repositories/product-search.ts';
import {
  MAX_LEXICON_TEXT,
  rebuildSearchLexicons,
  rebuildSearchWords,
} from '../../src/db/repositories/search-vocabulary.ts';
import { searchTermOf, splitQuery, textSearchOf } from '../../src/search/text-search.ts';
import { readTypoVocabulary } from '../../src/search/vocabularies.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { insertBasics, insertOffers, insertProduct } from '../helpers/fixtures.ts';
import { postGraphql } from '../helpers/graphql.ts';

const AS_OF = '2026-11-01';
const MARKETS = ['se', 'fr', 'gb'] as const;

/** Below insertBasics' Electronics (1) › Mobile phones (2); slugs as the seed's. */
const CATEGORIES = [
  { id: 10, parent_id: 1, slug: 'tv-and-audio', name: 'TV & audio', is_leaf: false },
  { id: 11, parent_id: 10, slug: 'tvs', name: 'TVs', is_leaf: true },
  { id: 12, parent_id: 10, slug: 'headphones', name: 'Headphones', is_leaf: true },
  { id: 20, parent_id: null, slug: 'home-and-garden', name: 'Home & garden', is_leaf: false },
  { id: 21, parent_id: 20, slug: 'kitchen-appliances', name: 'Kitchen appliances', is_leaf: false },
  { id: 22, parent_id: 21, slug: 'coffee-machines', name: 'Coffee machines', is_leaf: true },
  { id: 23, parent_id: 20, slug: 'widgets', name: 'Widgets', is_leaf: true },
];

const BRANDS = ['Samsung', 'Apple', 'Sony', 'LG', 'Moccamaster', 'Bose'];
const brandId = (name: string) => BRANDS.indexOf(name) + 2;

/** id, name, brand, leaf category, popularity. */
const PRODUCTS = [
  [1, 'Samsung Galaxy S24 128GB', 'Samsung', 2, 90],
  [2, 'Apple iPhone 15 Pro', 'Apple', 2, 95],
  [3, 'Sony WH-1000XM5', 'Sony', 12, 80],
  [4, 'Sony Bravia XR-55A80L', 'Sony', 11, 85],
  [5, 'LG OLED55C3 Television', 'LG', 11, 70],
  [6, 'Moccamaster KBG Select', 'Moccamaster', 22, 60],
  [7, 'QuietComfort Ultra Headset', 'Bose', 12, 50],
  [8, 'Sony Xperia 10', 'Sony', 2, 75],
] as const;

/** Products "Widget <n>" of the widgets category: more than a search counts. */
const WIDGETS = SEARCH_COUNT_CAP + 5;

describe(`text search matching on ${databaseKind}`, () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    await db
      .insertInto('brands')
      .values(BRANDS.map((name) => ({ id: brandId(name), name })))
      .execute();
    await db.insertInto('categories').values(CATEGORIES).execute();
    let offerId = 0;
    for (const [id, name, brand, category, popularity] of PRODUCTS) {
      await insertProduct(db, id, {
        name,
        brand_id: brandId(brand),
        category_id: category,
        popularity,
      });
      await insertOffers(
        db,
        MARKETS.map((market) => ({ id: ++offerId, product_id: id, price: 100 * id, market })),
      );
    }
    await sql`insert into products (id, name, brand_id, category_id, rank_within_category,
                                    popularity)
              select 100 + n, 'Widget ' || n, 1, 23, n, 1
                from generate_series(1, ${WIDGETS}) as n`.execute(db);
    await sql`insert into offers (id, item_id, product_id, shop_id, market, currency, offer_name,
                                  url, condition, stock_status, purchasable, price, updated_at)
              select 1000 + n, 'widget-' || n, 100 + n, 1, 'se', 'SEK', 'Widget',
                     'https://shop.example/w',
                     'CONDITION_NEW', 'IN_STOCK', true, 10, ${AS_OF}::timestamptz
                from generate_series(1, ${WIDGETS}) as n`.execute(db);
    await refreshProductMarketSummaries(db, { asOf: AS_OF });
    await rebuildSearchWords(db);
    app = createApp({ config: loadConfig({}), database, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => database?.dispose());

  async function graphql(query: string, variables: Record<string, unknown>) {
    const response = await postGraphql(app, query, variables);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data?: any; errors?: unknown[] };
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  const PRODUCTS_QUERY = /* GraphQL */ `
    query ($market: Market!, $query: String, $first: Int) {
      products(market: $market, query: $query, first: $first) {
        totalCount
        edges {
          node {
            productId
          }
        }
      }
    }
  `;

  /** The ids a search finds, in order. */
  async function search(query: string, market = 'SE'): Promise<number[]> {
    const data = await graphql(PRODUCTS_QUERY, { market, query, first: 20 });
    return data.products.edges.map((edge: any) => edge.node.productId);
  }

  describe('typos, by the length of the term', () => {
    it('forgive one typo of each kind in a term of 5 to 8 letters', async () => {
      expect(await search('samsng')).toEqual([1]); // deletion
      expect(await search('samssung')).toEqual([1]); // insertion
      expect(await search('samsunf')).toEqual([1]); // substitution
      expect(await search('samsnug')).toEqual([1]); // neighbours swapped
      expect(await search('iphnoe')).toEqual([2]);
      expect(await search('galaxy s24 ultar')).toEqual([]); // "ultra" is not in its name
      expect(await search('quiteComfort')).toEqual([7]);
    });

    it('forgive no second typo below 9 letters, and none below 5', async () => {
      expect(await search('smasng')).toEqual([]);
      expect(await search('sonu')).toEqual([]);
      expect(await search('aple')).toEqual([]);
    });

    it('forgive two typos from 9 letters', async () => {
      expect(await search('mocamastr')).toEqual([6]);
      expect(await search('moccamastre')).toEqual([6]);
      expect(await search('mcamastr')).toEqual([]); // 8 letters: one typo only
    });

    it('count a typo in the first letter twice', async () => {
      expect(await search('xamsung')).toEqual([]);
      expect(await search('xoccamaster')).toEqual([6]);
    });

    it('never correct a term with digits: another number is another model', async () => {
      expect(await search('s25')).toEqual([]);
      expect(await search('xm6')).toEqual([]);
    });
  });

  describe('prefixes, brands and categories', () => {
    it('match a word by its beginning', async () => {
      expect(await search('sams')).toEqual([1]);
      expect(await search('galaxy s2')).toEqual([1]);
      expect(await search('moc')).toEqual([6]);
    });

    it('match the brand, also where the name does not say it', async () => {
      expect(await search('bose')).toEqual([7]);
      expect(await search('bose headset')).toEqual([7]);
    });

    it('match the category in the market’s language and in English, name matches first', async () => {
      // "Headset" in its name (a synonym of hörlurar) puts the Bose first.
      expect(await search('hörlurar')).toEqual([7, 3]);
      expect(await search('headphones')).toEqual([7, 3]);
      expect(await search('casque', 'FR')).toEqual([7, 3]);
      expect(await search('kaffemaskiner')).toEqual([6]);
    });

    it('find a brand’s products in the category a query names', async () => {
      expect(await search('sony hörlurar')).toEqual([3]);
      expect(await search('sony headphones', 'GB')).toEqual([3]);
      expect(await search('sony')).toEqual([4, 3, 8]);
    });

    it('rank the category’s own name above the names of the categories above it', async () => {
      // Name, then the TVs category, then the rest of "TV & audio".
      expect(await search('tv', 'GB')).toEqual([5, 4, 3, 7]);
      expect(await search('tv')).toEqual([5, 4, 3, 7]);
    });

    it('stem singulars and plurals alike', async () => {
      expect(await search('headphone', 'GB')).toEqual([7, 3]);
      expect(await search('televisions', 'GB')).toEqual([5, 4, 3, 7]);
      expect(await search('kaffemaskin')).toEqual([6]);
    });

    it('match synonyms', async () => {
      expect(await search('television', 'GB')).toEqual([5, 4, 3, 7]);
      expect(await search('headset', 'GB')).toEqual([7, 3]);
      // The name's English "Television" is not French: the category finds it.
      expect(await search('téléviseur', 'FR')).toEqual([4, 5, 3, 7]);
    });
  });

  describe('what matches nothing', () => {
    it('nonsense', async () => {
      expect(await search('qwxzv')).toEqual([]);
      expect(await search('samsung qwxzv')).toEqual([]);
    });

    it('SQL and tsquery syntax, as words or separators', async () => {
      expect(await search("'; drop table products; --")).toEqual([]);
      expect(await search("samsung' or '1'='1")).toEqual([]);
      expect(await search('samsung | apple')).toEqual([]);
      expect(await search('samsung & !apple')).toEqual([]);
      // Words "samsung" and "a": nothing has both.
      expect(await search("samsung:*A <-> '")).toEqual([]);
      expect(await search('(samsung)')).toEqual([1]);
      expect(await search('\\')).toEqual([]);
    });
  });

  describe('totalCount', () => {
    it('counts the matches exactly up to the cap', async () => {
      const data = await graphql(PRODUCTS_QUERY, { market: 'SE', query: 'sony', first: 1 });
      expect(data.products.totalCount).toBe(3);
    });

    it('stops at the cap on a broad query', async () => {
      const data = await graphql(PRODUCTS_QUERY, { market: 'SE', query: 'widget', first: 1 });
      expect(data.products.totalCount).toBe(SEARCH_COUNT_CAP);
    });
  });

  describe('categories(query:)', () => {
    const CATEGORIES_QUERY = /* GraphQL */ `
      query ($market: Market!, $query: String!) {
        categories(market: $market, query: $query) {
          totalCount
          edges {
            node {
              slug
            }
          }
        }
      }
    `;
    async function slugs(query: string, market = 'SE'): Promise<string[]> {
      const data = await graphql(CATEGORIES_QUERY, { market, query });
      return data.categories.edges.map((edge: any) => edge.node.slug);
    }

    it('matches leaf categories by their name in the market’s language, or in English', async () => {
      expect(await slugs('hörlurar')).toEqual(['headphones']);
      expect(await slugs('hodetelefoner', 'NO')).toEqual(['headphones']);
      expect(await slugs('casques', 'FR')).toEqual(['headphones']);
      expect(await slugs('headphones')).toEqual(['headphones']);
      expect(await slugs('kaffe')).toEqual(['coffee-machines']);
      expect(await slugs('kafemaskiner')).toEqual(['coffee-machines']);
      expect(await slugs('tv')).toEqual(['tvs']);
      expect(await slugs('qwxzv')).toEqual([]);
    });
  });

  describe('REST /suggestions', () => {
    it('matches as products(query:) does', async () => {
      for (const [query, first] of [
        ['samsng', 1],
        ['sony hörlurar', 3],
        ['tv', 5],
      ] as const) {
        const response = await app.fetch(
          new Request(
            `http://localhost/suggestions?market=se&product=${encodeURIComponent(query)}`,
          ),
        );
        expect(response.status, query).toBe(200);
        const body = (await response.json()) as { data: { productId: string }[] };
        expect(Number(body.data[0]?.productId), query).toBe(first);
      }
    });
  });

  // Last: it adds a product.
  describe('the lexicon (search_lexicons)', () => {
    async function textSearch(query: string) {
      const terms = splitQuery(query).flatMap((term) => searchTermOf(term) ?? []);
      return textSearchOf('swedish', terms, await readTypoVocabulary(database.db, 'swedish'));
    }

    /** Per relevance tier, whether the lexicon admits it (a front of one row: no matches). */
    async function admitted(query: string): Promise<boolean[]> {
      const filter = { market: 'se' as const, text: await textSearch(query) };
      const front = await findFrontMatches(database.db, filter, 'RELEVANCE', {
        frontRows: 1,
        perTier: 5,
      });
      return front.possible;
    }

    it('rules out the tiers no product can match', async () => {
      // Tiers: names and brands, and the leaf category, and the categories above, prefixes,
      // typos (when the vocabulary corrects a term).
      expect(await admitted('samsung')).toEqual([true, true, true, true]);
      expect(await admitted('sams')).toEqual([false, false, false, true]);
      expect(await admitted('samsnug')).toEqual([false, false, false, false, true]);
      expect(await admitted('samsung samsnug')).toEqual([false, false, false, false, true]);
      // "TV & ljud" names a category: no product's name or brand.
      expect(await admitted('ljud')).toEqual([false, true, true, true]);
      expect(await admitted('qwxzv')).toEqual([false, false, false, false]);
    });

    it('spares a mistyped name the statements of the tiers it rules out', async () => {
      // With a front of one product, every tier short of the page asks the text indexes:
      // here only the typo tier, after the front's statement.
      const filter = { market: 'se' as const, text: await textSearch('samsnug') };
      const before = database.statements.length;
      const ids = await searchProductIds(
        database.db,
        filter,
        'RELEVANCE',
        { offset: 0, limit: 5 },
        { frontRows: 1 },
      );
      expect(ids).toEqual([1]);
      expect(database.statements.length - before).toBe(2);
    });

    it('is not built past its bound, and then rules nothing out', async () => {
      // Distinct tokens of ten characters, more of them than one lexicon takes.
      const names = new Set(
        Array.from(
          { length: MAX_LEXICON_TEXT / 10 + 1 },
          (_, i) => `m${String(i).padStart(8, '0')}`,
        ),
      );
      await rebuildSearchLexicons(database.db, {
        names,
        categories: new Map([['swedish', new Set(['hörlurar'])]]),
      });
      try {
        const { rows } = await sql`select 1 from search_lexicons`.execute(database.db);
        expect(rows).toEqual([]);
        expect(await admitted('qwxzv')).toEqual([true, true, true, true]);
        expect(await search('qwxzv')).toEqual([]);
        expect(await search('samsnug')).toEqual([1]);
      } finally {
        await rebuildSearchWords(database.db);
      }
      expect(await admitted('qwxzv')).toEqual([false, false, false, false]);
    });

    it('holds the words of a product added once the search words are rebuilt', async () => {
      await insertProduct(database.db, 9, {
        name: 'Zephyrine Kettle',
        brand_id: brandId('Moccamaster'),
        category_id: 22,
        popularity: 1,
      });
      await insertOffers(database.db, [{ id: 9000, product_id: 9, price: 10, market: 'se' }]);
      await refreshProductMarketSummaries(database.db, { asOf: AS_OF });
      await rebuildSearchWords(database.db);
      expect(await admitted('zephyrine')).toEqual([true, true, true, true]);
      expect(await search('zephyrine')).toEqual([9]);
      expect(await search('zephyr')).toEqual([9]);
    });
  });
});
