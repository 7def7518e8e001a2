/**
 * The price trend (docs/api.md, "Price trend") and the per-market listing facts, computed in one
 * place from available offers and price history, and stored so that filters and sorts on
 * them are index scans.
 */
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';

export interface RefreshOptions {
  /** Only these products (after their prices changed); all products when absent. */
  productIds?: readonly number[];
  /** Only this market's rows (a feed run changes one shop's market); all markets when absent. */
  market?: MarketCode;
  /** The 90-day window ends the day before this date ('YYYY-MM-DD'); today when absent. */
  asOf?: string;
}

/**
 * Rebuilds the summary rows of the given products (or of all), in the given market (or in
 * all), in one transaction:
 *   lowest_price = the cheapest available offer in the market,
 *   average_price_90_days = mean of the daily lowest prices of the 90 days before `asOf`,
 *   price_trend_percentage = (average − lowest) / average × 100, rounded to one decimal;
 * null without history; search_vector = the product's name, brand and category names (its own and its ancestors') as text
 * search sees them in the market's language (migration 0005's product_search_vector; a
 * renamed product, brand or category needs a refresh too, and rebuildSearchWords). Products without an available offer in a market get no row there.
 */
export async function refreshProductMarketSummaries(
  db: Kysely<Database>,
  options: RefreshOptions = {},
): Promise<number> {
  return db.transaction().execute((trx) => rebuildProductMarketSummaries(trx, options));
}

/** refreshProductMarketSummaries' work, inside a transaction the caller holds. */
export async function rebuildProductMarketSummaries(
  trx: Transaction<Database>,
  options: RefreshOptions = {},
): Promise<number> {
  const asOf = options.asOf === undefined ? sql`current_date` : sql`${options.asOf}::date`;
  const ids = options.productIds === undefined ? null : [...options.productIds];
  const onlyProducts = (column: string) =>
    ids === null ? sql<boolean>`true` : sql<boolean>`${sql.ref(column)} = any(${ids}::integer[])`;
  const onlyMarket = (column: string) =>
    options.market === undefined
      ? sql<boolean>`true`
      : sql<boolean>`${sql.ref(column)} = ${options.market}`;
  const onlyListed = (alias: string) =>
    sql<boolean>`${onlyProducts(`${alias}product_id`)} and ${onlyMarket(`${alias}market`)}`;

  await trx.deleteFrom('product_market_summaries').where(onlyListed('')).execute();
  const inserted = await sql`
      insert into product_market_summaries (product_id, market, category_id, popularity,
        available_offer_count, lowest_price, average_price_90_days, price_trend_percentage, as_of,
        search_vector)
      select p.id, offer_stats.market, p.category_id, p.popularity,
             offer_stats.available_offer_count, offer_stats.lowest_price,
             history.average_price,
             round((history.average_price - offer_stats.lowest_price)
                   / nullif(history.average_price, 0) * 100, 1),
             ${asOf},
             product_search_vector(m.search_config, p.name, b.name, category_texts.leaf_names,
                                   category_texts.ancestor_names)
        from (select o.product_id, o.market, count(*) as available_offer_count,
                     min(o.price) as lowest_price
                from available_offers o
               where ${onlyListed('o.')}
               group by o.product_id, o.market) as offer_stats
        join products p on p.id = offer_stats.product_id
        join markets m on m.code = offer_stats.market
        left join brands b on b.id = p.brand_id
        left join category_search_texts category_texts
               on category_texts.category_id = p.category_id
              and category_texts.search_config = m.search_config
        left join lateral (
          ${ninetyDayAverage(sql.ref('offer_stats.product_id'), sql.ref('offer_stats.market'), asOf)}
        ) as history on true
    `.execute(trx);
  return Number(inserted.numAffectedRows ?? 0);
}

/** `average_price`: the mean of a product's daily lowest prices in the 90 days before `asOf`. */
export function ninetyDayAverage(
  productId: RawBuilder<unknown> | ReturnType<typeof sql.ref>,
  market: RawBuilder<unknown> | ReturnType<typeof sql.ref>,
  asOf: RawBuilder<unknown>,
): RawBuilder<unknown> {
  return sql`
    select avg(day_price) as average_price
      from price_history ph,
           unnest(ph.daily_lowest_prices[(${asOf} - 90 - ph.first_day) + 1
                                         : (${asOf} - ph.first_day)]) as day_price
     where ph.product_id = ${productId} and ph.market = ${market}`;
}
