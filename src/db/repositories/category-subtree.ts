import { sql, type RawBuilder } from 'kysely';

/**
 * Categories to expand: ids known when the statement is built (one array parameter), or an
 * `integer[]` expression of the statement itself (a category it looks up by slug, say).
 */
export type CategoryIds = readonly number[] | RawBuilder<unknown>;

/** The ids as an `integer[]` expression. */
export function categoryIdArray(categoryIds: CategoryIds): RawBuilder<unknown> {
  return Array.isArray(categoryIds)
    ? sql`${[...categoryIds]}::integer[]`
    : (categoryIds as RawBuilder<unknown>);
}

/**
 * Each category's subtree, itself included, as rows (root_id, id): one recursive CTE, so that
 * a category's listings and statistics cover every category below it.
 */
export function subtreeOf(categoryIds: CategoryIds) {
  return sql`(
    with recursive down (root_id, id) as (
      select c.id, c.id from categories c where c.id = any(${categoryIdArray(categoryIds)})
      union all
      select down.root_id, c.id from down join categories c on c.parent_id = down.id
    )
    select root_id, id from down)`;
}
