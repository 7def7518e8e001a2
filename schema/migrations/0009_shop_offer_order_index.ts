/**
 * A page of a shop's offers, newest first (`Shop.offers`, findShopOffersPage), as an index
 * scan: without it every page of a shop sorts all its offers (1.2 s for the bench scale's
 * largest shop, 50,000 offers; 0.1 ms with it). Partial on the availability rule of
 * `available_offers`, so queries through the view use it.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index offers_available_shop_updated_idx on offers
              (shop_id, updated_at desc, id desc)
              where purchasable and stock_status <> 'OUT_OF_STOCK' and withdrawn_at is null`.execute(
    db,
  );
}
