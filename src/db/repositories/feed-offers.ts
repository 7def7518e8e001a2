/**
 * A feed run's offers: which of the shop's offers its staged rows (./feed-staging.ts) create,
 * change or leave as they are, which it withdraws, and writing exactly those. Rows equal to
 * their offer are never written, so the same feed twice writes nothing.
 */
import { sql, type Transaction } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import type { Database } from '../types.ts';
import { FEED_OFFER_COLUMNS, STAGED_ITEMS } from './feed-staging.ts';

export const RUN_CHANGES = 'feed_run_changes';

/** The columns a feed row sets on its offer (docs/api.md, "Feeds"), compared before writing. */
const FEED_COLUMNS = ['product_id', ...FEED_OFFER_COLUMNS] as const;

export interface RunShop {
  shopId: number;
  market: MarketCode;
  currency: string;
}

/** What to withdraw besides the rows that no longer match a product. */
export type Withdrawal =
  /** A full feed: every listed offer of the shop whose item it does not have. */
  | { kind: 'missing from the feed' }
  /** A push: the items named. */
  | { kind: 'named'; itemIds: readonly string[] };

export interface OfferChangeCounts {
  created: number;
  updated: number;
  withdrawn: number;
}

const columnList = (alias: string) =>
  sql.raw(FEED_COLUMNS.map((column) => `${alias}.${column}`).join(', '));

/**
 * Records in a temporary table each offer the run changes: `created` (a new item, or a
 * withdrawn offer listed again), `updated` (a listed offer whose feed columns differ, out of
 * stock included) or `withdrawn`; with the product before and after, for the derived data.
 * A full feed's rows and the shop's offers are read once, side by side (a full join): what
 * one lacks of the other is new or withdrawn. A push reads only its rows' offers.
 */
export async function findOfferChanges(
  trx: Transaction<Database>,
  shop: RunShop,
  withdrawal: Withdrawal,
): Promise<OfferChangeCounts> {
  const offers =
    withdrawal.kind === 'missing from the feed'
      ? sql`full join (select * from offers where shop_id = ${shop.shopId}) o
              on o.item_id = s.item_id`
      : sql`left join offers o on o.shop_id = ${shop.shopId} and o.item_id = s.item_id`;
  // A row without a product (unmatched, or no row at all) withdraws a listed offer.
  await sql`
    create temporary table ${sql.table(RUN_CHANGES)} on commit drop as
    select coalesce(s.item_id, o.item_id) as item_id, o.id as offer_id,
           o.product_id as old_product_id, s.product_id as new_product_id,
           case when s.product_id is null then 'withdrawn'
                when o.id is null or o.withdrawn_at is not null then 'created'
                else 'updated' end as change
      from ${sql.table(STAGED_ITEMS)} s
      ${offers}
     where case when s.product_id is null then o.id is not null and o.withdrawn_at is null
                else o.id is null or o.withdrawn_at is not null
                     or (${columnList('o')}) is distinct from (${columnList('s')}) end`.execute(
    trx,
  );
  if (withdrawal.kind === 'named' && withdrawal.itemIds.length > 0) {
    await sql`
      insert into ${sql.table(RUN_CHANGES)} (item_id, offer_id, old_product_id, new_product_id,
                                             change)
      select o.item_id, o.id, o.product_id, null, 'withdrawn'
        from offers o
       where o.shop_id = ${shop.shopId} and o.item_id = any(${[...withdrawal.itemIds]}::text[])
         and o.withdrawn_at is null
         and not exists (select 1 from ${sql.table(RUN_CHANGES)} c
                          where c.item_id = o.item_id and c.change = 'withdrawn')`.execute(trx);
  }
  const { rows } = await sql<{ change: keyof OfferChangeCounts; offers: number }>`
    select change, count(*)::integer as offers from ${sql.table(RUN_CHANGES)}
     group by change`.execute(trx);
  const counts: OfferChangeCounts = { created: 0, updated: 0, withdrawn: 0 };
  for (const row of rows) counts[row.change] = row.offers;
  return counts;
}

/**
 * Writes the recorded changes: new offers inserted (their ids from the offers sequence),
 * changed and re-listed ones updated, withdrawn ones marked. Withdrawals are not written by
 * a run that has none, the rest not by a run that creates and updates nothing.
 */
export async function writeOfferChanges(
  trx: Transaction<Database>,
  shop: RunShop,
  counts: OfferChangeCounts,
  now: Date,
): Promise<void> {
  const at = now.toISOString();
  const assignments = sql.raw(FEED_COLUMNS.map((column) => `${column} = s.${column}`).join(', '));
  const changed = counts.created + counts.updated;
  if (changed > 0) {
    await sql`
      update offers o
         set ${assignments}, updated_at = ${at}::timestamptz, withdrawn_at = null
        from ${sql.table(RUN_CHANGES)} c
        join ${sql.table(STAGED_ITEMS)} s on s.item_id = c.item_id
       where c.offer_id is not null and c.change <> 'withdrawn' and o.id = c.offer_id`.execute(trx);
    // New offers' ids go back into the changes: the outbox names the offers added.
    await sql`
      with inserted as (
        insert into offers (item_id, shop_id, market, currency, ${sql.raw(FEED_COLUMNS.join(', '))},
                            updated_at)
        select s.item_id, ${shop.shopId}, ${shop.market}, ${shop.currency}, ${columnList('s')},
               ${at}::timestamptz
          from ${sql.table(RUN_CHANGES)} c
          join ${sql.table(STAGED_ITEMS)} s on s.item_id = c.item_id
         where c.offer_id is null
        returning id, item_id)
      update ${sql.table(RUN_CHANGES)} c set offer_id = inserted.id
        from inserted where c.item_id = inserted.item_id`.execute(trx);
  }
  if (counts.withdrawn > 0) {
    await sql`
      update offers o
         set withdrawn_at = ${at}::timestamptz, updated_at = ${at}::timestamptz
        from ${sql.table(RUN_CHANGES)} c
       where c.change = 'withdrawn' and o.id = c.offer_id`.execute(trx);
  }
}
