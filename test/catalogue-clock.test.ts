/**
 * The catalogue's clock (docs/api.md, "Clock"): the seeded catalogue stands at its as-of date;
 * brought forward to a later moment, a sale that ended before it is no longer the current
 * price, the price history ends the day before, and the summaries' trend is as of that day.
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { startCatalogueClock } from '../src/cli/catalogue-clock.ts';
import { advanceCatalogueClock } from '../src/db/repositories/catalogue-clock.ts';
import { databaseKind } from './helpers/database.ts';
import { useSeededCatalogue } from './helpers/seeded.ts';
import { SEEDED_CATALOGUE } from './helpers/templates.ts';

const HOUR_MS = 3_600_000;

interface SaleOffer {
  id: number;
  product_id: number;
  market: string;
  price: string;
  original_price: string;
  sales_price_end: string;
}

const OFFER_PRICES = `query($id: Int!, $market: Market!) {
  product(id: $id, market: $market) {
    offers(first: 15) {
      edges { node { offerId price { amount } salesPrice { amount end } originalPrice { amount } } }
    }
    priceHistory(days: 1) { date }
  }
}`;

describe(`the catalogue's clock on ${databaseKind}`, () => {
  // No response cache: the same question is asked before and after the clock moves.
  const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });

  /** The first available offer on sale whose sale ends after the seed's as-of date. */
  async function firstSale(): Promise<SaleOffer> {
    const { rows } = await sql<SaleOffer>`
      select id, product_id, market, price::text, original_price::text,
             to_char(sales_price_end at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
               as sales_price_end
        from available_offers
       where sales_price_end is not null
       order by sales_price_end, id limit 1`.execute(catalogue.database.db);
    return rows[0] as SaleOffer;
  }

  async function offerAsServed(sale: SaleOffer) {
    const body = await catalogue.graphql(OFFER_PRICES, {
      id: sale.product_id,
      market: sale.market.toUpperCase(),
    });
    expect(body.errors).toBeUndefined();
    const product = body.data.product;
    return {
      offer: product.offers.edges
        .map((edge: { node: { offerId: number } }) => edge.node)
        .find((node: { offerId: number }) => node.offerId === sale.id),
      lastHistoryDay: product.priceHistory[0]?.date as string,
    };
  }

  it('stands at the seed’s as-of date until brought forward', async () => {
    const sale = await firstSale();
    expect(sale.sales_price_end > `${SEEDED_CATALOGUE.asOf}T00:00:00Z`).toBe(true);
    const { offer, lastHistoryDay } = await offerAsServed(sale);
    expect(offer).toMatchObject({
      price: { amount: sale.price },
      salesPrice: { amount: sale.price, end: sale.sales_price_end },
    });
    expect(lastHistoryDay).toBe('2026-10-31');
  });

  it('is brought forward by the service at start and again just after midnight', async () => {
    const sale = await firstSale();
    const endMs = Date.parse(sale.sales_price_end);
    // That day's work done beforehand, so that the service's first advance has nothing to do.
    await advanceCatalogueClock(catalogue.database.db, new Date(endMs - 60_000));
    // The service's clock from four seconds before the sale ends (at a midnight): only Date is
    // faked, and it runs on, so the database and the timer keep their real time.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true, now: endMs - 4_000 });
    const clock = startCatalogueClock(catalogue.database.db, pino({ level: 'silent' }));
    try {
      expect((await offerAsServed(sale)).offer).toMatchObject({
        salesPrice: { amount: sale.price },
      });
      await vi.waitFor(
        async () => expect((await offerAsServed(sale)).offer).toMatchObject({ salesPrice: null }),
        { timeout: 20_000, interval: 500 },
      );
    } finally {
      clock.stop();
      vi.useRealTimers();
    }
  });

  it('keeps a sale that has not ended yet as the current price', async () => {
    const sale = await firstSale();
    const justBefore = new Date(Date.parse(sale.sales_price_end) - HOUR_MS);
    await advanceCatalogueClock(catalogue.database.db, justBefore);
    const { offer } = await offerAsServed(sale);
    expect(offer).toMatchObject({
      price: { amount: sale.price },
      salesPrice: { amount: sale.price },
    });
  });

  it('serves the price from before a sale once the sale has ended, and a history to yesterday', async () => {
    const sale = await firstSale();
    const requestTime = new Date(Date.parse(sale.sales_price_end) + HOUR_MS);
    const today = requestTime.toISOString().slice(0, 10);
    const yesterday = new Date(Date.parse(today) - 86_400_000).toISOString().slice(0, 10);

    const advanced = await advanceCatalogueClock(catalogue.database.db, requestTime);
    expect(advanced.today).toBe(today);
    expect(advanced.salesEnded).toBeGreaterThan(0);
    expect(advanced.historiesExtended).toBeGreaterThan(0);
    expect(advanced.summariesRefreshed).toBeGreaterThan(0);

    const { offer, lastHistoryDay } = await offerAsServed(sale);
    expect(offer).toMatchObject({
      price: { amount: sale.original_price },
      salesPrice: null,
      originalPrice: null,
    });
    expect(lastHistoryDay).toBe(yesterday);

    const { db } = catalogue.database;
    const at = requestTime.toISOString();
    const { rows } = await sql<Record<string, number | string[]>>`
      select (select count(*) from offers where sales_price_end <= ${at}::timestamptz)
               as ended_sales_left,
             (select count(*) from offers where member_price_end <= ${at}::timestamptz)
               as ended_member_prices_left,
             (select array_agg(distinct (first_day + cardinality(daily_lowest_prices) - 1)::text)
                from price_history) as last_days,
             (select array_agg(distinct cardinality(daily_lowest_prices)::text) from price_history)
               as lengths,
             (select array_agg(distinct as_of::text) from product_market_summaries) as summary_days,
             -- The days appended carry today's lowest available price.
             (select count(*) from price_history ph
               where daily_lowest_prices[90] is distinct from
                     (select min(price) from available_offers o
                       where o.product_id = ph.product_id and o.market = ph.market))
               as wrong_tails,
             (select count(*) from product_market_summaries s
               where lowest_price <> (select min(price) from available_offers o
                                       where o.product_id = s.product_id and o.market = s.market))
               as wrong_lowest`.execute(db);
    const { last_days, lengths, summary_days, ...counts } = rows[0] ?? {};
    expect({ last_days, lengths, summary_days }).toEqual({
      last_days: [yesterday],
      lengths: ['90'],
      summary_days: [today],
    });
    expect(
      Object.fromEntries(Object.entries(counts).map(([name, n]) => [name, Number(n)])),
    ).toEqual({
      ended_sales_left: 0,
      ended_member_prices_left: 0,
      wrong_tails: 0,
      wrong_lowest: 0,
    });

    // Brought forward to the same moment again: nothing is behind, nothing changes.
    expect(await advanceCatalogueClock(db, requestTime)).toEqual({
      today,
      salesEnded: 0,
      memberPricesEnded: 0,
      historiesExtended: 0,
      summariesRefreshed: 0,
    });
  });

  it('starts a history anew after more than its window of days away, once when asked twice at once', async () => {
    const { db } = catalogue.database;
    const muchLater = new Date('2027-06-01T12:00:00Z');
    // Two processes at the same midnight take turns: the second finds the offers and the
    // histories done, and the two rebuild every summary once between them.
    const both = await Promise.all([
      advanceCatalogueClock(db, muchLater),
      advanceCatalogueClock(db, muchLater),
    ]);
    const extended = both.map((advance) => advance.historiesExtended).sort((a, b) => a - b);
    expect(extended[0]).toBe(0);
    expect(extended[1]).toBeGreaterThan(0);
    const summaries = await db
      .selectFrom('product_market_summaries')
      .select((eb) => eb.fn.countAll<string>().as('count'))
      .executeTakeFirstOrThrow();
    expect(both[0]!.summariesRefreshed + both[1]!.summariesRefreshed).toBe(Number(summaries.count));
    const { rows } = await sql<{ first_days: string[]; lengths: string[] }>`
      select array_agg(distinct first_day::text) as first_days,
             array_agg(distinct cardinality(daily_lowest_prices)::text) as lengths
        from price_history`.execute(db);
    expect(rows[0]).toEqual({ first_days: ['2027-03-03'], lengths: ['90'] });
  });
});
