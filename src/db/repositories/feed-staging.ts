/**
 * A feed run's rows in a temporary table of the run's transaction, so that matching them and
 * comparing them with the shop's offers are a few set-based statements whatever the feed's
 * size. Filled by a COPY per batch as the feed is read; dropped when the transaction ends.
 */
import { sql, type Transaction } from 'kysely';
import { copyLine } from '../../../seeds/load/copy-text.ts';
import { copyIn } from '../copy-in.ts';
import type { Database, ProductCondition, StockStatus } from '../types.ts';

export const STAGED_ITEMS = 'feed_run_items';

/** An offer's columns as a feed row sets them; the row's identity and matching fields aside. */
export interface FeedOfferValues {
  offer_name: string;
  url: string;
  condition: ProductCondition;
  stock_status: StockStatus;
  purchasable: boolean;
  price: number;
  price_including_shipping: number | null;
  sales_price: number | null;
  sales_price_start: string | null;
  sales_price_end: string | null;
  original_price: number | null;
  /** Always null: a feed says when the sale began, not since when the price before it held. */
  original_price_start: null;
  original_price_end: string | null;
}

/** Those columns by name, as the offers table orders them. */
export const FEED_OFFER_COLUMNS = [
  'offer_name',
  'url',
  'condition',
  'stock_status',
  'purchasable',
  'price',
  'price_including_shipping',
  'sales_price',
  'sales_price_start',
  'sales_price_end',
  'original_price',
  'original_price_start',
  'original_price_end',
] as const satisfies readonly (keyof FeedOfferValues)[];

/** A feed row as staged: the offer's columns, and what matching reads. */
export interface StagedItem extends FeedOfferValues {
  line: number;
  item_id: string;
  gtin: string | null;
  brand: string | null;
  mpn: string | null;
}

/** Column and type, in the order the COPY sends them. */
const STAGED_COLUMNS: readonly (readonly [keyof StagedItem, string])[] = [
  ['line', 'integer'],
  ['item_id', 'text'],
  ['offer_name', 'text'],
  ['url', 'text'],
  ['condition', 'text'],
  ['stock_status', 'text'],
  ['purchasable', 'boolean'],
  ['price', 'numeric(12, 2)'],
  ['price_including_shipping', 'numeric(12, 2)'],
  ['sales_price', 'numeric(12, 2)'],
  ['sales_price_start', 'timestamptz'],
  ['sales_price_end', 'timestamptz'],
  ['original_price', 'numeric(12, 2)'],
  ['original_price_start', 'timestamptz'],
  ['original_price_end', 'timestamptz'],
  ['gtin', 'text'],
  ['brand', 'text'],
  ['mpn', 'text'],
];

/** Rows per COPY: about a megabyte of text, so that statements are few and memory flat. */
const STAGING_BATCH_ROWS = 5_000;

/**
 * Creates the run's table. An item id twice in one run is refused by its key: the formats
 * reject a duplicate row before it gets here.
 */
export async function createStagedItems(trx: Transaction<Database>): Promise<void> {
  const columns = STAGED_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ');
  await sql
    .raw(
      `create temporary table ${STAGED_ITEMS} (${columns}, product_id integer,
         primary key (item_id)) on commit drop`,
    )
    .execute(trx);
}

/**
 * Stages the rows a batch at a time, each batch one COPY (src/db/copy-in.ts). Returns how
 * many rows there were.
 */
export async function stageItems(
  trx: Transaction<Database>,
  items: AsyncIterable<StagedItem>,
): Promise<number> {
  const columns = STAGED_COLUMNS.map(([name]) => name);
  let rows = 0;
  let lines: string[] = [];
  for await (const item of items) {
    lines.push(copyLine(STAGED_COLUMNS.map(([name]) => item[name])));
    rows++;
    if (lines.length === STAGING_BATCH_ROWS) {
      await copyIn(trx, STAGED_ITEMS, columns, lines.join(''));
      lines = [];
    }
  }
  if (lines.length > 0) await copyIn(trx, STAGED_ITEMS, columns, lines.join(''));
  return rows;
}

