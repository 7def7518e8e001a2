/**
 * The category tree. A category's products are those of every leaf below it, so listing
 * statements expand a category into its subtree with one recursive CTE.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { TextSearch } from '../../search/text-search.ts';
import type { CategoriesTable, Database } from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { subtreeOf } from './category-subtree.ts';
import { anyOf } from './sql.ts';
import { configLiteral, relevanceTierOf, vectorMatchesSearch } from './text-match.ts';

export type CategoryRow = Selectable<CategoriesTable>;

export function findCategoriesByIds(db: Kysely<Database>, ids: readonly number[]) {
  return executePrepared(db, db.selectFrom('categories').selectAll().where('id', '=', anyOf(ids)));
}

export function findCategoriesBySlugs(db: Kysely<Database>, slugs: readonly string[]) {
  return executePrepared(
    db,
    db.selectFrom('categories').selectAll().where('slug', '=', anyOf(slugs)),
  );
}

export function findChildCategories(db: Kysely<Database>, parentIds: readonly number[]) {
  return db
    .selectFrom('categories')
    .selectAll()
    .where('parent_id', '=', anyOf(parentIds))
    .orderBy('parent_id')
    .orderBy('position')
    .orderBy('name')
    .execute();
}

export interface AncestorRow extends CategoryRow {
  /** The category whose ancestor this is. */
  descendant_id: number;
  /** 1 for the parent, 2 for the grandparent, … */
  distance: number;
}

/** Every ancestor of each category, nearest first. */
export async function findAncestors(
  db: Kysely<Database>,
  ids: readonly number[],
): Promise<AncestorRow[]> {
  const { rows } = await sql<AncestorRow>`
    with recursive up (descendant_id, ancestor_id, distance) as (
      select c.id, c.parent_id, 1 from categories c
       where c.id = any(${[...ids]}::integer[]) and c.parent_id is not null
      union all
      select up.descendant_id, c.parent_id, up.distance + 1
        from up join categories c on c.id = up.ancestor_id
       where c.parent_id is not null
    )
    select a.*, up.descendant_id, up.distance
      from up join categories a on a.id = up.ancestor_id
     order by up.descendant_id, up.distance`.execute(db);
  return rows;
}

export interface CategoryMarketStatsRow {
  category_id: number;
  market: MarketCode;
  products_total: number;
  lowest_price: number | null;
}

/** Products available in the market below each category, and their lowest price. */
export async function findCategoryMarketStats(
  db: Kysely<Database>,
  keys: readonly { categoryId: number; market: MarketCode }[],
): Promise<CategoryMarketStatsRow[]> {
  const { rows } = await sql<CategoryMarketStatsRow>`
    select k.category_id, k.market,
           count(s.product_id)::int as products_total,
           min(s.lowest_price) as lowest_price
      from unnest(${keys.map((k) => k.categoryId)}::integer[], ${keys.map((k) => k.market)}::text[])
             as k(category_id, market)
      join ${subtreeOf(keys.map((k) => k.categoryId))} as tree on tree.root_id = k.category_id
      left join product_market_summaries s on s.category_id = tree.id and s.market = k.market
     group by k.category_id, k.market`.execute(db);
  return rows;
}

/**
 * Category search, with the products' matching rules (text-match.ts): every term is a
 * word of the category's name in the search's language (category_translations) or its
 * English name, a synonym, a word's beginning or within its typos of a vocabulary word. The
 * category tree is small (hundreds of rows), so one scan computing every leaf's vector costs
 * well under a millisecond; no index is needed.
 */
function categoryNamesVector(search: TextSearch) {
  return sql`setweight(to_tsvector(${configLiteral(search.config)},
                                   coalesce(t.name || ' ', '') || c.name), 'A')`;
}

function leafCategoriesMatching(search: TextSearch) {
  return sql`categories c
    left join category_translations t
           on t.slug = c.slug and t.search_config = ${sql.lit(search.config)}::regconfig
    where c.is_leaf and ${vectorMatchesSearch(search, categoryNamesVector(search))}`;
}

/** Best tier first (relevanceTiers); within one, the shortest name (the closest match). */
export async function searchLeafCategories(
  db: Kysely<Database>,
  search: TextSearch,
  page: { offset: number; limit: number },
): Promise<CategoryRow[]> {
  const { rows } = await sql<CategoryRow>`
    select c.* from ${leafCategoriesMatching(search)}
     order by ${relevanceTierOf(search, categoryNamesVector(search))},
              length(coalesce(t.name, c.name)), c.name, c.id
     offset ${page.offset} limit ${page.limit}`.execute(db);
  return rows;
}

export async function countLeafCategoriesMatching(
  db: Kysely<Database>,
  search: TextSearch,
): Promise<number> {
  const { rows } = await sql<{ total: number }>`
    select count(*)::int as total from ${leafCategoriesMatching(search)}`.execute(db);
  return rows[0]?.total ?? 0;
}

/**
 * One page of every category, parents before children (ids ascend from the root), each with
 * its 0-based `list_position` in the whole list.
 */
export function categoryListPage(page: { offset: number; limit: number }) {
  return sql<CategoryRow & { list_position: number }>`
    select c.*, (row_number() over (order by c.id) - 1)::int as list_position
      from categories c order by c.id offset ${page.offset} limit ${page.limit}`;
}

export async function listCategories(
  db: Kysely<Database>,
  page: { offset: number; limit: number },
): Promise<CategoryRow[]> {
  const { rows } = await categoryListPage(page).execute(db);
  return rows;
}

/** How many categories the tree has: `select total`. */
export const CATEGORY_COUNT = sql<{ total: number }>`select count(*)::int as total from categories`;

export async function countCategories(db: Kysely<Database>): Promise<number> {
  const { rows } = await CATEGORY_COUNT.execute(db);
  return rows[0]?.total ?? 0;
}
