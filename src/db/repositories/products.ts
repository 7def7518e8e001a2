/** Products and their GTINs: plain Kysely functions, one statement each. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ProductsTable } from '../types.ts';
import { anyOf } from './sql.ts';

export type ProductRow = Selectable<ProductsTable>;

export function findProductsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db.selectFrom('products').selectAll().where('id', '=', anyOf(ids)).execute();
}

/** GTIN → product id for the GTINs that exist. */
export async function findProductIdsByGtins(
  db: Kysely<Database>,
  gtins: readonly string[],
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('gtins')
    .select(['gtin', 'product_id'])
    .where('gtin', '=', anyOf(gtins))
    .execute();
  return new Map(rows.map((row) => [row.gtin, row.product_id]));
}

export function findGtinsOfProducts(db: Kysely<Database>, productIds: readonly number[]) {
  return db
    .selectFrom('gtins')
    .select(['gtin', 'product_id'])
    .where('product_id', '=', anyOf(productIds))
    .orderBy('gtin')
    .execute();
}
