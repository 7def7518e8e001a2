import type { Kysely, Selectable } from 'kysely';
import type { Database, ShopsTable } from '../types.ts';
import { anyOf } from './sql.ts';

export type ShopRow = Selectable<ShopsTable>;

export function findShopsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db.selectFrom('shops').selectAll().where('id', '=', anyOf(ids)).execute();
}
