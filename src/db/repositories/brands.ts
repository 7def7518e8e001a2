import type { Kysely, Selectable } from 'kysely';
import type { BrandsTable, Database } from '../types.ts';
import { anyOf } from './sql.ts';

export type BrandRow = Selectable<BrandsTable>;

export function findBrandsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return db.selectFrom('brands').selectAll().where('id', '=', anyOf(ids)).execute();
}
