/**
 * Offers, always read through the `available_offers` view (the availability rule lives
 * there, once). Keys are (product, market) pairs passed as two parallel arrays, or shop ids
 * as one, so one statement serves any number of products and markets, or of shops.
 */
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import {
  STOCK_STATUSES,
  type Database,
  type OfferAlternativePricesTable,
  type OffersTable,
  type StockStatus,
} from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { anyOf, productMarketKeyTable, type ProductMarketKey } from './sql.ts';

export type { ProductMarketKey };

export type OfferRow = Selectable<OffersTable>;
export type OfferColumn = keyof OfferRow & string;

/** What a page of offers always carries: the offer and the (product, market) key it belongs to. */
const OFFER_KEY_COLUMNS = ['id', 'product_id', 'market'] as const satisfies OfferColumn[];

/** What a page of a shop's offers always carries: the offer, its shop and its place in the order. */
const SHOP_OFFER_KEY_COLUMNS = [
  ...OFFER_KEY_COLUMNS,
  'shop_id',
  'updated_at',
] as const satisfies OfferColumn[];

/** `o.<column>, …` for the columns asked for and the key, or `o.*` without a list. */
function offerColumns(
  columns: readonly OfferColumn[] | undefined,
  key: readonly OfferColumn[] = OFFER_KEY_COLUMNS,
): RawBuilder<unknown> {
  if (!columns) return sql`o.*`;
  const wanted = [...new Set([...key, ...columns])];
  return sql.join(wanted.map((column) => sql.ref(`o.${column}`)));
}

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

/** A page of each key's available offers, in the given order: every column, or those given. */
export async function findAvailableOffersPage(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
  page: { offset: number; limit: number; order: OfferOrder },
  columns?: readonly OfferColumn[],
): Promise<RankedOfferRow[]> {
  const order = OFFER_ORDERS[page.order];
  return executePrepared(
    db,
    sql<RankedOfferRow>`
    select * from (
      select ${offerColumns(columns)},
             (row_number() over (partition by o.product_id, o.market order by ${order}) - 1)::int
               as position,
             (count(*) over (partition by o.product_id, o.market))::int as total
        from available_offers o
        join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
    ) ranked
    where position >= ${page.offset} and position < ${page.offset + page.limit}
    order by product_id, market, position`,
  );
}

/**
 * A page of each shop's available offers, newest first (last reported, then highest id): an
 * index scan per shop (migration 0009), however many offers a shop has. Every column, or
 * those given.
 */
export async function findShopOffersPage(
  db: Kysely<Database>,
  shopIds: readonly number[],
  page: { offset: number; limit: number },
  columns?: readonly OfferColumn[],
): Promise<OfferRow[]> {
  return executePrepared(
    db,
    sql<OfferRow>`
    select page.* from unnest(${[...shopIds]}::integer[]) as k(shop_id)
    cross join lateral (
      select ${offerColumns(columns, SHOP_OFFER_KEY_COLUMNS)}
        from available_offers o
       where o.shop_id = k.shop_id
       order by o.updated_at desc, o.id desc
      offset ${page.offset} limit ${page.limit}
    ) page
    order by page.shop_id, page.updated_at desc, page.id desc`,
  );
}

/** How many available offers each shop has (none for a shop without any). */
export function countShopOffers(
  db: Kysely<Database>,
  shopIds: readonly number[],
): Promise<{ shop_id: number; offer_count: number }[]> {
  return executePrepared(
    db,
    sql<{ shop_id: number; offer_count: number }>`
    select o.shop_id, count(*)::int as offer_count
      from available_offers o
     where o.shop_id = ${anyOf(shopIds)}
     group by o.shop_id`,
  );
}

/**
 * The cheapest available offer of each key (none for a key without available offers): every
 * column, or those given.
 */
export async function findCheapestOffers(
  db: Kysely<Database>,
  keys: readonly ProductMarketKey[],
  columns?: readonly OfferColumn[],
): Promise<OfferRow[]> {
  return executePrepared(
    db,
    sql<OfferRow>`
    select distinct on (o.product_id, o.market) ${offerColumns(columns)}
      from available_offers o
      join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
     order by o.product_id, o.market, o.price, o.id`,
  );
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
  /** The price with shipping of the offer each lowest price comes from (null: not stated). */
  regular_including_shipping: number | null;
  alternative_including_shipping: number | null;
  in_stock_including_shipping: number | null;
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
  // The offer a filtered minimum comes from, as findCheapestOffers picks it (price, then id).
  const shippingOfCheapest = (filter: RawBuilder<unknown>) =>
    sql`(array_agg(o.price_including_shipping order by o.price, o.id) filter (where ${filter}))[1]`;
  const isNew = sql`o.condition = 'CONDITION_NEW'`;
  const isAlternative = sql`o.condition <> 'CONDITION_NEW'`;
  const isInStock = sql`o.stock_status = 'IN_STOCK'`;
  return executePrepared(
    db,
    sql<PriceSummaryRow>`
    select o.product_id, o.market,
           count(*)::int as offer_count,
           min(o.price) filter (where ${isNew}) as regular,
           min(o.price) filter (where ${isAlternative}) as alternative,
           min(o.price) filter (where ${isInStock}) as in_stock,
           ${shippingOfCheapest(isNew)} as regular_including_shipping,
           ${shippingOfCheapest(isAlternative)} as alternative_including_shipping,
           ${shippingOfCheapest(isInStock)} as in_stock_including_shipping,
           (${[...STOCK_STATUSES]}::text[])[min(${statusRank})] as best_stock_status
      from available_offers o
      join ${productMarketKeyTable(keys)} on o.product_id = k.product_id and o.market = k.market
     group by o.product_id, o.market`,
  );
}

export function findAlternativePrices(
  db: Kysely<Database>,
  offerIds: readonly number[],
): Promise<Selectable<OfferAlternativePricesTable>[]> {
  return executePrepared(
    db,
    db
      .selectFrom('offer_alternative_prices')
      .selectAll()
      .where('offer_id', '=', anyOf(offerIds))
      .orderBy('offer_id')
      .orderBy('position'),
  );
}

/** Available offers by id (offers that became unavailable are not found). */
export function findAvailableOffersByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db.selectFrom('available_offers').selectAll().where('id', '=', anyOf(ids)).execute();
}
