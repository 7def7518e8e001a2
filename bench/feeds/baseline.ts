/**
 * The baseline a feed run is held against (performance.md: ≥ 0.5 × its rate): the same rows
 * loaded the plainest fast way Postgres offers, a COPY into a temporary table, then one
 * set-based UPDATE of the shop's offers that differ, on the same table with the same indexes.
 * It skips what a run adds (parsing and checking the feed's text, matching products, today's
 * history point, summaries, outbox), so it is the ceiling of the run's own write.
 *
 * The rows are the feed's own, already in the offers' terms: read from the same file by the
 * same code a run uses (readFeed, feedOfferValues) before the clock starts. The transaction
 * is rolled back, so the feed run measured next finds the offers as they were.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import pgCopyStreams from 'pg-copy-streams';
import type pg from 'pg';
import { FEED_OFFER_COLUMNS } from '../../src/db/repositories/feed-staging.ts';
import { feedOfferValues } from '../../src/feeds/feed-offer.ts';
import type { FeedMarket } from '../../src/feeds/feed-record.ts';
import { readFeed } from '../../src/feeds/read-feed.ts';
import { isRejectedRow } from '../../src/feeds/row-checks.ts';

const { from: copyFrom } = pgCopyStreams;

const COLUMNS = ['item_id', ...FEED_OFFER_COLUMNS] as const;

export interface BaselineTiming {
  rows: number;
  /** Offers the UPDATE changed (the feed's `updated`, when both see the same offers). */
  updated: number;
  copySeconds: number;
  analyzeSeconds: number;
  updateSeconds: number;
  seconds: number;
}

/** A value in COPY's text format. */
function copyText(value: unknown): string {
  if (value === null || value === undefined) return '\\N';
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value).replace(
    /[\\\t\n\r]/g,
    (c) => ({ '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c] ?? '\\\\',
  );
}

/** Writes the feed's rows as COPY text of the offers' columns; returns how many. */
export async function writeBaselineRows(
  feedFile: string,
  market: FeedMarket,
  outFile: string,
): Promise<number> {
  const now = new Date();
  const out = createWriteStream(outFile);
  const reading = readFeed({
    body: createReadStream(feedFile),
    format: 'tsv',
    gzip: false,
    market,
  });
  let rows = 0;
  for await (const row of reading.rows) {
    if (isRejectedRow(row)) continue;
    const values: Record<string, unknown> = { item_id: row.itemId, ...feedOfferValues(row, now) };
    if (!out.write(`${COLUMNS.map((column) => copyText(values[column])).join('\t')}\n`)) {
      await once(out, 'drain');
    }
    rows++;
  }
  out.end();
  await once(out, 'finish');
  return rows;
}

const seconds = (from: number) => (performance.now() - from) / 1000;

/** COPY + ANALYZE + UPDATE of `rowsFile` against the shop's offers, timed, rolled back. */
export async function runBaseline(
  pool: pg.Pool,
  shopId: number,
  rowsFile: string,
): Promise<BaselineTiming> {
  const client = await pool.connect();
  const list = (alias: string) => FEED_OFFER_COLUMNS.map((c) => `${alias}.${c}`).join(', ');
  try {
    await client.query('begin');
    await client.query(
      `create temporary table baseline_rows on commit drop as
       select ${COLUMNS.join(', ')} from offers with no data`,
    );
    const started = performance.now();
    const copy = client.query(copyFrom(`copy baseline_rows (${COLUMNS.join(', ')}) from stdin`));
    await pipeline(createReadStream(rowsFile), copy);
    const copySeconds = seconds(started);
    const analyzed = performance.now();
    await client.query('analyze baseline_rows');
    const analyzeSeconds = seconds(analyzed);
    const updating = performance.now();
    const update = await client.query(
      `update offers o
          set (${FEED_OFFER_COLUMNS.join(', ')}, updated_at) = (${list('b')}, now())
         from baseline_rows b
        where o.shop_id = $1 and o.item_id = b.item_id
          and (${list('o')}) is distinct from (${list('b')})`,
      [shopId],
    );
    const updateSeconds = seconds(updating);
    return {
      rows: copy.rowCount,
      updated: update.rowCount ?? 0,
      copySeconds,
      analyzeSeconds,
      updateSeconds,
      seconds: seconds(started),
    };
  } finally {
    await client.query('rollback').catch(() => undefined);
    client.release();
  }
}
