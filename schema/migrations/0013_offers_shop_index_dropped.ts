/**
 * `offers_shop_idx` (shop_id) duplicates the leading column of the unique index on
 * (shop_id, item_id), which serves every lookup by shop as well. Each index is written on
 * every insert and on every update that changes an indexed column, as a feed's price changes
 * do: one fewer of the table's six is a sixth less index upkeep per change. Older releases
 * run without it (nothing names it), so no `oldestRelease`.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists offers_shop_idx`.execute(db);
}
