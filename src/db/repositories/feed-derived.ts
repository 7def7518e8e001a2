/**
 * What follows a feed run's offers in the same transaction (docs/api.md, "Feeds"), for the
 * products whose offers it changed, in the shop's market only: today's price-history point,
 * the market summaries, and the outbox row of each product's change.
 */
import { sql, type Transaction } from 'kysely';
import { HISTORY_DAYS } from '../../../seeds/calendar.ts';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { RUN_CHANGES } from './feed-offers.ts';
import { ninetyDayAverage, rebuildProductMarketSummaries } from './product-market-summaries.ts';

const RUN_PRODUCTS = 'feed_run_products';

/** A product's cheapest available offer and available offer count in the market, now. */
const availableNow = (market: MarketCode) => sql`
  select min(o.price) as lowest_price, count(*)::integer as offer_count
    from available_offers o where o.product_id = p.product_id and o.market = ${market}`;

/**
 * Before the offers are written: the products the run's changes touch (before and after an
 * offer moves to another product), with their lowest price and offer count as answers served
 * them: their market summary (none without an available offer). Summaries are written in the
 * same transaction as the offers they follow, by every run and by the clock, so they hold what
 * the offers hold, and reading them costs a lookup per product where the offers would cost a
 * scan of each product's offers. Should one ever differ from its offers (a hand-made change to
 * offers), the run finds it changed and writes it again.
 */
export async function recordProductsBefore(
  trx: Transaction<Database>,
  market: MarketCode,
): Promise<void> {
  await sql`
    create temporary table ${sql.table(RUN_PRODUCTS)} on commit drop as
    select p.product_id, s.lowest_price as old_lowest_price,
           coalesce(s.available_offer_count, 0) as old_offer_count,
           null::numeric(12, 2) as new_lowest_price, 0 as new_offer_count
      from (select old_product_id as product_id from ${sql.table(RUN_CHANGES)}
             where old_product_id is not null
            union
            select new_product_id from ${sql.table(RUN_CHANGES)}
             where new_product_id is not null) as p
      left join product_market_summaries s
        on s.product_id = p.product_id and s.market = ${market}`.execute(trx);
}

export interface FollowedChanges {
  /** Every product whose offers in the market changed: what answers about them must follow. */
  changedProductIds: number[];
  /** Those whose lowest price or offer count changed: their summaries were rebuilt. */
  summarisedProductIds: number[];
}

/**
 * After the offers are written: each product's lowest price and offer count now, then its
 * derived data.
 */
export async function followOfferChanges(
  trx: Transaction<Database>,
  run: { runId: string; market: MarketCode; now: Date },
): Promise<FollowedChanges> {
  await sql`
    update ${sql.table(RUN_PRODUCTS)} p
       set (new_lowest_price, new_offer_count) = (${availableNow(run.market)})`.execute(trx);
  const today = run.now.toISOString().slice(0, 10);
  await recordTodaysLowestPrices(trx, run.market, today);
  await recordChanges(trx, run);
  const { rows } = await sql<{ product_id: number; summary_changes: boolean }>`
    select product_id,
           (old_lowest_price, old_offer_count) is distinct from (new_lowest_price, new_offer_count)
             as summary_changes
      from ${sql.table(RUN_PRODUCTS)} order by product_id`.execute(trx);
  const summarisedProductIds = rows
    .filter((row) => row.summary_changes)
    .map((row) => row.product_id);
  if (summarisedProductIds.length > 0) {
    const updated = await updateSummaryPrices(trx, run.market, today);
    const rebuilt = summarisedProductIds.filter((id) => !updated.has(id));
    if (rebuilt.length > 0) {
      await rebuildProductMarketSummaries(trx, {
        productIds: rebuilt,
        market: run.market,
        asOf: today,
      });
    }
  }
  return { changedProductIds: rows.map((row) => row.product_id), summarisedProductIds };
}

/**
 * The summaries of today whose product still has offers in the market take its new lowest
 * price, offer count, 90-day average (the run may have filled days its history lacked) and
 * trend where they stand: what a rebuild would write, without recomputing the search text.
 * Returns the products so updated; the others (a first offer, a last one gone, a summary of
 * another day) are rebuilt.
 */
async function updateSummaryPrices(
  trx: Transaction<Database>,
  market: MarketCode,
  today: string,
): Promise<Set<number>> {
  const { rows } = await sql<{ product_id: number }>`
    update product_market_summaries s
       set lowest_price = p.new_lowest_price, available_offer_count = p.new_offer_count,
           average_price_90_days = history.average_price,
           price_trend_percentage = round((history.average_price - p.new_lowest_price)
                                          / nullif(history.average_price, 0) * 100, 1)
      from ${sql.table(RUN_PRODUCTS)} p
      left join lateral (
        ${ninetyDayAverage(sql.ref('p.product_id'), sql`${market}`, sql`${today}::date`)}
      ) as history on true
     where s.product_id = p.product_id and s.market = ${market} and s.as_of = ${today}::date
       and p.new_offer_count > 0
       and (p.old_lowest_price, p.old_offer_count)
           is distinct from (p.new_lowest_price, p.new_offer_count)
    returning s.product_id`.execute(trx);
  return new Set(rows.map((row) => row.product_id));
}

