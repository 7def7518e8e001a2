/**
 * Listing products of a market: filtered and sorted on product_market_summaries (one row per
 * product with an available offer in the market, price trend included), so every filter and
 * sort is an index scan. Text search builds on these filters and orders (product-search.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { subtreeOf } from './categories.ts';

export const LISTING_ORDERS = {
  POPULARITY: sql`s.popularity desc, s.product_id`,
  PRICE: sql`s.lowest_price, s.popularity desc, s.product_id`,
  PRICE_TREND: sql`s.price_trend_percentage desc nulls last, s.popularity desc, s.product_id`,
} as const;
export type ListingOrder = keyof typeof LISTING_ORDERS;

export interface ListingFilter {
  market: MarketCode;
  /** Keep products of this category's subtree. */
  categoryId?: number | undefined;
  /** Keep products whose price trend percentage is ≥ gte and ≤ lte. */
  priceTrend?: { gte?: number | null; lte?: number | null } | undefined;
}

export interface Page {
  offset: number;
  limit: number;
}

/** The filter as SQL over product_market_summaries `s` (text search adds its own). */
export function listingConditions(filter: ListingFilter): RawBuilder<unknown> {
  const parts = [sql`s.market = ${filter.market}`, ...priceTrendConditions(filter.priceTrend)];
  if (filter.categoryId !== undefined) {
    // An array computed once (an InitPlan), not a semi-join: `category_id = any(…)` is an
    // index condition on the summaries' (market, category_id, …) index.
    parts.push(
      sql`s.category_id = any(array(select id from ${subtreeOf([filter.categoryId])} as tree))`,
    );
  }
  return sql.join(parts, sql` and `);
}

export function priceTrendConditions(bounds: ListingFilter['priceTrend']): RawBuilder<unknown>[] {
  const { gte, lte } = bounds ?? {};
  return [
    ...(gte != null ? [sql`s.price_trend_percentage >= ${gte}`] : []),
    ...(lte != null ? [sql`s.price_trend_percentage <= ${lte}`] : []),
  ];
}

/** One page of the market's listed products. */
export async function listProductIds(
  db: Kysely<Database>,
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
): Promise<number[]> {
  const { rows } = await sql<{ product_id: number }>`
    select s.product_id from product_market_summaries s
     where ${listingConditions(filter)}
     order by ${LISTING_ORDERS[order]}
     offset ${page.offset} limit ${page.limit}`.execute(db);
  return rows.map((row) => row.product_id);
}

export async function countProducts(db: Kysely<Database>, filter: ListingFilter): Promise<number> {
  const { rows } = await sql<{ total: number }>`
    select count(*)::int as total from product_market_summaries s
     where ${listingConditions(filter)}`.execute(db);
  return rows[0]?.total ?? 0;
}

/** One page of products below each of several categories, in one statement. */
export async function listProductIdsInCategories(
  db: Kysely<Database>,
  categoryIds: readonly number[],
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
): Promise<{ category_id: number; product_id: number }[]> {
  const { rows } = await sql<{ category_id: number; product_id: number }>`
    select k.category_id, s.product_id
      from unnest(${[...categoryIds]}::integer[]) with ordinality as k(category_id, n)
      cross join lateral (
        select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
          from product_market_summaries s
         where ${listingConditions(filter)}
           and s.category_id in (select tree.id from ${subtreeOf(categoryIds)} as tree
                                  where tree.root_id = k.category_id)
         order by ${LISTING_ORDERS[order]}
         offset ${page.offset} limit ${page.limit}
      ) as s
     order by k.n, ${LISTING_ORDERS[order]}`.execute(db);
  return rows;
}

export async function countProductsInCategories(
  db: Kysely<Database>,
  categoryIds: readonly number[],
  filter: ListingFilter,
): Promise<Map<number, number>> {
  const { rows } = await sql<{ category_id: number; total: number }>`
    select tree.root_id as category_id, count(*)::int as total
      from ${subtreeOf(categoryIds)} as tree
      join product_market_summaries s on s.category_id = tree.id
     where ${listingConditions(filter)}
     group by tree.root_id`.execute(db);
  return new Map(rows.map((row) => [row.category_id, row.total]));
}
