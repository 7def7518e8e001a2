/**
 * A feed run's rows in temporary tables of the run's transaction, so that matching them and
 * comparing them with the shop's offers are a few set-based statements whatever the feed's
 * size. Filled by a COPY per batch as the feed is read; dropped when the transaction ends.
 * A rejected row is staged by its id alone, for the duplicates that follow it.
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
  accepted: true;
  gtin: string | null;
  brand: string | null;
  mpn: string | null;
}

/**
 * A rejected row's id, staged only so that a later row with it is a duplicate (docs/api.md,
 * "Rejected rows": whatever became of the first).
 */
export interface StagedRejectedId {
  line: number;
  item_id: string;
  accepted: false;
}

/** A row the feed had an earlier row's id for: rejected, and not applied. */
export interface DuplicateRow {
  line: number;
  itemId: string;
  firstLine: number;
}

/** Column and type, in the order the COPY sends them. */
const STAGED_COLUMNS: readonly (readonly [keyof StagedItem, string])[] = [
  ['line', 'integer'],
  ['item_id', 'text'],
  ['accepted', 'boolean'],
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
 * Up to this many rows, each row's GTIN is looked up in the index; beyond, the catalogue's
 * GTINs are hashed once. The planner cannot choose: it takes padding every GTIN of the
 * catalogue for free, and hashes them all even for a push of ten rows.
 */
const GTIN_LOOKUP_MAX_ROWS = 10_000;

/** The rows as read, before matching; matching makes STAGED_ITEMS from them. */
const READ_ROWS = 'feed_run_rows';

/** Creates the table the read rows are copied into. */
export async function createStagedItems(trx: Transaction<Database>): Promise<void> {
  const columns = STAGED_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ');
  await sql.raw(`create temporary table ${READ_ROWS} (${columns}) on commit drop`).execute(trx);
}

/**
 * Stages the rows a batch at a time, each batch one COPY (src/db/copy-in.ts), the next batch
 * read while the server loads the last one. Returns how many accepted rows there were.
 */
export async function stageItems(
  trx: Transaction<Database>,
  items: AsyncIterable<StagedItem | StagedRejectedId>,
): Promise<number> {
  const columns = STAGED_COLUMNS.map(([name]) => name);
  let rows = 0;
  let lines: string[] = [];
  let loading: Promise<void> | undefined;
  const load = async () => {
    const text = lines.join('');
    lines = [];
    await loading;
    loading = copyIn(trx, READ_ROWS, columns, text);
    // Awaited before the next batch or at the end; until then a failure is not unhandled.
    loading.catch(() => undefined);
  };
  try {
    for await (const item of items) {
      const values: Partial<Omit<StagedItem, 'accepted'>> & { accepted: boolean } = item;
      lines.push(copyLine(STAGED_COLUMNS.map(([name]) => values[name] ?? null)));
      if (item.accepted) rows++;
      if (lines.length === STAGING_BATCH_ROWS) await load();
    }
    if (lines.length > 0) await load();
  } catch (error) {
    // The reading's error is the run's, whatever became of the COPY under way.
    await loading?.catch(() => undefined);
    throw error;
  }
  await loading;
  return rows;
}

/**
 * Sets aside each row whose id an earlier row of the feed has: returns the first `limit` of
 * those that were accepted, in feed order, and how many there were.
 */
export async function setAsideDuplicateRows(
  trx: Transaction<Database>,
  limit: number,
): Promise<{ rows: DuplicateRow[]; count: number }> {
  const { rows } = await sql<{ line: number; item_id: string; first_line: number; count: number }>`
    with firsts as (
      select item_id, min(line) as first_line from ${sql.table(READ_ROWS)}
       group by item_id having count(*) > 1),
    removed as (
      delete from ${sql.table(READ_ROWS)} r using firsts f
       where r.item_id = f.item_id and r.line > f.first_line
      returning r.line, r.item_id, r.accepted, f.first_line)
    select line, item_id, first_line, count(*) over ()::integer as count
      from removed where accepted order by line limit ${limit}`.execute(trx);
  return {
    rows: rows.map((row) => ({ line: row.line, itemId: row.item_id, firstLine: row.first_line })),
    count: rows[0]?.count ?? 0,
  };
}

/**
 * Gives each staged row its product, in one statement writing STAGED_ITEMS: by GTIN (feeds
 * send the GTIN-14 form; the catalogue keeps 8 to 14 digits, compared zero-padded, each
 * padded form once), else by brand name (any case) and part number. Returns how many rows
 * matched nothing.
 */
export async function matchStagedItems(trx: Transaction<Database>, rows: number): Promise<number> {
  // The limit keeps the planner from turning the lookup back into a join.
  const byGtin =
    rows <= GTIN_LOOKUP_MAX_ROWS
      ? sql`left join lateral (
              select g.product_id from gtins g where lpad(g.gtin, 14, '0') = r.gtin
               limit 1) as g on true`
      : sql`left join gtins g on lpad(g.gtin, 14, '0') = r.gtin`;
  // Few rows go unmatched by GTIN: each of those looks its part number up in the unique index
  // on brand and part number (coalesce evaluates the sub-select only then).
  await sql`
    create temporary table ${sql.table(STAGED_ITEMS)} on commit drop as
    select r.*, coalesce(g.product_id,
             case when r.mpn is not null and r.brand is not null then (
               select p.id from brands b
                 join products p on p.brand_id = b.id and p.mpn is not null
                                and upper(p.mpn) = upper(r.mpn)
                where lower(b.name) = lower(r.brand)
                order by p.id limit 1) end) as product_id
      from ${sql.table(READ_ROWS)} r ${byGtin}
     where r.accepted`.execute(trx);
  // The statements that follow join these rows to the shop's offers: the planner needs their
  // size and the share without a product (a nested loop where a hash join belongs cost 49 of
  // 53 s on a 55,000-row feed).
  await sql.raw(`analyze ${STAGED_ITEMS}`).execute(trx);
  const { rows: counted } = await sql<{ unmatched: number }>`
    select count(*)::integer as unmatched from ${sql.table(STAGED_ITEMS)}
     where product_id is null`.execute(trx);
  return counted[0]?.unmatched ?? 0;
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
