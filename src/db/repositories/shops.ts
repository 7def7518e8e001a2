import type { Kysely, Selectable } from 'kysely';
import type { Database, ShopsTable } from '../types.ts';
import { findRowsByIds } from './sql.ts';

export type ShopRow = Selectable<ShopsTable>;
export type ShopColumn = keyof ShopRow & string;

/** Shops by id: every column, or only those given (the id always). */
export function findShopsByIds(
  db: Kysely<Database>,
  ids: readonly number[],
  columns?: readonly ShopColumn[],
): Promise<ShopRow[]> {
  return findRowsByIds(db, 'shops', ids, columns);
}
