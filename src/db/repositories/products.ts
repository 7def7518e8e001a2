/** Products and their GTINs: plain Kysely functions, one statement each. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, ProductsTable } from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { anyOf, findRowsByIds } from './sql.ts';

export type ProductRow = Selectable<ProductsTable>;
export type ProductColumn = keyof ProductRow & string;

/** Products by id: every column, or only those given (the id always). */
export function findProductsByIds(
  db: Kysely<Database>,
  ids: readonly number[],
  columns?: readonly ProductColumn[],
): Promise<ProductRow[]> {
  return findRowsByIds(db, 'products', ids, columns);
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
  return executePrepared(
    db,
    db
      .selectFrom('gtins')
      .select(['gtin', 'product_id'])
      .where('product_id', '=', anyOf(productIds))
      .orderBy('gtin'),
  );
}
