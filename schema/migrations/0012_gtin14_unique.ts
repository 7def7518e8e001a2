/**
 * A GTIN names one product in its GTIN-14 form, the form feeds send: a UPC-12 and the EAN-13
 * that is it with a leading zero are one code. Unique, a feed row's GTIN finds at most one
 * product, so a large feed is matched by one hash join with nothing to group, and a push by
 * an index lookup per row (src/db/repositories/feed-staging.ts).
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index gtins_gtin14_key on gtins (lpad(gtin, 14, '0'))`.execute(db);
  await sql`drop index gtins_gtin14_idx`.execute(db);
}
