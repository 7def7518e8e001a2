/**
 * Partner API clients (docs/api.md, "Authentication"): a hashed secret and the `ref` ids the client
 * owns. Read only by the token endpoint; tokens carry the refs, so nothing else needs this.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../types.ts';

export interface ApiClientWithRefs {
  id: string;
  name: string;
  /** `scrypt$…` as stored; compare with verifyClientSecret, never log it. */
  secretHash: string;
  /** The refs the client owns, sorted; empty when it owns none. */
  refs: string[];
}

/** One client and its refs in one statement, or undefined when no client has that id. */
export async function findApiClientWithRefs(
  db: Kysely<Database>,
  id: string,
): Promise<ApiClientWithRefs | undefined> {
  const row = await db
    .selectFrom('api_clients')
    .select((eb) => [
      'api_clients.id',
      'api_clients.name',
      'api_clients.secret_hash',
      // array(subquery) is '{}' rather than null for a client without refs.
      sql<string[]>`array(${eb
        .selectFrom('api_client_refs')
        .select('api_client_refs.ref')
        .whereRef('api_client_refs.client_id', '=', 'api_clients.id')
        .orderBy('api_client_refs.ref')})`.as('refs'),
    ])
    .where('api_clients.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return { id: row.id, name: row.name, secretHash: row.secret_hash, refs: row.refs };
}
