/**
 * A category's listing in each order as an index scan per category of its subtree
 * (product-listing.ts, listProductIdsInCategories): 0001's (market, category_id, popularity)
 * index serves popularity; these serve price and price trend, each key in the listing's
 * order with its ties broken as LISTING_ORDERS does. Without them a category listed by price
 * or trend walks the whole market's order and filters it by category: 50 to 100 ms for a leaf
 * of the bench scale's Swedish market, seconds for ten of them in a batch.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index summaries_market_category_price_idx on product_market_summaries
              (market, category_id, lowest_price, popularity desc, product_id)`.execute(db);
  await sql`create index summaries_market_category_trend_idx on product_market_summaries
              (market, category_id, price_trend_percentage desc nulls last, popularity desc,
               product_id)`.execute(db);
}
