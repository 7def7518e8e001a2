import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refreshProductMarketSummaries } from '../src/db/repositories/product-market-summaries.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';
import { insertBasics, insertOffers, insertProduct } from './helpers/fixtures.ts';

const AS_OF = '2026-11-01';
/** 90 days before AS_OF: the first day of the window. */
const WINDOW_START = '2026-08-03';

describe(`price trend and market summaries on ${databaseKind}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    const { db } = database;
    await insertBasics(db);
    for (const id of [1, 2, 3, 4, 5, 6]) await insertProduct(db, id);

    await insertOffers(db, [
      // 1: cheaper than its 90-day average of 100 → +20.0 %.
      { id: 1, product_id: 1, price: 80 },
      { id: 2, product_id: 1, price: 90 },
      // The cheapest offer is out of stock: it must not count as the current price.
      { id: 3, product_id: 1, price: 10, stock_status: 'OUT_OF_STOCK' },
      // 2: dearer than usual → negative trend; average (100 + 200) / 2 = 150 → (150−165)/150.
      { id: 4, product_id: 2, price: 165 },
      // 3: no history → no trend.
      { id: 5, product_id: 3, price: 50 },
      // 4: only unavailable offers → no summary row in that market.
      { id: 6, product_id: 4, price: 50, purchasable: false },
      // 5: two markets, each summarised on its own.
      { id: 7, product_id: 5, price: 30, market: 'se' },
      { id: 8, product_id: 5, price: 7, market: 'fi' },
      // 6: rounding to one decimal: (3 − 2) / 3 × 100 = 33.333… → 33.3
      { id: 9, product_id: 6, price: 2 },
    ]);

    const days = (n: number, price: number | null) => Array<number | null>(n).fill(price);
    await db
      .insertInto('price_history')
      .values([
        // Days before the window (ignored), then the 90 window days at 100, then AS_OF itself
        // (not part of "the previous 90 days").
        {
          product_id: 1,
          market: 'se',
          first_day: '2026-07-24',
          daily_lowest_prices: [...days(10, 1000), ...days(90, 100), 1],
        },
        // Half the window at 100, half at 200, with days without any price (null) ignored.
        {
          product_id: 2,
          market: 'se',
          first_day: WINDOW_START,
          daily_lowest_prices: [...days(40, 100), ...days(10, null), ...days(40, 200)],
        },
        { product_id: 5, market: 'se', first_day: WINDOW_START, daily_lowest_prices: days(90, 30) },
        { product_id: 5, market: 'fi', first_day: WINDOW_START, daily_lowest_prices: days(90, 10) },
        { product_id: 6, market: 'se', first_day: WINDOW_START, daily_lowest_prices: days(90, 3) },
      ])
      .execute();
    await refreshProductMarketSummaries(db, { asOf: AS_OF });
  });
  afterAll(() => database?.dispose());

  const summaries = () =>
    database.db
      .selectFrom('product_market_summaries')
      .select([
        'product_id',
        'market',
        'available_offer_count',
        'lowest_price',
        'average_price_90_days',
        'price_trend_percentage',
      ])
      .orderBy('product_id')
      .orderBy('market')
      .execute();

  it('computes (avg90 − current) / avg90 × 100 from available offers and the 90 days before', async () => {
    expect(await summaries()).toEqual([
      {
        product_id: 1,
        market: 'se',
        available_offer_count: 2,
        lowest_price: 80,
        average_price_90_days: 100,
        price_trend_percentage: 20,
      },
      {
        product_id: 2,
        market: 'se',
        available_offer_count: 1,
        lowest_price: 165,
        average_price_90_days: 150,
        price_trend_percentage: -10,
      },
      {
        product_id: 3,
        market: 'se',
        available_offer_count: 1,
        lowest_price: 50,
        average_price_90_days: null,
        price_trend_percentage: null,
      },
      {
        product_id: 5,
        market: 'fi',
        available_offer_count: 1,
        lowest_price: 7,
        average_price_90_days: 10,
        price_trend_percentage: 30,
      },
      {
        product_id: 5,
        market: 'se',
        available_offer_count: 1,
        lowest_price: 30,
        average_price_90_days: 30,
        price_trend_percentage: 0,
      },
      {
        product_id: 6,
        market: 'se',
        available_offer_count: 1,
        lowest_price: 2,
        average_price_90_days: 3,
        price_trend_percentage: 33.3,
      },
    ]);
  });

  it('refreshes only the listed products when their prices change', async () => {
    const { db } = database;
    await db
      .updateTable('offers')
      .set({ stock_status: 'OUT_OF_STOCK' })
      .where('id', '=', 1)
      .execute();
    await db.updateTable('offers').set({ purchasable: true }).where('id', '=', 6).execute();
    await db.updateTable('offers').set({ price: 1 }).where('id', '=', 5).execute();
    await refreshProductMarketSummaries(db, { productIds: [1, 4], asOf: AS_OF });

    const rows = await summaries();
    const byProduct = (id: number) => rows.filter((row) => row.product_id === id);
    expect(byProduct(1)).toMatchObject([{ lowest_price: 90, price_trend_percentage: 10 }]);
    expect(byProduct(4)).toMatchObject([{ lowest_price: 50, price_trend_percentage: null }]);
    // Product 3 was not listed: its summary keeps the old price until it is refreshed.
    expect(byProduct(3)).toMatchObject([{ lowest_price: 50 }]);
  });
});
