/**
 * The feed benchmark's parts on one catalogue database (a Postgres server): which shops each
 * part uses, the feeds written to a temporary directory (removed afterwards), and the
 * results the report turns into a table. bench/feeds.ts runs it on the bench scale;
 * test/bench/feeds-bench.test.ts runs it at its quick sizes on the tests' catalogue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { loadConfig } from '../../src/config.ts';
import type { PartContext } from './context.ts';
import { writeLargeFeed } from './feed-files.ts';
import { measureFullFeed, type FullFeedResult } from './full-feed.ts';
import { measureManyShops, type ManyShopsResult } from './many-shops.ts';
import { runFeedCommand, type CommandRun } from './memory.ts';
import { runFullFeedSubmitter, type Submitter } from './submit.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.ts';

export const FEED_BENCH_PARTS = ['full', 'many', 'memory'] as const;
export type FeedBenchPart = (typeof FEED_BENCH_PARTS)[number];

export interface FeedBenchSizes {
  /** Rows of the one shop's full feed. */
  fullFeedRows: number;
  /** Share of its rows whose price moves. */
  changedShare: number;
  rounds: number;
  /** Offer changes across many shops. */
  manyChanges: number;
  concurrency: number;
  /** Bytes of the large feed whose command's memory is sampled. */
  largeFeedBytes: number;
}

export const FULL_SIZES: FeedBenchSizes = {
  fullFeedRows: 100_000,
  changedShare: 0.1,
  rounds: 3,
  manyChanges: 1_000_000,
  concurrency: 4,
  largeFeedBytes: 500 * 2 ** 20,
};

/** A smoke test's sizes: every part runs, in seconds. */
export const QUICK_SIZES: FeedBenchSizes = {
  fullFeedRows: 200,
  changedShare: 0.1,
  rounds: 1,
  manyChanges: 2_000,
  concurrency: 4,
  largeFeedBytes: 2 * 2 ** 20,
};

export interface LargeFeedResult extends CommandRun {
  shopId: number;
  bytes: number;
  rows: number;
  products: number;
}

export interface FeedBenchResults {
  full?: FullFeedResult;
  many?: ManyShopsResult;
  memory?: LargeFeedResult;
}

export interface FeedBenchOptions {
  databaseUrl: string;
  sizes: FeedBenchSizes;
  parts?: readonly FeedBenchPart[];
  log?: (line: string) => void;
  /** How feeds are submitted (default: runFullFeed reading the file, as the CLI does). */
  submitter?: (db: Kysely<Database>) => Submitter;
}

/**
 * The shops the parts use, in the market with the most products (Sweden on the seeds): for
 * the full feed, the one listing the most offers up to the rows asked for (else the one
 * listing the fewest); for the large feed, the one listing the fewest of the others.
 */
async function pickShops(
  client: pg.ClientBase,
  rows: number,
): Promise<{ full: number; large: number }> {
  const { rows: shops } = await client.query<{ shop_id: number; offers: number }>(
    `select s.id as shop_id, count(o.id)::integer as offers
       from shops s left join offers o on o.shop_id = s.id and o.withdrawn_at is null
      where s.market = (select market from product_market_summaries
                         group by market order by count(*) desc limit 1)
      group by s.id order by count(o.id) desc, s.id`,
  );
  const full = (shops.find((shop) => shop.offers <= rows) ?? shops.at(-1)!).shop_id;
  const large = shops.filter((shop) => shop.shop_id !== full).at(-1)!.shop_id;
  return { full, large };
}

export async function runFeedBench(options: FeedBenchOptions): Promise<FeedBenchResults> {
  const { sizes, databaseUrl } = options;
  const parts = options.parts ?? FEED_BENCH_PARTS;
  const log = options.log ?? (() => undefined);
  const database = await openDatabase({ url: databaseUrl, poolSize: sizes.concurrency + 2 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const directory = await mkdtemp(path.join(os.tmpdir(), 'bench-feeds-'));
  const maxRejectedShare = loadConfig({ DATABASE_URL: databaseUrl }).feedMaxRejectedShare;
  const submitter =
    options.submitter?.(database.db) ?? runFullFeedSubmitter(database.db, maxRejectedShare);
  const context: PartContext = { client, pool: database.pool, submitter, directory, log };
  const results: FeedBenchResults = {};
  try {
    const shops = await pickShops(client, sizes.fullFeedRows);
    if (parts.includes('full')) {
      const { fullFeedRows: rows, changedShare, rounds } = sizes;
      results.full = await measureFullFeed(context, {
        shopId: shops.full,
        rows,
        changedShare,
        rounds,
      });
    }
    if (parts.includes('many')) {
      const { manyChanges: changes, concurrency } = sizes;
      const exclude = [shops.full, shops.large];
      results.many = await measureManyShops(context, { changes, concurrency, exclude });
    }
    if (parts.includes('memory')) {
      results.memory = await measureLargeFeed(
        context,
        databaseUrl,
        shops.large,
        sizes.largeFeedBytes,
      );
    }
    return results;
  } finally {
    await rm(directory, { recursive: true, force: true });
    await client.end();
    await database.close();
  }
}

async function measureLargeFeed(
  { client, directory, log }: PartContext,
  databaseUrl: string,
  shopId: number,
  bytes: number,
): Promise<LargeFeedResult> {
  const file = path.join(directory, `large-${shopId}.tsv`);
  const feed = await writeLargeFeed(client, shopId, bytes, file);
  // The shop starts with nothing listed, so the feed is its first: every row creates (or
  // lists again) an offer, whatever earlier runs of the bench left. Its products' summaries
  // follow in the run, which covers every product of the market.
  await client.query(
    'update offers set withdrawn_at = now(), updated_at = now() where shop_id = $1 and withdrawn_at is null',
    [shopId],
  );
  log(
    `large feed: ${(feed.bytes / 2 ** 20).toFixed(0)} MB, ${feed.rows} rows over ` +
      `${feed.products} products, for shop ${shopId}; running npm run feed's command`,
  );
  const run = await runFeedCommand(databaseUrl, shopId, file);
  await rm(file);
  log(
    `large feed: applied in ${run.seconds.toFixed(1)} s, peak resident set ` +
      `${(run.peakResidentBytes / 2 ** 20).toFixed(0)} MB`,
  );
  return { ...run, shopId, bytes: feed.bytes, rows: feed.rows, products: feed.products };
}
