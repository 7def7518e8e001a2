/**
 * Listing products of a market: filtered and sorted on product_market_summaries (one row per
 * product with an available offer in the market, price trend included), so every filter and
 * sort is an index scan; a category's listing is one per category of its subtree, merged
 * (firstRowsPerCategory). Text search builds on these filters and orders (product-search.ts).
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { categoryIdArray, subtreeOf, type CategoryIds } from './category-subtree.ts';
import type { ProductColumn, ProductRow } from './products.ts';
import { columnsWithId } from './sql.ts';

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

/**
 * The categories below `k.root_id`, itself included (its subtree among those of
 * `categoryIds`), as an array. Postgres estimates an array at ten elements and the recursive
 * CTE at 241 rows: with the per-category scans costed 241 times, the statement's estimate
 * crossed `jit_above_cost`, and compiling it took 45–200 ms where running it takes one.
 */
function categoriesBelowRoot(categoryIds: CategoryIds): RawBuilder<unknown> {
  return sql`array(select tree.id from ${subtreeOf(categoryIds)} as tree
                    where tree.root_id = k.root_id)`;
}

/** The filter without its category, over the summaries `s` (for a category's own scans). */
function marketConditions({ market, priceTrend }: ListingFilter): RawBuilder<unknown> {
  return listingConditions({ market, priceTrend });
}

/**
 * The columns each order sorts on: all a per-category scan returns, so that, with the
 * summaries' visibility map set, it reads its index alone.
 */
export const SORT_COLUMNS: Record<ListingOrder, RawBuilder<unknown>> = {
  POPULARITY: sql`s.product_id, s.popularity`,
  PRICE: sql`s.product_id, s.popularity, s.lowest_price`,
  PRICE_TREND: sql`s.product_id, s.popularity, s.price_trend_percentage`,
};

/**
 * The first `limit` listed products, in the order, of each category below each of
 * `categoryIds` (its subtree, itself included), as rows `root_id` (the category asked for)
 * and `columns` (filter.categoryId is not used). Each category is one scan of the (market,
 * category_id, <order>) index its order has (migrations 0001 and 0004) that stops after
 * `limit` rows, so the cost follows the page, never the category's place in the market's
 * order: filtered by category, the market's own order index is walked until the page is
 * full, which for a category without the market's most popular products is most of the
 * market. Groups hold no products in the seeded catalogue, but nothing in the schema says so,
 * and a scan of an empty index range costs microseconds.
 */
export function firstRowsPerCategory(
  categoryIds: CategoryIds,
  filter: ListingFilter,
  order: ListingOrder,
  limit: number,
  columns: RawBuilder<unknown> = SORT_COLUMNS[order],
): RawBuilder<unknown> {
  return sql`
    select k.root_id, s.*
      from unnest(${categoryIdArray(categoryIds)}) as k(root_id)
      cross join lateral unnest(${categoriesBelowRoot(categoryIds)}) as category(id)
      cross join lateral (
        select ${columns} from product_market_summaries s
         where ${marketConditions(filter)} and s.category_id = category.id
         order by ${LISTING_ORDERS[order]}
         limit ${limit}) as s`;
}

/**
 * The rows (product_id, position) of one page of the market's listed products, position
 * counting from 1 at the start of the whole list (no category: see categoryPageRows).
 */
function marketPageRows(filter: ListingFilter, order: ListingOrder, page: Page) {
  return sql`
    select s.product_id, row_number() over (order by ${LISTING_ORDERS[order]}) as position
      from product_market_summaries s
     where ${listingConditions(filter)}
     order by ${LISTING_ORDERS[order]}
     offset ${page.offset} limit ${page.limit}`;
}

/** One page of the market's listed products (filter.categoryId: those below that category). */
export async function listProductIds(
  db: Kysely<Database>,
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
): Promise<number[]> {
  if (filter.categoryId !== undefined) {
    const rows = await listProductIdsInCategories(db, [filter.categoryId], filter, order, page);
    return rows.map((row) => row.product_id);
  }
  const { rows } = await sql<{ product_id: number }>`
    select listed.product_id from (${marketPageRows(filter, order, page)}) as listed
     order by listed.position`.execute(db);
  return rows.map((row) => row.product_id);
}

/**
 * The same page as listProductIds with the products' `columns` (the id always): the page and
 * its products in one statement.
 */
