/**
 * Reading the outbox (`catalogue_changes`, one row per run, product and market): what a run
 * changed, for every process that hears of it (src/changes/catalogue-changes.ts).
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { CatalogueChangesTable, Database } from '../types.ts';
import { subtreeOf } from './category-subtree.ts';

export interface RunChangeRow {
  market: string;
  /** The run's shop: every offer a run changes is its shop's. */
  shop_id: number;
  product_ids: number[];
  /** The run's last outbox position (a bigint, as text). */
  last_sequence: string;
}

/**
 * The statement of a run's market, shop and changed products (no row when it changed
 * nothing), compiled for the connection that listens for changes to run itself.
 */
export function runChange(db: Kysely<Database>, runId: string) {
  return sql<RunChangeRow>`
    select c.market, array_agg(c.product_id order by c.product_id) as product_ids,
           max(c.sequence)::text as last_sequence,
           (select o.shop_id
              from catalogue_changes r
             cross join lateral unnest(r.added_offer_ids || r.updated_offer_ids
                                       || r.withdrawn_offer_ids) as changed (offer_id)
              join offers o on o.id = changed.offer_id
             where r.run_id = ${runId}
             limit 1) as shop_id
      from catalogue_changes c
     where c.run_id = ${runId}
     group by c.market`.compile(db);
}

/**
 * The statement of the outbox's last position (a bigint, as text; null while it is empty),
 * compiled for the connection that listens for changes to run itself.
 */
export function latestChangeSequence(db: Kysely<Database>) {
  return sql<{ sequence: string | null }>`
    select max(sequence)::text as sequence from catalogue_changes`.compile(db);
}

/**
 * The statement of the runs with outbox rows past `sequence` less `margin` positions, oldest
 * first, compiled for the connection that listens for changes to run itself. Positions are
 * taken as rows are written, and runs of different shops commit in any order: a run committed
 * late may sit a little before the last position heard, which the margin covers.
 */
export function runsSince(db: Kysely<Database>, sequence: string, margin: number) {
  return sql<{ run_id: string }>`
    select run_id from catalogue_changes
     where sequence > ${sequence}::bigint - ${margin}
     group by run_id
     order by min(sequence)`.compile(db);
}

/**
 * One outbox row of a run, with its product's category and its cheapest offer now
 * (subscriptions filter by them).
 */
export type ProductChangeRow = Omit<Selectable<CatalogueChangesTable>, 'sequence' | 'run_id'> & {
  /** The row's outbox position (a bigint, as text). */
  sequence: string;
  category_id: number;
  /** The product's cheapest available offer in the market as the row is read; null: none. */
  best_offer_id: number | null;
};

/** Every outbox row of a run, in the order written. */
export async function findRunProductChanges(
  db: Kysely<Database>,
  runId: string,
): Promise<ProductChangeRow[]> {
  const { rows } = await sql<ProductChangeRow>`
    select c.sequence::text as sequence, c.product_id, p.category_id, c.market,
           c.old_lowest_price, c.new_lowest_price, c.old_offer_count, c.new_offer_count,
           c.added_offer_ids, c.updated_offer_ids, c.withdrawn_offer_ids, c.changed_at,
           (select o.id from available_offers o
             where o.product_id = c.product_id and o.market = c.market
             order by o.price, o.id limit 1) as best_offer_id
      from catalogue_changes c join products p on p.id = c.product_id
     where c.run_id = ${runId}
     order by c.sequence`.execute(db);
  return rows;
}

/**
 * Deletes outbox rows older than `days`: a process away longer than that has nothing to
 * catch up with (its subscribers' streams were closed with it). Answers how many went.
 */
export async function pruneCatalogueChanges(db: Kysely<Database>, days: number): Promise<number> {
  const result = await sql`
    delete from catalogue_changes
     where changed_at < now() - make_interval(days => ${days}::integer)`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/** The ids of every category in the subtrees of `categoryIds`, those included. */
export async function findSubtreeIds(
  db: Kysely<Database>,
  categoryIds: readonly number[],
): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    select distinct id from ${subtreeOf(categoryIds)} as tree`.execute(db);
  return rows.map((row) => row.id);
}
