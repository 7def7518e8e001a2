/**
 * Reads of the per-market read model (product_market_summaries). The numbers in it, the
 * price trend among them, are computed only by refreshProductMarketSummaries: nothing here
 * recomputes them.
 */
import { sql, type Kysely } from 'kysely';
import { MARKET_CODES, type MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { productMarketKeyTable, type ProductMarketKey } from './sql.ts';
import { anyOf } from './sql.ts';

export interface MarketPriceRow {
  product_id: number;
  market: MarketCode;
  available_offer_count: number;
  lowest_price: number;
  average_price_90_days: number | null;
  price_trend_percentage: number | null;
}

const COLUMNS = [
  's.product_id',
  's.market',
  's.available_offer_count',
  's.lowest_price',
  's.average_price_90_days',
  's.price_trend_percentage',
] as const;

/** The summary of each (product, market) key; none for a key without an available offer. */
export async function findMarketPrices(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
): Promise<MarketPriceRow[]> {
  const { rows } = await sql<MarketPriceRow>`
    select ${sql.join(COLUMNS.map((column) => sql.ref(column)))}
      from product_market_summaries s
      join ${productMarketKeyTable(keys)}
        on s.product_id = k.product_id and s.market = k.market`.execute(db);
  return rows;
}

export interface MarketPriceWithShippingRow extends MarketPriceRow {
  /**
   * The price with shipping of the cheapest available offer at the lowest price (the offer
   * findCheapestOffers picks); null when that offer states no shipping.
   */
  lowest_price_including_shipping: number | null;
}

/**
 * The summaries of the given products in every market where they have an available offer,
 * markets in the order of MARKET_CODES (the order the `markets` query lists them).
 */
export function findMarketPricesInAllMarkets(
  db: Kysely<Database>,
  productIds: readonly number[],
): Promise<MarketPriceWithShippingRow[]> {
  return db
    .selectFrom('product_market_summaries as s')
    .select(COLUMNS)
    .select(
      sql<number | null>`(
        select o.price_including_shipping from available_offers o
         where o.product_id = s.product_id and o.market = s.market and o.price = s.lowest_price
         order by o.id limit 1)`.as('lowest_price_including_shipping'),
    )
    .where('s.product_id', '=', anyOf(productIds))
    .orderBy('s.product_id')
    .orderBy(sql`array_position(${[...MARKET_CODES]}::text[], s.market)`)
    .execute();
}