export async function listProducts(
  db: Kysely<Database>,
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
  columns: readonly ProductColumn[],
): Promise<ProductRow[]> {
  if (filter.categoryId !== undefined) {
    return listProductsInCategories(db, [filter.categoryId], filter, order, page, columns);
  }
  const { rows } = await sql<ProductRow>`
    select ${columnsWithId(columns, 'p')}
      from (${marketPageRows(filter, order, page)}) as listed
      join products p on p.id = listed.product_id
     order by listed.position`.execute(db);
  return rows;
}

export async function countProducts(db: Kysely<Database>, filter: ListingFilter): Promise<number> {
  if (filter.categoryId !== undefined) {
    const totals = await countProductsInCategories(db, [filter.categoryId], filter);
    return totals.get(filter.categoryId) ?? 0;
  }
  const { rows } = await sql<{ total: number }>`
    select count(*)::int as total from product_market_summaries s
     where ${listingConditions(filter)}`.execute(db);
  return rows[0]?.total ?? 0;
}

/**
 * The rows (category_id, product_id, position) of one page of products below each of several
 * categories (filter.categoryId is not used). The page of a category is the merge of its
 * subtree's categories' first offset + limit products (firstRowsPerCategory): a product's
 * category is one of them, so every product of the page is among those, in the same order,
 * ties broken alike.
 */
export function categoryPageRows(
  categoryIds: CategoryIds,
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
) {
  const end = page.offset + page.limit;
  return sql`
    select ranked.category_id, ranked.product_id, ranked.position
      from (select s.root_id as category_id, s.product_id,
                   row_number() over (partition by s.root_id
                                      order by ${LISTING_ORDERS[order]}) as position
              from (${firstRowsPerCategory(categoryIds, filter, order, end)}) as s) as ranked
     where ranked.position > ${page.offset} and ranked.position <= ${end}`;
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
    select listed.category_id, listed.product_id
      from (${categoryPageRows(categoryIds, filter, order, page)}) as listed
     order by listed.category_id, listed.position`.execute(db);
  return rows;
}

/** A product of a category's page, and the category asked for that listed it. */
export type ListedProductRow = ProductRow & { listed_under: number };

/**
 * The same pages as listProductIdsInCategories with the products' `columns` (the id always):
 * the pages and their products in one statement. Its plan does not depend on the values bound
 * (a scan per category of the order's own index), so it runs prepared.
 */
export function listProductsInCategories(
  db: Kysely<Database>,
  categoryIds: readonly number[],
  filter: ListingFilter,
  order: ListingOrder,
  page: Page,
  columns: readonly ProductColumn[],
): Promise<ListedProductRow[]> {
  return executePrepared(
    db,
    sql<ListedProductRow>`
      select listed.category_id as listed_under, ${columnsWithId(columns, 'p')}
        from (${categoryPageRows(categoryIds, filter, order, page)}) as listed
        join products p on p.id = listed.product_id
       order by listed.category_id, listed.position`,
  );
}

/**
 * How many listed products are below each category (filter.categoryId is not used): per
 * category asked for, one scan of the (market, category_id, …) index over its subtree's
 * categories, with the price-trend bounds (if any) a range of the trend index. A count reads
 * every entry, in whatever order: one scan for the subtree, not one per category, so that
 * Postgres visits each heap page once where the visibility map does not spare it the heap.
 */
export async function countProductsInCategories(
  db: Kysely<Database>,
  categoryIds: readonly number[],
  filter: ListingFilter,
): Promise<Map<number, number>> {
  const { rows } = await sql<{ category_id: number; total: number }>`
    ${categoryProductTotals(categoryIds, filter)}`.execute(db);
  return new Map(rows.map((row) => [row.category_id, row.total]));
}

/** The rows (category_id, total) countProductsInCategories reads. */
export function categoryProductTotals(
  categoryIds: CategoryIds,
  filter: ListingFilter,
): RawBuilder<unknown> {
  return sql`
    select k.root_id as category_id,
           (select count(*)::int from product_market_summaries s
             where ${marketConditions(filter)}
               and s.category_id = any(${categoriesBelowRoot(categoryIds)})) as total
      from unnest(${categoryIdArray(categoryIds)}) as k(root_id)`;
}
