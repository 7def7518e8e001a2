/**
 * The live benchmark (bench/live, `npm run bench:live -- --quick`) at its quick sizes on the
 * tests' seeded catalogue: every part runs end to end against real gateway processes. Each
 * latency round's events reached both transports with the price pushed; every fan-out
 * subscriber got its one event; the stalled subscriber was closed with `slow_consumer` once
 * it read again, after the events the network held for it; no event was lost or told twice
 * across the faults; and the report has a row per target. Timings are the bench's output,
 * never asserted here.
 *
 * The bench's gateways need a Postgres server: the pass's own under TEST_DATABASE_URL, a
 * scratch cluster's in the PGlite pass, as for the feed bench. The restarts part makes a
 * cluster and a Redis of its own in either.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { liveTargetRows } from '../../bench/live/report.ts';
import {
  FAULTS,
  QUICK_SIZES,
  runLiveBench,
  type LiveBenchResults,
} from '../../bench/live/run-bench.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { createScratchDatabase } from '../helpers/scratch-database.ts';

let database: TestDatabase;
let results: LiveBenchResults;

beforeAll(async () => {
  database =
    databaseKind === 'postgres'
      ? await createTestDatabase({ contents: 'seeded' })
      : await createScratchDatabase('seeded');
  results = await runLiveBench({ databaseUrl: database.url!, sizes: QUICK_SIZES });
}, 900_000);

afterAll(async () => {
  await database?.dispose();
});

it('measures commit → event on one process and across two, on both transports', () => {
  expect(results.latency!.map((result) => result.processes)).toEqual([1, 2]);
  for (const result of results.latency!) {
    for (const latencies of [result.sse, result.ws, result.afterAnswer]) {
      expect(latencies).toHaveLength(QUICK_SIZES.latencyRounds);
      expect(latencies.every(Number.isFinite)).toBe(true);
    }
  }
});

it('fans one event out to every SSE subscriber of a process, its memory and CPU read', () => {
  const fanOut = results.fanOut!;
  expect(fanOut.subscribers).toBe(QUICK_SIZES.fanOutSubscribers);
  expect(fanOut.allDeliveredMs).toBeGreaterThanOrEqual(fanOut.medianMs);
  expect(fanOut.residentPeakBytes).toBeGreaterThan(0);
  expect(fanOut.residentSubscribedBytes).toBeGreaterThan(0);
});

it('closes a stalled subscriber after what the network holds and its buffer', () => {
  const stalled = results.stalled!;
  expect(stalled.endedWith).toBe('SERVICE_UNAVAILABLE (slow_consumer), complete');
  expect(stalled.owedBytes).toBeGreaterThan(stalled.networkBytes);
  // It read what the network held, less than it was owed: the rest was dropped for it.
  expect(stalled.eventsRead * stalled.eventBytes).toBeLessThan(stalled.owedBytes);
  for (const latencies of [stalled.alone, stalled.stalled]) {
    expect(latencies).toHaveLength(QUICK_SIZES.stalled.rounds * QUICK_SIZES.stalled.others);
  }
});

it('loses no event, and tells none twice, across each fault', () => {
  expect(results.loss!.map((loss) => loss.fault)).toEqual(FAULTS);
  for (const loss of results.loss!) {
    const committed = loss.runs.filter((run) => run.committed).length;
    expect(committed).toBe(loss.runs.length);
    expect(loss.misapplied).toBe(0);
    for (const subscriber of loss.subscribers) {
      expect(subscriber).toMatchObject({
        received: committed,
        lost: 0,
        duplicated: 0,
        strange: 0,
        connected: true,
      });
    }
  }
});

it('reports a row for each target and each figure beside them', () => {
  const rows = liveTargetRows(results);
  expect(rows.map(([what]) => what)).toEqual([
    expect.stringMatching(/^feed commit → event at the subscriber, one gateway process/),
    expect.stringMatching(/^feed commit → event at the subscriber, two gateway processes/),
    expect.stringMatching(/^200 concurrent SSE subscribers on one process/),
    expect.stringMatching(/^events lost .*: Postgres stopped and started again/),
    expect.stringMatching(/^events lost .*: the subscribers’ gateway alone cut off/),
    expect.stringMatching(/^events lost .*: Redis stopped and started again/),
    expect.stringMatching(/^a stalled subscriber/),
  ]);
  expect(rows.every((row) => row.length === 4 && row.every((cell) => cell !== ''))).toBe(true);
});
