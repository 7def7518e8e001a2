/**
 * Who applies a shop's runs: one session at a time per shop, in every process. A run's
 * transaction holds its shop's lock (so the `feed` command and the queue's workers take turns),
 * and a worker holds it a run at a time between transactions too, so the oldest run is the
 * next one applied. Postgres releases a lock with the session that held it: a process killed,
 * or a server restarted, leaves nothing held.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../types.ts';

/** The lock space of feed runs: the first key of a two-key advisory lock; the shop id is the second. */
export const FEED_RUN_LOCK_SPACE = 4_140_020;

/**
 * The lock space of a market's derived data (the second key is the market's place in the
 * list of markets): runs of different shops share products, so the part of a run that reads
 * the products' offers and rewrites their history and summaries goes one run at a time per
 * market, to its commit. Without it two runs rewrote the same rows in different orders
 * (a deadlock), or each computed a product's lowest price without the other's offers. A run
 * writes its shop's own offers before it waits (no other run writes them): each statement
 * after the wait sees the offers of the run that held the lock, committed by then.
 */
const MARKET_DERIVED_LOCK_SPACE = 4_140_021;

/** Waits for the market's derived-data lock, held until the transaction ends. */
export async function lockMarketDerivedData(
  trx: Transaction<Database>,
  marketIndex: number,
): Promise<void> {
  await sql`select pg_advisory_xact_lock(${MARKET_DERIVED_LOCK_SPACE}, ${marketIndex})`.execute(
    trx,
  );
}

/** Waits for the shop's lock, held until the transaction ends. */
export async function lockShopForRun(trx: Transaction<Database>, shopId: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(${FEED_RUN_LOCK_SPACE}, ${shopId})`.execute(trx);
}

/** Takes the shop's lock for the session if no other session holds it. */
export async function tryLockShopRuns(conn: Kysely<Database>, shopId: number): Promise<boolean> {
  const { rows } = await sql<{ locked: boolean }>`
    select pg_try_advisory_lock(${FEED_RUN_LOCK_SPACE}, ${shopId}) as locked`.execute(conn);
  return rows[0]!.locked;
}

export async function unlockShopRuns(conn: Kysely<Database>, shopId: number): Promise<void> {
  await sql`select pg_advisory_unlock(${FEED_RUN_LOCK_SPACE}, ${shopId})`.execute(conn);
}
