/**
 * Each summary row keeps its product's name as a text-search vector in its market's language
 * (markets.search_config), written by the refresh (product-market-summaries.ts). A search's
 * front rows, the 2,000 most popular products of a market (product-search.ts), are matched
 * against these instead of computing to_tsvector for every one of them at every search: 16 ms
 * of the 25 ms that statement took at the bench scale.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table product_market_summaries add column name_vector tsvector`.execute(db);
  await sql`update product_market_summaries s
               set name_vector = to_tsvector(m.search_config, p.name)
              from products p, markets m
             where p.id = s.product_id and m.code = s.market`.execute(db);
  await sql`alter table product_market_summaries alter column name_vector set not null`.execute(db);
}
