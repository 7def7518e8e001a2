/**
 * API clients (docs/api.md, "Authentication"): a hashed secret, and either the `ref` ids a
 * partner's client owns or the shop a shop's client writes for. The token endpoint reads them
 * and the `clients` command manages them; tokens carry what a request needs, and each process
 * keeps a list of the clients that exist to refuse the tokens of those that no longer do.
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from '../types.ts';

export interface ApiClientWithRefs {
  id: string;
  name: string;
  /** `scrypt$…` as stored; compare with verifyClientSecret, never log it. */
  secretHash: string;
  /** The refs the client owns, sorted; empty when it owns none. */
  refs: string[];
  /** The shop of a shop's client; null for a partner's. */
  shopId: number | null;
}

/** A client as the `clients` command lists it: never its secret's hash. */
export interface ListedApiClient {
  id: string;
  name: string;
  refs: string[];
  shop: { id: number; market: string; name: string } | null;
  createdAt: string;
}

export interface NewApiClient {
  id: string;
  name: string;
  secretHash: string;
  refs: readonly string[];
  shopId: number | null;
}

/** The client's refs, sorted; array(subquery) is '{}' rather than null for none. */
function refsOf(eb: ExpressionBuilder<Database, 'api_clients'>) {
  return sql<string[]>`array(${eb
    .selectFrom('api_client_refs')
    .select('api_client_refs.ref')
    .whereRef('api_client_refs.client_id', '=', 'api_clients.id')
    .orderBy('api_client_refs.ref')})`.as('refs');
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
      'api_clients.shop_id',
      refsOf(eb),
    ])
    .where('api_clients.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    id: row.id,
    name: row.name,
    secretHash: row.secret_hash,
    refs: row.refs,
    shopId: row.shop_id,
  };
}

/**
 * The statement of every client's id and secret hash, compiled for the connection that
 * listens for changes to run itself (the list of clients is the process's upkeep).
 */
export function clientSecretHashes(db: Kysely<Database>) {
  return db.selectFrom('api_clients').select(['id', 'secret_hash']).compile();
}

/** Every client, oldest first, with its refs or its shop. */
export async function listApiClients(db: Kysely<Database>): Promise<ListedApiClient[]> {
  const rows = await db
    .selectFrom('api_clients')
    .leftJoin('shops', 'shops.id', 'api_clients.shop_id')
    .select((eb) => [
      'api_clients.id',
      'api_clients.name',
      'api_clients.created_at',
      'api_clients.shop_id',
      'shops.market as shop_market',
      'shops.name as shop_name',
      refsOf(eb),
    ])
    .orderBy('api_clients.created_at')
    .orderBy('api_clients.id')
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    refs: row.refs,
    shop:
      row.shop_id === null
        ? null
        : { id: row.shop_id, market: row.shop_market!, name: row.shop_name! },
    createdAt: row.created_at,
  }));
}

/** The clients already owning any of these refs, by ref. */
export async function findRefOwners(
  db: Kysely<Database>,
  refs: readonly string[],
): Promise<{ ref: string; clientId: string }[]> {
  if (refs.length === 0) return [];
  return db
    .selectFrom('api_client_refs')
    .select(['ref', 'client_id as clientId'])
    .where('ref', 'in', refs)
    .orderBy('ref')
    .execute();
}

/** Whether a shop with this id exists. */
export async function shopExists(db: Kysely<Database>, shopId: number): Promise<boolean> {
  const row = await db.selectFrom('shops').select('id').where('id', '=', shopId).executeTakeFirst();
  return row !== undefined;
}

/** Stores a client and its refs together: either both are there or neither. */
export async function insertApiClient(db: Kysely<Database>, client: NewApiClient): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('api_clients')
      .values({
        id: client.id,
        name: client.name,
        secret_hash: client.secretHash,
        shop_id: client.shopId,
      })
      .execute();
    if (client.refs.length === 0) return;
    await trx
      .insertInto('api_client_refs')
      .values(client.refs.map((ref) => ({ ref, client_id: client.id })))
      .execute();
  });
}

/** Deletes a client (its refs go with it); false when no client has that id. */
export async function deleteApiClient(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('api_clients').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}
