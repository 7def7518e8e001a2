/**
 * Whether every table and view the service reads is there: a migrated database whose tables
 * were dropped afterwards still lists its migrations as applied, and would fail every request.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './types.ts';

// A record rather than a list, so that the compiler checks it names every relation of Database.
const RELATIONS = Object.keys({
  markets: true,
  brands: true,
  categories: true,
  shops: true,
  products: true,
  gtins: true,
  offers: true,
  available_offers: true,
  offer_alternative_prices: true,
  price_history: true,
  product_market_summaries: true,
  product_properties: true,
  api_clients: true,
  api_client_refs: true,
  category_translations: true,
  category_search_texts: true,
  search_vocabulary: true,
  search_lexicons: true,
  category_search_vectors: true,
  unmatched_feed_items: true,
  catalogue_changes: true,
  feed_runs: true,
  feed_run_bodies: true,
  trusted_documents: true,
} satisfies Record<keyof Database, true>);

/** The service's relations missing from the database's search path, in a stable order. */
export async function missingRelations(db: Kysely<Database>): Promise<string[]> {
  const names = sql.join(RELATIONS.map((name) => sql`(${name}::text)`));
  const { rows } = await sql<{ name: string }>`
    select name from (values ${names}) as relation (name) where to_regclass(name) is null
  `.execute(db);
  const missing = new Set(rows.map((row) => row.name));
  return RELATIONS.filter((name) => missing.has(name));
}
