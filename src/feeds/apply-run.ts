/**
 * Applies one feed run to the catalogue (docs/api.md, "Feeds"), in one transaction: the shop's
 * offers created, updated and withdrawn, rows no product matched kept, and what derives from
 * offers (today's price-history point, the market summaries, the outbox) for the products
 * whose offers changed. Readers see the shop's offers as before the run or after it.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { announceRun } from '../changes/catalogue-changes.ts';
import {
  findOfferChanges,
  writeOfferChanges,
  type RunShop,
  type Withdrawal,
} from '../db/repositories/feed-offers.ts';
import {
  followOfferChanges,
  recordProductsBefore,
  type FollowedChanges,
} from '../db/repositories/feed-derived.ts';
import {
  createStagedItems,
  keepUnmatchedItems,
  matchStagedItems,
  setAsideDuplicateRows,
  stageItems,
  type DuplicateRow,
  type StagedItem,
  type StagedRejectedId,
} from '../db/repositories/feed-staging.ts';
import { lockMarketDerivedData, lockShopForRun } from '../db/repositories/feed-run-locks.ts';
import { findShopMarket } from '../db/repositories/shops.ts';
import type { Database } from '../db/types.ts';
import { MARKET_CODES, type MarketCode } from '../markets.ts';
import { MAX_REPORTED_REJECTIONS, type FeedItem, type RejectedRow } from './feed-item.ts';
import { feedOfferValues } from './feed-offer.ts';
import { isRejectedRow } from './row-checks.ts';

export type FeedRunKind = 'full' | 'push';

export interface FeedRun {
  runId: string;
  shopId: number;
  /** `full`: the feed is the shop's whole offer; `push`: these items only. */
  kind: FeedRunKind;
  /**
   * The run's checked rows in feed order; rejected ones too, whose ids make later rows with
   * them duplicates.
   */
  items: AsyncIterable<FeedItem | RejectedRow> | Iterable<FeedItem | RejectedRow>;
  /**
   * Told of the rows with an earlier row's id (the first MAX_REPORTED_REJECTIONS, and how many)
   * once every row is staged, before anything is written; throwing rejects the run.
   */
  onDuplicates?(duplicates: { rows: DuplicateRow[]; count: number }): void;
  /** A push's items to withdraw. */
  withdrawItemIds?: readonly string[];
  /** The moment the run applies at: which sales are on, and the day of the history point. */
  now?: Date;
}

/** The run's counts (docs/api.md, "Feeds"): `rejected` is the reader's, added by its caller. */
export interface FeedRunCounts {
  /** Rows given to the run (the caller adds its rejected rows). */
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  withdrawn: number;
  rejected: number;
  unmatched: number;
}

export interface AppliedFeedRun extends FollowedChanges {
  counts: FeedRunCounts;
  /** The shop's market: where the changed products' answers changed. */
  market: MarketCode;
}

export class UnknownShopError extends Error {
  constructor(readonly shopId: number) {
    super(`shop ${shopId} does not exist`);
    this.name = 'UnknownShopError';
  }
}

export async function applyFeedRun(db: Kysely<Database>, run: FeedRun): Promise<AppliedFeedRun> {
  return db.transaction().execute((trx) => applyFeedRunIn(trx, run));
}

/** The run within a transaction of the caller's, which may write more before it commits. */
export async function applyFeedRunIn(
  trx: Transaction<Database>,
  run: FeedRun,
): Promise<AppliedFeedRun> {
  const now = run.now ?? new Date();
  // A large run's statements may take longer than a request's bound. Its hash joins of the
  // staged rows with the shop's offers spill to disk under the default 4 MB (a 100,000-row
  // feed's are about 20 MB), and the staged rows' statistics need no more than a small
  // sample: row counts and the share of null products are what the plans turn on.
  await sql`set local statement_timeout = 0`.execute(trx);
  await sql`set local work_mem = '64MB'`.execute(trx);
  await sql`set local default_statistics_target = 10`.execute(trx);
  await lockShopForRun(trx, run.shopId);
  const shop = await findRunShop(trx, run.shopId);
  await createStagedItems(trx);
  const staged = await stageAll(trx, run.items, now);
  const duplicates = await setAsideDuplicateRows(trx, MAX_REPORTED_REJECTIONS);
  run.onDuplicates?.(duplicates);
  const rows = staged - duplicates.count;
  const unmatched = await matchStagedItems(trx, rows);
  await keepUnmatchedItems(trx, {
    runId: run.runId,
    shopId: shop.shopId,
    currency: shop.currency,
    now,
  });
  const withdrawal: Withdrawal =
    run.kind === 'full'
      ? { kind: 'missing from the feed' }
      : { kind: 'named', itemIds: run.withdrawItemIds ?? [] };
  const changes = await findOfferChanges(trx, shop, withdrawal);
  let followed: FollowedChanges = { changedProductIds: [], summarisedProductIds: [] };
  if (changes.created + changes.updated + changes.withdrawn > 0) {
    // The shop's own offers first, beside other shops' runs of the market; then, one run at a
    // time per market, what derives from every shop's offers.
    await writeOfferChanges(trx, shop, changes, now);
    await lockMarketDerivedData(trx, MARKET_CODES.indexOf(shop.market));
    await recordProductsBefore(trx, shop.market);
    followed = await followOfferChanges(trx, { runId: run.runId, market: shop.market, now });
    // Heard by every process once this commits: cached answers follow (docs/api.md, "Feeds").
    await announceRun(trx, run.runId);
  }
  const matched = rows - unmatched;
  return {
    counts: {
      rows,
      ...changes,
      unchanged: matched - changes.created - changes.updated,
      rejected: 0,
      unmatched,
    },
    market: shop.market,
    ...followed,
  };
}

async function findRunShop(trx: Transaction<Database>, shopId: number): Promise<RunShop> {
  const shop = await findShopMarket(trx, shopId);
  if (shop === undefined) throw new UnknownShopError(shopId);
  return { shopId, market: shop.market as MarketCode, currency: shop.currency };
}

/** Stages the rows as they are read; returns how many were accepted. */
async function stageAll(
  trx: Transaction<Database>,
  items: FeedRun['items'],
  now: Date,
): Promise<number> {
  async function* staged(): AsyncGenerator<StagedItem | StagedRejectedId> {
    for await (const item of items) {
      if (!isRejectedRow(item)) yield stagedItem(item, now);
      else if (item.itemId !== null)
        yield { line: item.line, item_id: item.itemId, accepted: false };
    }
  }
  return stageItems(trx, staged());
}

function stagedItem(item: FeedItem, now: Date): StagedItem {
  return {
    line: item.line,
    item_id: item.itemId,
    accepted: true,
    ...feedOfferValues(item, now),
    gtin: item.gtin,
    brand: item.brand,
    mpn: item.mpn,
  };
}
