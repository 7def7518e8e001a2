/**
 * The feed benchmark's parts on one catalogue database (a Postgres server): which shops each
 * part uses, the feeds written to a temporary directory (removed afterwards), and the
 * results the report turns into a table. bench/feeds.ts runs it on the bench scale;
 * test/bench/feeds-bench.test.ts runs it at its quick sizes on the tests' catalogue.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { applyFeedRun } from '../../src/feeds/apply-run.ts';
import { loadConfig } from '../../src/config.ts';
import type { PartContext } from './context.ts';
import { writeLargeFeed } from './feed-files.ts';
import { measureFullFeed, type FullFeedResult } from './full-feed.ts';
import { measureManyShops, type ManyShopsResult } from './many-shops.ts';
import { runFeedCommand, type CommandRun } from './memory.ts';
import { httpSubmitter, runFullFeedSubmitter, type Submitter } from './submit.ts';
import { shopToken, withGateway } from './gateway.ts';
import { measurePushVisibility, type PushResult } from './push.ts';
import { ingestionShops, measureReadsDuringIngestion, type ReadsResult } from './reads.ts';
import type { RunningSystem } from '../systems.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.ts';

export const FEED_BENCH_PARTS = ['full', 'http-full', 'push', 'reads', 'many', 'memory'] as const;
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
  /** Items of one push, pushes measured, and how often the answers are asked for (ms). */
  pushItems: number;
  pushRounds: number;
  pollMs: number;
  /** Reads: seconds of each workload idle and loaded, shops ingesting, each at most this big. */
  readsSeconds: number;
  readsShops: number;
  readsShopOffers: number;
  readsConnections: number;
}

export const FULL_SIZES: FeedBenchSizes = {
  fullFeedRows: 100_000,
  changedShare: 0.1,
  rounds: 3,
  manyChanges: 1_000_000,
  concurrency: 4,
  largeFeedBytes: 500 * 2 ** 20,
  pushItems: 1_000,
  pushRounds: 100,
  pollMs: 10,
  readsSeconds: 10,
  readsShops: 3,
  readsShopOffers: 40_000,
  readsConnections: 8,
};

/** A smoke test's sizes: every part runs, in seconds. */
export const QUICK_SIZES: FeedBenchSizes = {
  fullFeedRows: 200,
  changedShare: 0.1,
  rounds: 1,
  manyChanges: 2_000,
  concurrency: 4,
  largeFeedBytes: 2 * 2 ** 20,
  pushItems: 20,
  pushRounds: 3,
  pollMs: 10,
  // Long enough for a request to finish on a busy machine: a window no request completes
  // in counts none, and the smoke test finds no reads.
  readsSeconds: 3,
  readsShops: 2,
  readsShopOffers: 2_000,
  readsConnections: 4,
};

export interface LargeFeedResult extends CommandRun {
  shopId: number;
  bytes: number;
  rows: number;
  products: number;
}

export interface FeedBenchResults {
  full?: FullFeedResult;
  /** The same feed through the gateway's route. */
  httpFull?: FullFeedResult;
  push?: PushResult;
  reads?: ReadsResult;
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
 * listing the fewest); for the large feed, the one listing the fewest of the others; for
 * pushes, the largest of the others.
 */
