/**
 * Daily lowest prices per product and market. Stored as one array per product and market
 * (element i is the price on first_day + i); read here as one row per day.
 */
import { sql, type Kysely } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { productMarketKeyTable, type ProductMarketKey } from './sql.ts';

export interface PriceHistoryPointRow {
  product_id: number;
  market: MarketCode;
  /** 'YYYY-MM-DD'. */
  day: string;
  /** The lowest available price that day, or null when no offer was available. */
  lowest_price: number | null;
}

/**
 * The last `days` stored days of each key's history (fewer when less is stored), oldest
 * first. A key without history has no rows.
 */
export async function findRecentPriceHistory(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
  days: number,
): Promise<PriceHistoryPointRow[]> {
  const { rows } = await sql<PriceHistoryPointRow>`
    select ph.product_id, ph.market,
           ph.first_day + (point.position - 1)::integer as day,
           point.price as lowest_price
      from price_history ph
      join ${productMarketKeyTable(keys)}
        on ph.product_id = k.product_id and ph.market = k.market
      cross join lateral unnest(ph.daily_lowest_prices) with ordinality as point(price, position)
     where point.position > cardinality(ph.daily_lowest_prices) - ${days}::integer
     order by ph.product_id, ph.market, point.position`.execute(db);
  return rows;
}
