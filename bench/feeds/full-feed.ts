/**
 * One shop's full feed of `rows` rows (performance.md: 100,000, ~10 % of prices changed,
 * applied ≤ 10 s after the upload ends), beside reading the same file alone and the
 * COPY + UPDATE baseline, round after round.
 *
 * The bench catalogue has no shop that large (the largest holds ~56,000 offers), so a first
 * run gives the shop new items for other products of its market until it lists `rows`
 * offers; on a catalogue where an earlier invocation did that, there is no first run. Each
 * round then writes the shop's feed from its offers as they are, a share of prices moved,
 * and measures the baseline (rolled back) and the run through the given submitter.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { FeedMarket } from '../../src/feeds/feed-record.ts';
import { readFeed } from '../../src/feeds/read-feed.ts';
import { runBaseline, writeBaselineRows, type BaselineTiming } from './baseline.ts';
import { writeShopFeed } from './feed-files.ts';
import type { PartContext } from './context.ts';
import { appliedCounts, type Submitter } from './submit.ts';
import type { FeedRunCounts } from '../../src/feeds/apply-run.ts';

export interface TimedRun {
  /** From the end of the upload (the submitter's, when it has one) to the run's end. */
  seconds: number;
  /** The upload itself (HTTP: from the request's start to its last byte sent). */
  uploadSeconds?: number;
  rows: number;
  counts: FeedRunCounts;
}

export interface FullFeedRound {
  /** Rows whose price the feed moved. */
  changed: number;
  run: TimedRun;
  readSeconds: number;
  baseline: BaselineTiming;
}

export interface FullFeedResult {
  shopId: number;
  market: string;
  submitter: string;
  /** The run that brings the shop to `rows` offers (none when it lists that many). */
  first: (TimedRun & { added: number }) | undefined;
  rounds: FullFeedRound[];
}

export interface FullFeedSpec {
  shopId: number;
  rows: number;
  changedShare: number;
  rounds: number;
}

const since = (from: number) => (performance.now() - from) / 1000;

/** Submits a feed file and times it until its run has been applied, after its upload. */
export async function timedRun(
  submitter: Submitter,
  shopId: number,
  file: string,
  what: string,
): Promise<TimedRun> {
  const started = performance.now();
  const { report, uploadSeconds } = await submitter.submit({ shopId, file });
  const seconds = since(started) - (uploadSeconds ?? 0);
  const counts = appliedCounts(report, what);
  return {
    seconds,
    rows: counts.rows,
    counts,
    ...(uploadSeconds === undefined ? {} : { uploadSeconds }),
  };
}

/** Reads the file through readFeed to its end, applying nothing: the parsing cost alone. */
async function timeReading(file: string, market: FeedMarket): Promise<number> {
  const started = performance.now();
  const reading = readFeed({ body: createReadStream(file), format: 'tsv', gzip: false, market });
  let rows = 0;
  for await (const row of reading.rows) if (row) rows++;
  return since(started);
}

export async function shopMarket(
  client: pg.ClientBase,
  shopId: number,
): Promise<{ market: string; feedMarket: FeedMarket }> {
  const { rows } = await client.query<{ market: string; currency: string }>(
    'select s.market, m.currency from shops s join markets m on m.code = s.market where s.id = $1',
    [shopId],
  );
  const { market, currency } = rows[0]!;
  return { market, feedMarket: { currency, country: market.toUpperCase() } };
}

export async function measureFullFeed(
  { client, pool, submitter, directory, log }: PartContext,
  spec: FullFeedSpec,
): Promise<FullFeedResult> {
  const { shopId } = spec;
  const { market, feedMarket } = await shopMarket(client, shopId);
  const file = path.join(directory, `shop-${shopId}.tsv`);
  const firstFeed = await writeShopFeed(
    client,
    { shopId, changedShare: 0, salt: 'first' },
    file,
    spec.rows,
  );
  log(
    `full feed: shop ${shopId} (${market}) lists ${firstFeed.rows - firstFeed.added} offers; first run adds ${firstFeed.added}`,
  );
  let first: FullFeedResult['first'];
  if (firstFeed.added > 0) {
    first = { ...(await timedRun(submitter, shopId, file, 'first run')), added: firstFeed.added };
    log(`full feed: first run ${first.seconds.toFixed(1)} s, ${describeCounts(first.counts)}`);
  }

  const rounds: FullFeedRound[] = [];
  const baselineFile = path.join(directory, `shop-${shopId}.copy`);
  for (let round = 0; round < spec.rounds; round++) {
    const feed = await writeShopFeed(
      client,
      { shopId, changedShare: spec.changedShare, salt: `round-${round}` },
      file,
    );
    const readSeconds = await timeReading(file, feedMarket);
    await writeBaselineRows(file, feedMarket, baselineFile);
    const baseline = await runBaseline(pool, shopId, baselineFile);
    const run = await timedRun(submitter, shopId, file, `round ${round + 1}`);
    rounds.push({ changed: feed.changed, run, readSeconds, baseline });
    log(
      `full feed: round ${round + 1}/${spec.rounds}: ${feed.rows} rows, ${feed.changed} moved; ` +
        `read ${readSeconds.toFixed(2)} s, baseline ${baseline.seconds.toFixed(2)} s ` +
        `(${baseline.updated} updated), run ${run.seconds.toFixed(2)} s (${describeCounts(run.counts)})`,
    );
  }
  return { shopId, market, submitter: submitter.name, first, rounds };
}

export function describeCounts(counts: FeedRunCounts): string {
  return (
    `${counts.rows} rows: ${counts.created} created, ${counts.updated} updated, ` +
    `${counts.unchanged} unchanged, ${counts.withdrawn} withdrawn`
  );
}
