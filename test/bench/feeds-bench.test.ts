/**
 * The feed benchmark (bench/feeds, `npm run bench:feeds -- --quick`) at its quick sizes on
 * the tests' seeded catalogue: every part runs end to end, its feeds apply as the bench meant
 * them (the moved prices updated, nothing rejected or unmatched), the baseline changes the
 * same offers as the run, and the report has a row per target. Timings are the bench's
 * output, never asserted here.
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
  expect(rows.map(([what]) => what!.split(' ')[0])).toEqual([
    'full',
    'first',
    'reading',
    'baseline:',
    'feed',
    '2,000',
    'resident',
  ]);
});
