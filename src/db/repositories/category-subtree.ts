import { sql } from 'kysely';

/**
 * Each category's subtree, itself included, as rows (root_id, id): one recursive CTE, so that
 * a category's listings and statistics cover every category below it.
 */
export function subtreeOf(categoryIds: readonly number[]) {
  return sql`(
    with recursive down (root_id, id) as (
      select c.id, c.id from categories c where c.id = any(${[...categoryIds]}::integer[])
      union all
      select down.root_id, c.id from down join categories c on c.parent_id = down.id
    )
    select root_id, id from down)`;
}
