/**
 * The feed benchmark (bench/feeds, `npm run bench:feeds -- --quick`) at its quick sizes on
 * the tests' seeded catalogue: every part runs end to end, its feeds apply as the bench meant
 * them (the moved prices updated, nothing rejected or unmatched), the baseline changes the
 * same offers as the run, the HTTP parts reach a real gateway process (the full feed through
 * its route, pushes seen in its cached answers, reads while feeds apply), and the report has
 * a row per target. Timings are the bench's output, never asserted here.
 *
 * The bench needs a Postgres server (COPY, the feed command in a child process on
 * DATABASE_URL): the pass's own under TEST_DATABASE_URL, a scratch cluster's in the PGlite
 * pass, as for the PostGraphile twin.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { feedTargetRows } from '../../bench/feeds/report.ts';
import { QUICK_SIZES, runFeedBench, type FeedBenchResults } from '../../bench/feeds/run-bench.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { createScratchDatabase } from '../helpers/scratch-database.ts';

let database: TestDatabase;
let results: FeedBenchResults;

beforeAll(async () => {
  database =
    databaseKind === 'postgres'
      ? await createTestDatabase({ contents: 'seeded' })
      : await createScratchDatabase('seeded');
  results = await runFeedBench({ databaseUrl: database.url!, sizes: QUICK_SIZES });
});

afterAll(async () => {
  await database?.dispose();
});

it("gives one shop its full feed's rows, then moves a share of their prices", () => {
  const full = results.full!;
  expect(full.first?.counts.created).toBeGreaterThan(0);
  expect(full.rounds).toHaveLength(QUICK_SIZES.rounds);
  for (const round of full.rounds) {
    expect(round.run.rows).toBe(QUICK_SIZES.fullFeedRows);
    expect(round.changed).toBeGreaterThan(0);
    expect(round.run.counts).toMatchObject({ created: 0, updated: round.changed, withdrawn: 0 });
    expect(round.baseline).toMatchObject({ rows: round.run.rows, updated: round.changed });
  }
});

it('sends the same full feed through the route, timing the upload apart', () => {
  const http = results.httpFull!;
  expect(http.shopId).toBe(results.full!.shopId);
  expect(http.submitter).toMatch(/^PUT /);
  expect(http.rounds).toHaveLength(QUICK_SIZES.rounds);
  for (const round of http.rounds) {
    expect(round.run.rows).toBe(QUICK_SIZES.fullFeedRows);
    expect(round.run.counts).toMatchObject({ created: 0, updated: round.changed, withdrawn: 0 });
    expect(round.run.uploadSeconds).toBeGreaterThan(0);
  }
});

it("sees every push's new price in both cached answers", () => {
  const push = results.push!;
  expect(push.items).toBe(QUICK_SIZES.pushItems);
  expect(push.rounds).toHaveLength(QUICK_SIZES.pushRounds);
  for (const round of push.rounds) {
    expect(round.polls).toBeGreaterThanOrEqual(1);
    expect(round.visibleMs).toBeGreaterThan(0);
  }
  // Another product each round.
  expect(new Set(push.rounds.map((r) => r.productId)).size).toBe(QUICK_SIZES.pushRounds);
});

it('measures W1 and W4 idle and while feeds apply, feeds applied meanwhile', () => {
  const reads = results.reads!;
  expect(reads.shops).toBe(QUICK_SIZES.readsShops);
  expect(reads.measurements.map((m) => m.workload)).toEqual(['W1', 'W4-rest', 'W4-graphql']);
  for (const { idle, loaded } of reads.measurements) {
    expect(idle.requests).toBeGreaterThan(0);
    expect(loaded.requests).toBeGreaterThan(0);
    expect(idle.failures + loaded.failures).toBe(0);
  }
  expect(reads.runs).toBeGreaterThan(0);
  expect(reads.changes).toBeGreaterThan(0);
});

it("applies many shops' feeds, every row a change, at least as many as asked", () => {
  const many = results.many!;
  expect(many.shops).toBeGreaterThan(QUICK_SIZES.concurrency);
  expect(many.changes).toBeGreaterThanOrEqual(QUICK_SIZES.manyChanges);
  expect(many.changes).toBeGreaterThanOrEqual(many.rows);
});

it('applies the large feed through the command, every row matched, its memory sampled', () => {
  const memory = results.memory!;
  expect(memory.bytes).toBeGreaterThan(QUICK_SIZES.largeFeedBytes * 0.8);
  expect(memory.counts.rows).toBe(memory.rows);
  expect(memory.counts.created).toBe(memory.rows);
  expect(memory.peakResidentBytes).toBeGreaterThan(0);
});

it('reports a row for each target and each figure beside them', () => {
  const rows = feedTargetRows(results, QUICK_SIZES);
  const fullFeed = ['full', 'first', 'reading', 'baseline:', 'feed'];
  expect(rows.map(([what]) => what!.split(' ')[0])).toEqual([
    ...fullFeed,
    ...fullFeed,
    'a',
    'W1',
    'W4-rest',
    'W4-graphql',
    'ingestion',
    '2,000',
    'resident',
  ]);
});
