/**
 * The catalogue's clock (docs/api.md, "Clock"). Offers store their current price, and the
 * summaries a trend as of a day, so stored rows describe one moment: the seed's as-of date at
 * first. Bringing the catalogue forward to a later moment makes them describe that one: what
 * a request is answered from is then what holds at the time of the request. The service does
 * this when it starts and at every UTC midnight (src/cli/catalogue-clock.ts), in one
 * transaction: every step only acts on what is behind, so running it again, or from two
 * processes, changes nothing more.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../types.ts';
import { HISTORY_DAYS } from '../../../seeds/calendar.ts';
import { rebuildProductMarketSummaries } from './product-market-summaries.ts';

/**
 * Held (for its transaction) by whoever brings the catalogue forward: processes that try at
 * the same moment take turns, and the later ones find nothing behind.
 */
const CLOCK_LOCK_KEY = 4_140_002;

export interface ClockAdvance {
  /** The day the catalogue now stands at: history ends the day before. */
  today: string;
  /** Offers whose sale ended, back at their price from before it. */
  salesEnded: number;
  /** Offers whose member price ended. */
  memberPricesEnded: number;
  /** Histories given the days they lacked. */
  historiesExtended: number;
  /** Summary rows rebuilt. */
  summariesRefreshed: number;
}

/**
 * Brings the catalogue forward to `now`:
 *   - an offer whose sale ended is back at its price from before the sale (its original
 *     price), shipping kept, the sale and the original price gone; an ended member price goes;
 *   - each price history ends the day before `now`'s UTC day, 90 days long: the days it lacks
 *     carry the lowest available price as it is now (what the service did not see, it cannot
 *     know better);
 *   - the summaries' lowest price and trend are rebuilt as of that day (refreshSummaries):
 *     those of the products whose offers changed, and all of them when the day changed.
 */
export async function advanceCatalogueClock(
  db: Kysely<Database>,
  now: Date,
): Promise<ClockAdvance> {
  const today = now.toISOString().slice(0, 10);
  const at = now.toISOString();
  const { changedProducts, ...moved } = await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${CLOCK_LOCK_KEY})`.execute(trx);
    const sales = await sql<{ product_id: number }>`
      update offers
         set price = coalesce(original_price, price),
             price_including_shipping =
               price_including_shipping - price + coalesce(original_price, price),
             sales_price = null, sales_price_start = null, sales_price_end = null,
             original_price = null, original_price_start = null, original_price_end = null,
             updated_at = greatest(updated_at, sales_price_end)
       where sales_price_end <= ${at}::timestamptz
      returning product_id`.execute(trx);
    const members = await sql`
      update offers
         set member_price = null, member_price_start = null, member_price_end = null,
             updated_at = greatest(updated_at, member_price_end)
       where member_price_end <= ${at}::timestamptz`.execute(trx);
    // The window is the HISTORY_DAYS days before today: what is older falls off the front,
    // the missing days are appended (first_day + cardinality is the first day not stored).
    const windowStart = sql`${today}::date - ${HISTORY_DAYS}::integer`;
    const missingDays = sql`${today}::date - ph.first_day - cardinality(ph.daily_lowest_prices)`;
    const histories = await sql`
      update price_history ph
         set first_day = greatest(ph.first_day, ${windowStart}),
             daily_lowest_prices =
               ph.daily_lowest_prices[greatest(1, (${windowStart} - ph.first_day) + 1) :]
               || array_fill(
                    (select min(o.price) from available_offers o
                      where o.product_id = ph.product_id and o.market = ph.market),
                    array[least(${HISTORY_DAYS}::integer, ${missingDays})])
       where ph.first_day + cardinality(ph.daily_lowest_prices) < ${today}::date`.execute(trx);

    return {
      today,
      salesEnded: sales.rows.length,
      memberPricesEnded: Number(members.numAffectedRows ?? 0),
      historiesExtended: Number(histories.numAffectedRows ?? 0),
      changedProducts: [...new Set(sales.rows.map((row) => row.product_id))],
    };
  });
  const summariesRefreshed = await refreshSummaries(db, today, changedProducts);
  return { ...moved, summariesRefreshed };
}

/**
 * Products whose summaries a transaction rebuilds at a time. A day's change rebuilds every
 * summary: in one statement over a large catalogue, its aggregate over every offer spills
 * hundreds of gigabytes to disk and holds a transaction for many minutes; a batch takes a
 * fraction of a second and commits.
 */
export const SUMMARY_BATCH_PRODUCTS = 2_000;

/**
 * Rebuilds, as of `today`, the summaries of the changed products, then any summary still
 * of an earlier day, SUMMARY_BATCH_PRODUCTS products at a time in product order. Each batch
 * holds the clock's lock and rebuilds only what is still behind, so processes that do this at
 * once share the work and rebuild no summary twice. Meanwhile a product's summary rows are
 * either all of the earlier day or all of today.
 */
async function refreshSummaries(
  db: Kysely<Database>,
  today: string,
  changedProducts: number[],
): Promise<number> {
  let refreshed = 0;
  const rebuild = (ids: number[], onlyBehind: boolean) =>
    db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(${CLOCK_LOCK_KEY})`.execute(trx);
      const due = onlyBehind
        ? (
            await trx
              .selectFrom('product_market_summaries')
              .select('product_id')
              .distinct()
              .where('product_id', '=', sql<number>`any(${ids}::integer[])`)
              .where('as_of', '<', today)
              .execute()
          ).map((row) => row.product_id)
        : ids;
      return due.length === 0
        ? 0
        : rebuildProductMarketSummaries(trx, { asOf: today, productIds: due });
    });
  for (let start = 0; start < changedProducts.length; start += SUMMARY_BATCH_PRODUCTS) {
    refreshed += await rebuild(changedProducts.slice(start, start + SUMMARY_BATCH_PRODUCTS), false);
  }
  const behind = await db
    .selectFrom('product_market_summaries')
    .select('product_id')
    .where('as_of', '<', today)
    .limit(1)
    .executeTakeFirst();
  if (behind === undefined) return refreshed;
  for (let after = 0; ;) {
    const ids = (
      await db
        .selectFrom('products')
        .select('id')
        .where('id', '>', after)
        .orderBy('id')
        .limit(SUMMARY_BATCH_PRODUCTS)
        .execute()
    ).map((row) => row.id);
    if (ids.length === 0) return refreshed;
    refreshed += await rebuild(ids, true);
    after = ids.at(-1)!;
  }
}