async function pickShops(
  client: pg.ClientBase,
  rows: number,
): Promise<{ full: number; large: number; push: number }> {
  const { rows: shops } = await client.query<{ shop_id: number; offers: number }>(
    `select s.id as shop_id, count(o.id)::integer as offers
       from shops s left join offers o on o.shop_id = s.id and o.withdrawn_at is null
      where s.market = (select market from product_market_summaries
                         group by market order by count(*) desc limit 1)
      group by s.id order by count(o.id) desc, s.id`,
  );
  const full = (shops.find((shop) => shop.offers <= rows) ?? shops.at(-1)!).shop_id;
  const large = shops.filter((shop) => shop.shop_id !== full).at(-1)!.shop_id;
  const push = shops.find((shop) => shop.shop_id !== full && shop.shop_id !== large)!.shop_id;
  return { full, large, push };
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
    if (parts.includes('http-full') || parts.includes('push')) {
      await withGateway(databaseUrl, { RESPONSE_CACHE_TTL_SECONDS: '30' }, (gateway) =>
        gatewayParts(context, database.db, gateway, parts, sizes, shops, results),
      );
    }
    if (parts.includes('reads')) {
      const exclude = [shops.full, shops.large, shops.push];
      const chosen = await ingestionShops(client, sizes.readsShops, sizes.readsShopOffers, exclude);
      const env = { RESPONSE_CACHE_TTL_SECONDS: '0', FEED_WORKERS: String(chosen.length) };
      results.reads = await withGateway(databaseUrl, env, (gateway) =>
        measureReadsDuringIngestion(
          client,
          gateway,
          gatewaySubmitter(database.db, gateway),
          directory,
          {
            shops: chosen,
            changedShare: sizes.changedShare,
            durationSeconds: sizes.readsSeconds,
            connections: sizes.readsConnections,
          },
          log,
        ),
      );
    }
    if (parts.includes('many')) {
      const { manyChanges: changes, concurrency } = sizes;
      const exclude = [shops.full, shops.large];
      results.many = await measureManyShops(context, { changes, concurrency, exclude });
    }
    if (parts.includes('memory')) {
      results.memory = await measureLargeFeed(
        context,
        database.db,
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

/** The route's submitter, each shop's token made once. */
function gatewaySubmitter(db: Kysely<Database>, gateway: RunningSystem): Submitter {
  const tokens = new Map<number, Promise<string>>();
  return httpSubmitter(gateway.baseUrl, (shopId) => {
    if (!tokens.has(shopId)) tokens.set(shopId, shopToken(db, gateway.baseUrl, shopId));
    return tokens.get(shopId)!;
  });
}

/** The parts on a gateway with its response cache on: the full feed by HTTP, pushes. */
async function gatewayParts(
  context: PartContext,
  db: Kysely<Database>,
  gateway: RunningSystem,
  parts: readonly FeedBenchPart[],
  sizes: FeedBenchSizes,
  shops: { full: number; push: number },
  results: FeedBenchResults,
): Promise<void> {
  const submitter = gatewaySubmitter(db, gateway);
  if (parts.includes('http-full')) {
    const { fullFeedRows: rows, changedShare, rounds } = sizes;
    results.httpFull = await measureFullFeed(
      { ...context, submitter },
      { shopId: shops.full, rows, changedShare, rounds },
    );
  }
  if (parts.includes('push')) {
    const token = await shopToken(db, gateway.baseUrl, shops.push);
    const spec = {
      shopId: shops.push,
      items: sizes.pushItems,
      rounds: sizes.pushRounds,
      pollMs: sizes.pollMs,
    };
    results.push = await measurePushVisibility(context.client, gateway, token, spec, context.log);
  }
}

async function measureLargeFeed(
  { client, directory, log }: PartContext,
  db: Kysely<Database>,
  databaseUrl: string,
  shopId: number,
  bytes: number,
): Promise<LargeFeedResult> {
  const file = path.join(directory, `large-${shopId}.tsv`);
  const feed = await writeLargeFeed(client, shopId, bytes, file);
  // The shop starts with nothing listed, so the feed is its first: every row creates (or
  // lists again) an offer, whatever earlier runs of the bench left. Withdrawn by a run, so
  // the products' summaries, history and outbox follow as a shop's own withdrawal makes them.
  const listed = await client.query<{ item_id: string }>(
    'select item_id from offers where shop_id = $1 and withdrawn_at is null',
    [shopId],
  );
  await applyFeedRun(db, {
    runId: randomUUID(),
    shopId,
    kind: 'push',
    items: [],
    withdrawItemIds: listed.rows.map((row) => row.item_id),
  });
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
