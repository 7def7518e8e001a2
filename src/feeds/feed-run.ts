/**
 * A full feed as one run: its bytes read row by row (./read-feed.ts), its checked rows
 * applied to the shop's offers in one transaction (./apply-run.ts), and the run's report
 * (docs/api.md, "Feeds"). A feed broken as a whole, or with more than the allowed share of
 * its rows rejected, changes nothing: the transaction is rolled back and the run rejected.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { findShopMarket } from '../db/repositories/shops.ts';
import type { Database } from '../db/types.ts';
import { applyFeedRun, UnknownShopError, type FeedRunCounts } from './apply-run.ts';
import type { FeedItem, RejectedRow } from './feed-item.ts';
import type { FeedFormat } from './feed-record.ts';
import { FeedRejected } from './feed-rejected.ts';
import { readFeed } from './read-feed.ts';
import { isRejectedRow } from './row-checks.ts';

/** The rejected rows a report lists; the count stays exact beyond them. */
const MAX_REPORTED_REJECTIONS = 1000;

export type FeedRunState = 'applied' | 'rejected' | 'failed';

export interface FeedRunReport {
  runId: string;
  shopId: number;
  kind: 'full';
  format: FeedFormat;
  state: FeedRunState;
  receivedAt: string;
  startedAt: string;
  finishedAt: string;
  reason: string | null;
  counts: FeedRunCounts;
  rejectedRows: RejectedRow[];
  ignoredColumns: readonly string[];
}

export interface FullFeed {
  shopId: number;
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  format: FeedFormat;
  gzip: boolean;
  /** When the feed arrived (its upload began); default: now. */
  receivedAt?: Date;
  /** The share of rows (0 to 1) that may be rejected before the whole run is. */
  maxRejectedShare: number;
}

/** More rows rejected than a run may have: a broken export must not wipe a shop's offers. */
class TooManyRejected extends Error {}

const EMPTY_COUNTS: FeedRunCounts = {
  rows: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  withdrawn: 0,
  rejected: 0,
  unmatched: 0,
};

export async function runFullFeed(db: Kysely<Database>, feed: FullFeed): Promise<FeedRunReport> {
  const runId = randomUUID();
  const receivedAt = (feed.receivedAt ?? new Date()).toISOString();
  const startedAt = new Date().toISOString();
  const shop = await findShopMarket(db, feed.shopId);
  if (shop === undefined) throw new UnknownShopError(feed.shopId);
  const reading = readFeed({
    body: feed.body,
    format: feed.format,
    gzip: feed.gzip,
    market: { currency: shop.currency, country: shop.market.toUpperCase() },
  });
  const rejectedRows: RejectedRow[] = [];
  let rows = 0;
  let rejected = 0;
  async function* acceptedItems(): AsyncGenerator<FeedItem> {
    for await (const row of reading.rows) {
      rows++;
      if (!isRejectedRow(row)) {
        yield row;
        continue;
      }
      rejected++;
      if (rejectedRows.length < MAX_REPORTED_REJECTIONS) rejectedRows.push(row);
    }
    if (rows > 0 && rejected / rows > feed.maxRejectedShare) {
      throw new TooManyRejected(
        `${rejected} of ${rows} rows rejected, more than ${Math.round(feed.maxRejectedShare * 100)} %: nothing applied`,
      );
    }
  }
  const report = (state: FeedRunState, reason: string | null, counts: FeedRunCounts) => ({
    runId,
    shopId: feed.shopId,
    kind: 'full' as const,
    format: feed.format,
    state,
    receivedAt,
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
    ignoredColumns: reading.ignoredColumns,
  });
  try {
    const applied = await applyFeedRun(db, {
      runId,
      shopId: feed.shopId,
      kind: 'full',
      items: acceptedItems(),
    });
    return report('applied', null, applied.counts);
  } catch (error) {
    if (error instanceof FeedRejected || error instanceof TooManyRejected) {
      return report('rejected', error.message, EMPTY_COUNTS);
    }
    throw error;
  }
}
