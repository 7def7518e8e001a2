/** Product property trees: every node of many products in one statement. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ProductPropertiesTable } from '../types.ts';
import { anyOf } from './sql.ts';

export type PropertyNodeRow = Selectable<ProductPropertiesTable>;

/**
 * All property nodes of the given products, flat. Ordered by product, then sibling position,
 * so that grouping the rows by parent yields each node's children already in order.
 */
export function findPropertyNodesOfProducts(
  db: Kysely<Database>,
  productIds: readonly number[],
): Promise<PropertyNodeRow[]> {
  return db
    .selectFrom('product_properties')
    .selectAll()
    .where('product_id', '=', anyOf(productIds))
    .orderBy('product_id')
    .orderBy('position')
    .orderBy('node_id')
    .execute();
}
