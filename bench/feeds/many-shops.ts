/**
 * 1,000,000 offer changes across many shops (performance.md: ≤ 60 s): full feeds of shops
 * drawn across the catalogue (ordered by a hash of their id, so large and small shops, every
 * market), applied `concurrency` at a time through a pool, as a queue of runs would take them.
 * Each feed moves the price of every row it has, so a shop's changes are its listed offers,
 * and shops are added until their sum reaches the count asked for (first those no larger
 * than a pool's share of it, so that the pool has several runs to hold).
 */
import path from 'node:path';
import type pg from 'pg';
import type { FeedRunCounts } from '../../src/feeds/apply-run.ts';
import { writeShopFeed } from './feed-files.ts';
import type { PartContext } from './context.ts';
import { appliedCounts } from './submit.ts';

export interface ManyShopsSpec {
  changes: number;
  concurrency: number;
  /** Shops the other parts use. */
  exclude: number[];
}

export interface ManyShopsResult {
  shops: number;
  concurrency: number;
  rows: number;
  /** created + updated + withdrawn, summed over the runs. */
  changes: number;
  seconds: number;
  /** The slowest single run. */
  slowestRunSeconds: number;
}

const changesOf = (c: FeedRunCounts) => c.created + c.updated + c.withdrawn;

async function chooseShops(client: pg.ClientBase, spec: ManyShopsSpec): Promise<number[]> {
  const { rows } = await client.query<{ shop_id: number; offers: number }>(
    `select shop_id, count(*)::integer as offers from offers
      where withdrawn_at is null and not (shop_id = any($1::integer[]))
      group by shop_id order by count(*) > $2, md5(shop_id::text)`,
    [spec.exclude, Math.ceil(spec.changes / spec.concurrency)],
  );
  const chosen: number[] = [];
  let offers = 0;
  for (const row of rows) {
    if (offers >= spec.changes) break;
    chosen.push(row.shop_id);
    offers += row.offers;
  }
  return chosen;
}

export async function measureManyShops(
  { client, submitter, directory, log }: PartContext,
  spec: ManyShopsSpec,
): Promise<ManyShopsResult> {
  const shops = await chooseShops(client, spec);
  const feeds: { shopId: number; file: string }[] = [];
  for (const shopId of shops) {
    const file = path.join(directory, `many-${shopId}.tsv`);
    await writeShopFeed(client, { shopId, changedShare: 1, salt: 'many' }, file);
    feeds.push({ shopId, file });
  }
  log(`many shops: ${shops.length} feeds written; applying ${spec.concurrency} at a time`);
  const queue = [...feeds];
  let rows = 0;
  let changes = 0;
  let slowest = 0;
  const started = performance.now();
  // The first failure stops every worker after its run, and is thrown once they have stopped
  // (not before: the feeds' directory is removed then, under the runs still reading it).
  const failures: unknown[] = [];
  const worker = async () => {
    for (let feed = queue.shift(); feed && failures.length === 0; feed = queue.shift()) {
      const runStarted = performance.now();
      try {
        const { report } = await submitter.submit(feed);
        const counts = appliedCounts(report, `shop ${feed.shopId}`);
        slowest = Math.max(slowest, (performance.now() - runStarted) / 1000);
        rows += counts.rows;
        changes += changesOf(counts);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: spec.concurrency }, worker));
  if (failures.length > 0) throw failures[0];
  const seconds = (performance.now() - started) / 1000;
  log(`many shops: ${changes} changes (${rows} rows) in ${seconds.toFixed(1)} s`);
  return {
    shops: shops.length,
    concurrency: spec.concurrency,
    rows,
    changes,
    seconds,
    slowestRunSeconds: slowest,
  };
}
