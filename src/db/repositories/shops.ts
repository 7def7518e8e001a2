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

/** A shop's market and the market's currency; undefined for no such shop. */
export async function findShopMarket(
  db: Kysely<Database>,
  shopId: number,
): Promise<{ market: string; currency: string } | undefined> {
  return db
    .selectFrom('shops')
    .innerJoin('markets', 'markets.code', 'shops.market')
    .select(['shops.market', 'markets.currency'])
    .where('shops.id', '=', shopId)
    .executeTakeFirst();
}