/**
 * Sets each staged row's product: by GTIN (feeds send the GTIN-14 form; the catalogue keeps
 * 8 to 14 digits, compared zero-padded), else by brand name (any case) and part number.
 * Returns how many rows matched nothing.
 */
export async function matchStagedItems(trx: Transaction<Database>): Promise<number> {
  // The planner needs the staged rows' size to pick index lookups or a hash join.
  await sql.raw(`analyze ${STAGED_ITEMS}`).execute(trx);
  await sql`update ${sql.table(STAGED_ITEMS)} s
               set product_id = g.product_id
              from gtins g
             where lpad(g.gtin, 14, '0') = s.gtin`.execute(trx);
  // The rows left are few, but the statistics (taken before the GTINs matched) say all: as
  // a join the planner sorted every product; a lateral lookup takes each row's product from
  // the unique index on brand and part number.
  await sql`update ${sql.table(STAGED_ITEMS)} s
               set product_id = m.product_id
              from (select u.item_id, p.id as product_id
                      from ${sql.table(STAGED_ITEMS)} u
                      join brands b on lower(b.name) = lower(u.brand)
                     cross join lateral (
                       select p.id from products p
                        where p.brand_id = b.id and p.mpn is not null
                          and upper(p.mpn) = upper(u.mpn)
                        -- At most one (the index is unique); the limit keeps the planner from
                        -- turning the lookup back into a join.
                        limit 1) as p
                     where u.product_id is null and u.mpn is not null) as m
             where s.item_id = m.item_id`.execute(trx);
  // Again, now that rows have products: with the first statistics (no row matched) the
  // planner took the withdrawal's anti join as a nested loop, the shop's offers times the
  // feed's rows (49 of 53 s for 55,000 rows; a hash anti join takes 0.2 s).
  await sql.raw(`analyze ${STAGED_ITEMS}`).execute(trx);
  const { rows } = await sql<{ unmatched: number }>`
    select count(*)::integer as unmatched from ${sql.table(STAGED_ITEMS)}
     where product_id is null`.execute(trx);
  return rows[0]?.unmatched ?? 0;
}

/**
 * Keeps the shop's unmatched rows for a catalogue team: each as last seen, rewritten only when
 * something about it changed (the same feed again writes nothing); a row that matches now is
 * no longer kept.
 */
export async function keepUnmatchedItems(
  trx: Transaction<Database>,
  run: { runId: string; shopId: number; currency: string; now: Date },
): Promise<void> {
  const today = run.now.toISOString().slice(0, 10);
  await sql`
    insert into unmatched_feed_items as u (shop_id, item_id, title, gtin, brand, mpn, price,
      currency, link, first_seen_at, last_seen_on, last_run_id)
    select ${run.shopId}, item_id, offer_name, gtin, brand, mpn, price, ${run.currency}, url,
           ${run.now.toISOString()}::timestamptz, ${today}::date, ${run.runId}
      from ${sql.table(STAGED_ITEMS)} where product_id is null
    on conflict (shop_id, item_id) do update
       set title = excluded.title, gtin = excluded.gtin, brand = excluded.brand,
           mpn = excluded.mpn, price = excluded.price, currency = excluded.currency,
           link = excluded.link, last_seen_on = excluded.last_seen_on,
           last_run_id = excluded.last_run_id
     where (u.title, u.gtin, u.brand, u.mpn, u.price, u.currency, u.link, u.last_seen_on)
           is distinct from (excluded.title, excluded.gtin, excluded.brand, excluded.mpn,
                             excluded.price, excluded.currency, excluded.link,
                             excluded.last_seen_on)`.execute(trx);
  await sql`
    delete from unmatched_feed_items u
     using ${sql.table(STAGED_ITEMS)} s
     where u.shop_id = ${run.shopId} and u.item_id = s.item_id
       and s.product_id is not null`.execute(trx);
}
