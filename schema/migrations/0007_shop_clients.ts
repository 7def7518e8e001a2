/**
 * API clients bound to a shop (docs/api.md, "Authentication"): a shop's client authenticates
 * at the token endpoint like a partner's and may write only its own shop's feeds. One shop row
 * is one shop in one market, so a client is bound to one market too. Partner clients have no
 * shop. A deleted shop takes its clients with it; revoking a client deletes its row (and its
 * refs), which frees its refs for another client.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table api_clients
              add column shop_id integer references shops (id) on delete cascade`.execute(db);
  // Deleting a shop looks its clients up by this index instead of reading every client.
  await sql`create index api_clients_shop_idx on api_clients (shop_id)
              where shop_id is not null`.execute(db);
}