/**
 * Today's point of each product's history is the lowest price it was offered at today: the
 * lowest of the point as stored, the price before the run and the price after it. Days the
 * history lacks before today carry the price before the run, as the catalogue's clock fills
 * them (docs/api.md, "Clock"); days older than the window fall off its front. A history
 * already holding all that is not written.
 */
async function recordTodaysLowestPrices(
  trx: Transaction<Database>,
  market: MarketCode,
  today: string,
): Promise<void> {
  const day = sql`${today}::date`;
  const windowStart = sql`(${day} - ${HISTORY_DAYS}::integer)`;
  await sql`
    with extended as (
      select ph.product_id, ph.first_day,
             case when position <= cardinality(ph.daily_lowest_prices)
                  then ph.daily_lowest_prices[1 : position - 1]
                       || least(ph.daily_lowest_prices[position], p.old_lowest_price,
                                p.new_lowest_price)
                       || ph.daily_lowest_prices[position + 1 :]
                  else ph.daily_lowest_prices
                       || array_fill(p.old_lowest_price,
                                     array[position - cardinality(ph.daily_lowest_prices) - 1])
                       || least(p.old_lowest_price, p.new_lowest_price)
             end as prices
        from price_history ph
        join ${sql.table(RUN_PRODUCTS)} p on p.product_id = ph.product_id
        cross join lateral (select (${day} - ph.first_day) + 1 as position) as today_in_history
       where ph.market = ${market} and ph.first_day <= ${day}
         -- Most histories already hold today's point, at or below both prices, in the
         -- window: left as they are without building their arrays again.
         and not (position <= cardinality(ph.daily_lowest_prices)
                  and ph.first_day >= ${windowStart}
                  and least(ph.daily_lowest_prices[position], p.old_lowest_price,
                            p.new_lowest_price)
                      is not distinct from ph.daily_lowest_prices[position])),
    windowed as (
      select product_id, greatest(first_day, ${windowStart}) as first_day,
             prices[greatest(1, ${windowStart} - first_day + 1) :] as prices
        from extended)
    update price_history ph
       set first_day = w.first_day, daily_lowest_prices = w.prices
      from windowed w
     where ph.product_id = w.product_id and ph.market = ${market}
       and (ph.first_day, ph.daily_lowest_prices) is distinct from (w.first_day, w.prices)`.execute(
    trx,
  );
  await sql`
    insert into price_history (product_id, market, first_day, daily_lowest_prices)
    select p.product_id, ${market}, ${day},
           array[least(p.old_lowest_price, p.new_lowest_price)]
      from ${sql.table(RUN_PRODUCTS)} p
     where coalesce(p.old_lowest_price, p.new_lowest_price) is not null
       and not exists (select 1 from price_history ph
                        where ph.product_id = p.product_id and ph.market = ${market})`.execute(trx);
}

/**
 * The outbox: a row per product the run changed, with its lowest price and offer count
 * before and after and the offers added, updated and withdrawn. An offer that moved to
 * another product is withdrawn from the one and added to the other.
 */
async function recordChanges(
  trx: Transaction<Database>,
  run: { runId: string; market: MarketCode; now: Date },
): Promise<void> {
  const changes = sql.table(RUN_CHANGES);
  const idsWhere = (kind: string) =>
    sql`coalesce(array_agg(c.offer_id order by c.offer_id) filter (where c.kind = ${kind}),
                 '{}')`;
  await sql`
    insert into catalogue_changes (run_id, product_id, market, old_lowest_price,
      new_lowest_price, old_offer_count, new_offer_count, added_offer_ids, updated_offer_ids,
      withdrawn_offer_ids, changed_at)
    select ${run.runId}, p.product_id, ${run.market}, p.old_lowest_price, p.new_lowest_price,
           p.old_offer_count, p.new_offer_count, ${idsWhere('added')}, ${idsWhere('updated')},
           ${idsWhere('withdrawn')}, ${run.now.toISOString()}::timestamptz
      from ${sql.table(RUN_PRODUCTS)} p
      join (select new_product_id as product_id, offer_id,
                   case when change = 'updated' and old_product_id = new_product_id
                        then 'updated' else 'added' end as kind
              from ${changes} where change <> 'withdrawn'
            union all
            select old_product_id, offer_id, 'withdrawn'
              from ${changes}
             where change = 'withdrawn'
                or (change = 'updated' and old_product_id <> new_product_id)) as c
        on c.product_id = p.product_id
     group by p.product_id, p.old_lowest_price, p.new_lowest_price, p.old_offer_count,
              p.new_offer_count
     order by p.product_id`.execute(trx);
}
