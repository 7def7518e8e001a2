import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { insertBasics, insertOffers, insertProduct } from '../helpers/fixtures.ts';
import { postGraphql } from '../helpers/graphql.ts';

const AS_OF = '2026-11-01';
/** 90 days before AS_OF: the first day of the trend's window and of the stored histories. */
const WINDOW_START = '2026-08-03';
/** The last stored day: histories here hold the 90 days before AS_OF. */
const LAST_DAY = '2026-10-31';

const days = (n: number, price: number | null) => Array<number | null>(n).fill(price);

/** Products 11–20 look alike: the batching cases ask for one of them or all ten. */
const BATCH_IDS = Array.from({ length: 10 }, (_, index) => index + 11);

describe(`Product.priceTrend, priceHistory and marketPrices on ${databaseKind}`, () => {
  let database: TestDatabase;
  let app: App;

  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    for (const id of [1, 2, 3, ...BATCH_IDS]) await insertProduct(db, id);

    await insertOffers(db, [
      // 1: se 80 (90 and an unavailable 10 do not lower it), no, fi; dk only unavailable.
      { id: 1, product_id: 1, price: 80 },
      { id: 2, product_id: 1, price: 90 },
      { id: 3, product_id: 1, price: 10, stock_status: 'OUT_OF_STOCK' },
      { id: 4, product_id: 1, price: 899, market: 'no' },
      { id: 5, product_id: 1, price: 7.5, market: 'fi' },
      { id: 6, product_id: 1, price: 5, market: 'dk', purchasable: false },
      { id: 7, product_id: 1, price: 6, market: 'dk', stock_status: 'OUT_OF_STOCK' },
      // 2: sold only in gb: nothing in se.
      { id: 8, product_id: 2, price: 40, market: 'gb' },
      // 3: se, with an average that is not a whole number of cents.
      { id: 9, product_id: 3, price: 90 },
      ...BATCH_IDS.flatMap((productId, index) => [
        { id: 100 + index * 2, product_id: productId, price: 50 },
        { id: 101 + index * 2, product_id: productId, price: 5, market: 'fi' as const },
      ]),
    ]);

    await db
      .insertInto('price_history')
      .values([
        // Mean (87 × 100 + 95 + 105) / 89 = 100 (the day without a price does not count).
        {
          product_id: 1,
          market: 'se',
          first_day: WINDOW_START,
          daily_lowest_prices: [...days(87, 100), 95, null, 105],
        },
        { product_id: 1, market: 'fi', first_day: WINDOW_START, daily_lowest_prices: days(90, 10) },
        // Mean 100.333…: shown as 100.33, the percentage from the unrounded mean.
        {
          product_id: 3,
          market: 'se',
          first_day: '2026-10-29',
          daily_lowest_prices: [100, 100, 101],
        },
        ...BATCH_IDS.map((productId) => ({
          product_id: productId,
          market: 'se' as const,
          first_day: WINDOW_START,
          daily_lowest_prices: days(90, 60),
        })),
      ])
      .execute();
    await refreshProductMarketSummaries(db, { asOf: AS_OF });
    app = createApp({ config: loadConfig({}), database, logger: pino({ level: 'silent' }) });
  });
  afterAll(() => database?.dispose());

  async function post(query: string, variables: Record<string, unknown> = {}) {
    const response = await postGraphql(app, query, variables);
    return (await response.json()) as { data: any; errors?: any[] };
  }

  async function graphql(query: string, variables: Record<string, unknown> = {}) {
    const body = await post(query, variables);
    expect(body.errors).toBeUndefined();
    return body.data;
  }

  const money = (value: number, currency: string) => ({ value, currency });

  describe('priceTrend', () => {
    const query = `query ($market: Market!, $id: Int!) {
      product(market: $market, id: $id) {
        priceTrend {
          percentage
          averagePrice90Days { value currency }
          currentPrice { value currency includingShipping }
        }
      }
    }`;
    const trendOf = async (market: string, id: number) =>
      (await graphql(query, { market, id })).product.priceTrend;

    it('shows the stored summary of the product’s market', async () => {
      const summary = await database.db
        .selectFrom('product_market_summaries')
        .selectAll()
        .where('product_id', '=', 1)
        .where('market', '=', 'se')
        .executeTakeFirstOrThrow();
      expect(summary).toMatchObject({
        lowest_price: 80,
        average_price_90_days: 100,
        price_trend_percentage: 20,
      });
      expect(await trendOf('SE', 1)).toEqual({
        percentage: 20,
        averagePrice90Days: money(100, 'SEK'),
        currentPrice: { ...money(80, 'SEK'), includingShipping: null },
      });
    });

    it('follows the market the product is seen in, in its currency', async () => {
      expect(await trendOf('FI', 1)).toEqual({
        percentage: 25,
        averagePrice90Days: money(10, 'EUR'),
        currentPrice: { ...money(7.5, 'EUR'), includingShipping: null },
      });
    });

    it('has a null percentage and average without history', async () => {
      expect(await trendOf('NO', 1)).toEqual({
        percentage: null,
        averagePrice90Days: null,
        currentPrice: { ...money(899, 'NOK'), includingShipping: null },
      });
    });

    it('rounds the average to cents but keeps the stored percentage', async () => {
      // (100.333… − 90) / 100.333… × 100 = 10.299… → 10.3; from 100.33 it would be 10.297.
      expect(await trendOf('SE', 3)).toEqual({
        percentage: 10.3,
        averagePrice90Days: money(100.33, 'SEK'),
        currentPrice: { ...money(90, 'SEK'), includingShipping: null },
      });
    });

    it('is null where the product has no available offer', async () => {
      expect(await trendOf('SE', 2)).toBeNull();
      expect(await trendOf('DK', 1)).toBeNull();
    });
  });

  describe('priceHistory', () => {
    const query = `query ($market: Market!, $id: Int!, $days: Int) {
      product(market: $market, id: $id) {
        priceHistory(days: $days) { date lowestPrice { value currency } }
      }
    }`;
    const historyOf = async (market: string, id: number, days?: number | null) =>
      (await graphql(query, { market, id, days })).product.priceHistory;

    it('gives the most recent days of the stored history, oldest first', async () => {
      expect(await historyOf('SE', 1, 4)).toEqual([
        { date: '2026-10-28', lowestPrice: money(100, 'SEK') },
        { date: '2026-10-29', lowestPrice: money(95, 'SEK') },
        { date: '2026-10-30', lowestPrice: null },
        { date: LAST_DAY, lowestPrice: money(105, 'SEK') },
      ]);
    });

    it('defaults to 90 days, and null means the default', async () => {
      for (const days of [undefined, null]) {
        const points = await historyOf('SE', 1, days);
        expect(points).toHaveLength(90);
        expect(points[0]).toEqual({ date: WINDOW_START, lowestPrice: money(100, 'SEK') });
        expect(points.at(-1).date).toBe(LAST_DAY);
      }
    });

    it('gives what is stored when asked for more, and nothing without history', async () => {
      expect(await historyOf('SE', 3, 365)).toEqual([
        { date: '2026-10-29', lowestPrice: money(100, 'SEK') },
        { date: '2026-10-30', lowestPrice: money(100, 'SEK') },
        { date: LAST_DAY, lowestPrice: money(101, 'SEK') },
      ]);
      expect(await historyOf('NO', 1)).toEqual([]);
      expect(await historyOf('SE', 2)).toEqual([]);
    });

    it('is in the currency of the market the product is seen in', async () => {
      expect(await historyOf('FI', 1, 1)).toEqual([
        { date: LAST_DAY, lowestPrice: money(10, 'EUR') },
      ]);
    });

    it('rejects days outside 1..365 as BAD_USER_INPUT, before execution', async () => {
      for (const days of [0, -1, 366]) {
        const body = await post(query, { market: 'SE', id: 1, days });
        expect(body.data).toBeUndefined();
        expect(body.errors).toMatchObject([
          {
            message: 'days must be between 1 and 365',
            extensions: {
              code: 'BAD_USER_INPUT',
              details: [{ parameter: 'days', reason: 'out_of_range' }],
            },
          },
        ]);
      }
    });

    it('keeps aliases with different days apart', async () => {
      const { product } = await graphql(`
        {
          product(market: SE, id: 1) {
            week: priceHistory(days: 7) {
              date
            }
            day: priceHistory(days: 1) {
              date
            }
          }
        }
      `);
      expect(product.week).toHaveLength(7);
      expect(product.day).toEqual([{ date: LAST_DAY }]);
    });
  });

  describe('marketPrices', () => {
    const query = `query ($market: Market!, $id: Int!) {
      product(market: $market, id: $id) {
        marketPrices {
          market
          lowestPrice { value currency }
          offerCount
          priceTrend { percentage }
        }
      }
    }`;
    const pricesOf = async (market: string, id: number) =>
      (await graphql(query, { market, id })).product.marketPrices;

    it('lists every market with an available offer, each in its currency', async () => {
      // dk is left out: its offers are unavailable.
      expect(await pricesOf('SE', 1)).toEqual([
        {
          market: 'SE',
          lowestPrice: money(80, 'SEK'),
          offerCount: 2,
          priceTrend: { percentage: 20 },
        },
        {
          market: 'NO',
          lowestPrice: money(899, 'NOK'),
          offerCount: 1,
          priceTrend: { percentage: null },
        },
        {
          market: 'FI',
          lowestPrice: money(7.5, 'EUR'),
          offerCount: 1,
          priceTrend: { percentage: 25 },
        },
      ]);
    });

    it('is the same whichever market the product is seen in', async () => {
      expect(await pricesOf('DK', 1)).toEqual(await pricesOf('SE', 1));
      expect(await pricesOf('SE', 2)).toEqual([
        {
          market: 'GB',
          lowestPrice: money(40, 'GBP'),
          offerCount: 1,
          priceTrend: { percentage: null },
        },
      ]);
    });
  });

  it('loads each of these fields for any number of products in one statement', async () => {
    const query = `query ($ids: [Int!]) {
      products(market: SE, ids: $ids) {
        edges {
          node {
            productId
            priceTrend { percentage averagePrice90Days { value } currentPrice { value } }
            priceHistory(days: 7) { date lowestPrice { value } }
            marketPrices { market lowestPrice { value currency } offerCount priceTrend { percentage } }
          }
        }
      }
    }`;
    const run = async (ids: number[]) => {
      database.statements.length = 0;
      const data = await graphql(query, { ids });
      return {
        nodes: data.products.edges.map((edge: any) => edge.node),
        statements: [...database.statements],
      };
    };

    const one = await run(BATCH_IDS.slice(0, 1));
    const ten = await run(BATCH_IDS);

    expect(ten.nodes).toHaveLength(10);
    expect(ten.nodes[9]).toEqual({ ...one.nodes[0], productId: 20 });
    expect(one.nodes[0]).toMatchObject({
      priceTrend: { percentage: 16.7 },
      marketPrices: [{ market: 'SE' }, { market: 'FI' }],
    });
    expect(one.nodes[0].priceHistory).toHaveLength(7);
    expect(ten.statements).toHaveLength(one.statements.length);
    const reading = (table: string) => ten.statements.filter((s) => s.includes(table));
    // priceTrend and marketPrices: one statement each; priceHistory: one.
    expect(reading('product_market_summaries')).toHaveLength(2);
    expect(reading('price_history')).toHaveLength(1);
  });
});
