/**
 * A run, from its body to its report (docs/api.md, "Feeds"): the body read row by row
 * (./read-feed.ts), its checked rows applied to the shop's offers in one transaction
 * (./apply-run.ts), and the report. A feed broken as a whole, or with more than the allowed
 * share of its rows rejected, changes nothing: the transaction is rolled back and the run
 * rejected. A full feed from a file (the `feed` command) and a queued run (./run-worker.ts)
 * both come through here.
 */
import { randomUUID } from 'node:crypto';
import { setImmediate } from 'node:timers/promises';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DuplicateRow } from '../db/repositories/feed-staging.ts';
import { findShopMarket } from '../db/repositories/shops.ts';
import type { Database } from '../db/types.ts';
import {
  applyFeedRunIn,
  UnknownShopError,
  type AppliedFeedRun,
  type FeedRunCounts,
  type FeedRunKind,
} from './apply-run.ts';
import { MAX_REPORTED_REJECTIONS, type FeedItem, type RejectedRow } from './feed-item.ts';
import type { FeedFormat, RunFormat } from './feed-record.ts';
import { FeedRejected } from './feed-rejected.ts';
import { readFeed } from './read-feed.ts';
import { isRejectedRow } from './row-checks.ts';

/**
 * Rows read between turns of the event loop. A stored body comes in chunks of about 1 MB whose
 * rows need nothing else to be read: without turns, the requests a gateway serves beside its
 * runs would wait for each chunk's 5,000 rows.
 */
const YIELD_EVERY_ROWS = 500;

/** How a run ended; before that it is `queued`, then `running`. */
export type FinishedRunState = 'applied' | 'rejected' | 'failed';

export interface FeedRunReport {
  runId: string;
  shopId: number;
  kind: FeedRunKind;
  format: RunFormat;
  state: FinishedRunState | 'queued' | 'running';
  receivedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  reason: string | null;
  counts: FeedRunCounts;
  rejectedRows: RejectedRow[];
  ignoredColumns: readonly string[];
}

type Bytes = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface RunInput {
  runId: string;
  shopId: number;
  kind: FeedRunKind;
  format: RunFormat;
  gzip: boolean;
  receivedAt: string;
  /** The body, read within the run's transaction (a stored body is read through it). */
  body(trx: Transaction<Database>): Bytes;
  /** A push's items to withdraw. */
  withdrawItemIds?: readonly string[];
  /** The share of rows (0 to 1) that may be rejected before the whole run is. */
  maxRejectedShare: number;
  /** Written in the run's own transaction once it has applied, so both commit or neither. */
  recordApplied?(trx: Transaction<Database>, report: FeedRunReport): Promise<void>;
  /** Told of the applied run after its commit. */
  onApplied?(applied: AppliedFeedRun): void;
}

export interface FullFeed {
  shopId: number;
  body: Bytes;
  format: FeedFormat;
  gzip: boolean;
  /** When the feed arrived (its upload began); default: now. */
  receivedAt?: Date;
  maxRejectedShare: number;
}

/** More rows rejected than a run may have: a broken export must not wipe a shop's offers. */
class TooManyRejected extends Error {}

export const EMPTY_COUNTS: FeedRunCounts = {
  rows: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  withdrawn: 0,
  rejected: 0,
  unmatched: 0,
};

/** A full feed from bytes at hand (a file): a run of its own, not queued. */
export function runFullFeed(db: Kysely<Database>, feed: FullFeed): Promise<FeedRunReport> {
  return runFeed(db, {
    runId: randomUUID(),
    shopId: feed.shopId,
    kind: 'full',
    format: feed.format,
    gzip: feed.gzip,
    receivedAt: (feed.receivedAt ?? new Date()).toISOString(),
    body: () => feed.body,
    maxRejectedShare: feed.maxRejectedShare,
  });
}

export async function runFeed(db: Kysely<Database>, input: RunInput): Promise<FeedRunReport> {
  const startedAt = new Date().toISOString();
  const rejectedRows: RejectedRow[] = [];
  let rows = 0;
  let rejected = 0;
  let ignoredColumns: readonly string[] = [];
  const report = (state: FinishedRunState, reason: string | null, counts: FeedRunCounts) => ({
    runId: input.runId,
    shopId: input.shopId,
    kind: input.kind,
    format: input.format,
    state,
    receivedAt: input.receivedAt,
    startedAt,
    finishedAt: new Date().toISOString(),
    reason,
    // In the order the report documents.
    counts: {
      rows,
      created: counts.created,
      updated: counts.updated,
      unchanged: counts.unchanged,
      withdrawn: counts.withdrawn,
      rejected,
      unmatched: counts.unmatched,
    },
    rejectedRows,
    ignoredColumns,
  });
  try {
    const { applied, appliedReport } = await db.transaction().execute(async (trx) => {
      // A run waits as long as it must (on its shop's lock, say): no statement bound applies.
      await sql`set local statement_timeout = 0`.execute(trx);
      const shop = await findShopMarket(trx, input.shopId);
      if (shop === undefined) throw new UnknownShopError(input.shopId);
      const reading = readFeed({
        body: input.body(trx),
        format: input.format,
        gzip: input.gzip,
        market: { currency: shop.currency, country: shop.market.toUpperCase() },
      });
      async function* countedRows(): AsyncGenerator<FeedItem | RejectedRow> {
        for await (const row of reading.rows) {
          rows++;
          if (rows % YIELD_EVERY_ROWS === 0) await setImmediate();
          if (isRejectedRow(row)) {
            rejected++;
            if (rejectedRows.length < MAX_REPORTED_REJECTIONS) rejectedRows.push(row);
          }
          yield row;
        }
        ignoredColumns = reading.ignoredColumns;
      }
      const applied = await applyFeedRunIn(trx, {
        runId: input.runId,
        shopId: input.shopId,
        kind: input.kind,
        items: countedRows(),
        ...(input.withdrawItemIds ? { withdrawItemIds: input.withdrawItemIds } : {}),
        onDuplicates: (duplicates) => {
          rejected += duplicates.count;
          addDuplicates(rejectedRows, duplicates.rows);
          if (rows > 0 && rejected / rows > input.maxRejectedShare) {
            throw new TooManyRejected(
              `${rejected} of ${rows} rows rejected, more than ${Math.round(input.maxRejectedShare * 100)} %: nothing applied`,
            );
          }
        },
      });
      const appliedReport = report('applied', null, applied.counts);
      await input.recordApplied?.(trx, appliedReport);
      return { applied, appliedReport };
    });
    input.onApplied?.(applied);
    return appliedReport;
  } catch (error) {
    if (error instanceof FeedRejected || error instanceof TooManyRejected) {
      return report('rejected', error.message, EMPTY_COUNTS);
    }
    throw error;
  }
}

/** The rows rejected as duplicates among the others, in feed order, the first so many kept. */
function addDuplicates(rejectedRows: RejectedRow[], duplicates: readonly DuplicateRow[]): void {
  if (duplicates.length === 0) return;
  const merged = [
    ...rejectedRows,
    ...duplicates.map((row) => ({
      line: row.line,
      itemId: row.itemId,
      field: 'id',
      reason: `a duplicate of the item on line ${row.firstLine}`,
    })),
  ].sort((a, b) => a.line - b.line);
  rejectedRows.splice(0, rejectedRows.length, ...merged.slice(0, MAX_REPORTED_REJECTIONS));
}
