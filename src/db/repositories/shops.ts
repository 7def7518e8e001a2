import type { Kysely, Selectable } from 'kysely';
import type { Database, ShopsTable } from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { anyOf } from './sql.ts';

export type ShopRow = Selectable<ShopsTable>;
export type ShopColumn = keyof ShopRow & string;

/** Shops by id: every column, or only those given (the id always). */
export function findShopsByIds(
  db: Kysely<Database>,
  ids: readonly number[],
  columns?: readonly ShopColumn[],
): Promise<ShopRow[]> {
  const query = db.selectFrom('shops').where('id', '=', anyOf(ids));
  return executePrepared(
    db,
    columns ? query.select([...new Set(['id' as const, ...columns])]) : query.selectAll(),
  ) as Promise<ShopRow[]>;
}
