import type { Kysely, Selectable } from 'kysely';
import type { BrandsTable, Database } from '../types.ts';
import { executePrepared } from '../prepared.ts';
import { anyOf } from './sql.ts';

export type BrandRow = Selectable<BrandsTable>;

export function findBrandsByIds(db: Kysely<Database>, ids: readonly number[]) {
  return executePrepared(db, db.selectFrom('brands').selectAll().where('id', '=', anyOf(ids)));
}
