/**
 * Offers, always read through the `available_offers` view (the availability rule lives
 * there, once). Keys are (product, market) pairs passed as two parallel arrays, so one
 * statement serves any number of products and markets.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import {
  STOCK_STATUSES,
  type Database,
  type OfferAlternativePricesTable,
  type OffersTable,
  type StockStatus,
} from '../types.ts';
import { anyOf, productMarketKeyTable, type ProductMarketKey } from './sql.ts';

export type { ProductMarketKey };

export type OfferRow = Selectable<OffersTable>;

export const OFFER_ORDERS = {
  PRICE: sql`o.price, o.id`,
  PRICE_INCLUDING_SHIPPING: sql`coalesce(o.price_including_shipping, o.price), o.id`,
} as const;
export type OfferOrder = keyof typeof OFFER_ORDERS;

export interface RankedOfferRow extends OfferRow {
  /** 0-based position of the offer among its product's offers in the market. */
  position: number;
  /** How many available offers the product has in the market. */
  total: number;
}

/** A page of each key's available offers, in the given order. */
export async function findAvailableOffersPage(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
  page: { offset: number; limit: number; order: OfferOrder },
): Promise<RankedOfferRow[]> {
  const order = OFFER_ORDERS[page.order];
  const { rows } = await sql<RankedOfferRow>`
    select * from (
      select o.*,
             (row_number() over (partition by o.product_id, o.market order by ${order}) - 1)::int
               as position,
             (count(*) over (partition by o.product_id, o.market))::int as total
        from available_offers o
        join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
    ) ranked
    where position >= ${page.offset} and position < ${page.offset + page.limit}
    order by product_id, market, position`.execute(db);
  return rows;
}

/** The cheapest available offer of each key (none for a key without available offers). */
export async function findCheapestOffers(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
): Promise<OfferRow[]> {
  const { rows } = await sql<OfferRow>`
    select distinct on (o.product_id, o.market) o.*
      from available_offers o
      join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
     order by o.product_id, o.market, o.price, o.id`.execute(db);
  return rows;
}

export interface PriceSummaryRow {
  product_id: number;
  market: MarketCode;
  offer_count: number;
  /** Lowest price among new-condition offers. */
  regular: number | null;
  /** Lowest price among used, refurbished and demo offers. */
  alternative: number | null;
  /** Lowest price among IN_STOCK offers. */
  in_stock: number | null;
  best_stock_status: StockStatus;
}

/**
 * Aggregates of each key's available offers. The best stock status is the first of
 * STOCK_STATUSES any offer has.
 */
export async function summariseAvailableOffers(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
): Promise<PriceSummaryRow[]> {
  const statusRank = sql`array_position(${[...STOCK_STATUSES]}::text[], o.stock_status)`;
  const { rows } = await sql<PriceSummaryRow>`
    select o.product_id, o.market,
           count(*)::int as offer_count,
           min(o.price) filter (where o.condition = 'CONDITION_NEW') as regular,
           min(o.price) filter (where o.condition <> 'CONDITION_NEW') as alternative,
           min(o.price) filter (where o.stock_status = 'IN_STOCK') as in_stock,
           (${[...STOCK_STATUSES]}::text[])[min(${statusRank})] as best_stock_status
      from available_offers o
      join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
     group by o.product_id, o.market`.execute(db);
  return rows;
}

export function findAlternativePrices(
  db: Kysely<Database>,
  offerIds: readonly number[],
): Promise<Selectable<OfferAlternativePricesTable>[]> {
  return db
    .selectFrom('offer_alternative_prices')
    .selectAll()
    .where('offer_id', '=', anyOf(offerIds))
    .orderBy('offer_id')
    .orderBy('position')
    .execute();
}

/** Available offers by id (offers that became unavailable are not found). */
export function findAvailableOffersByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db.selectFrom('available_offers').selectAll().where('id', '=', anyOf(ids)).execute();
}
