/**
 * The live benchmark's parts (bench/live.ts runs them on the bench scale, and
 * test/bench/live-bench.test.ts at their quick sizes on the tests' catalogue): latency from a
 * feed run's commit to the event, on one gateway process and across two; fan-out to many SSE
 * subscribers of one process; a stalled subscriber beside others; events lost across faults
 * (on a scratch cluster and a Redis of the part's own, which it restarts).
 */
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import type { LiveContext } from './context.ts';
import { measureFanOut, type FanOutResult } from './fan-out.ts';
import { measureLatency, type LatencyResult } from './latency.ts';
import {
  createFaultEnvironment,
  measureLosses,
  type Fault,
  type LossResult,
  type LossSpec,
} from './restarts.ts';
import { measureStalled, type StalledResult, type StalledSpec } from './stalled.ts';

export const LIVE_BENCH_PARTS = ['latency', 'fan-out', 'stalled', 'restarts'] as const;
export type LiveBenchPart = (typeof LIVE_BENCH_PARTS)[number];

export const FAULTS: readonly Fault[] = ['postgres', 'listener', 'redis'];

export interface LiveBenchSizes {
  /** Pushes measured for the latency, on one process and on two. */
  latencyRounds: number;
  /** SSE subscribers of one process, all watching the product one push changes. */
  fanOutSubscribers: number;
  stalled: StalledSpec;
  loss: LossSpec;
}

export const FULL_SIZES: LiveBenchSizes = {
  latencyRounds: 200,
  fanOutSubscribers: 5_000,
  stalled: { others: 20, items: 100, rounds: 30 },
  loss: { before: 10, after: 10, everyMs: 100, downMs: 5_000 },
};

/** A smoke test's sizes: every part runs, in about a minute. */
export const QUICK_SIZES: LiveBenchSizes = {
  latencyRounds: 5,
  fanOutSubscribers: 200,
  stalled: { others: 3, items: 20, rounds: 3 },
  loss: { before: 1, after: 1, everyMs: 200, downMs: 1_500 },
};

export interface LiveBenchResults {
  latency?: LatencyResult[];
  fanOut?: FanOutResult;
  stalled?: StalledResult;
  loss?: LossResult[];
}

export interface LiveBenchOptions {
  /** The catalogue the latency, fan-out and stalled parts push to (a Postgres server's). */
  databaseUrl: string;
  sizes: LiveBenchSizes;
  parts?: readonly LiveBenchPart[];
  log?: (line: string) => void;
}

export async function runLiveBench(options: LiveBenchOptions): Promise<LiveBenchResults> {
  const { sizes, databaseUrl } = options;
  const parts = options.parts ?? LIVE_BENCH_PARTS;
  const log = options.log ?? (() => undefined);
  const database = await openDatabase({ url: databaseUrl, poolSize: 2 });
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const context: LiveContext = { databaseUrl, client, db: database.db, log };
  const results: LiveBenchResults = {};
  try {
    if (parts.includes('latency')) {
      results.latency = await measureLatency(context, sizes.latencyRounds);
    }
    if (parts.includes('fan-out')) {
      results.fanOut = await measureFanOut(context, sizes.fanOutSubscribers);
    }
    if (parts.includes('stalled')) results.stalled = await measureStalled(context, sizes.stalled);
    if (parts.includes('restarts')) {
      const environment = await createFaultEnvironment();
      try {
        results.loss = await measureLosses(environment, FAULTS, sizes.loss, log);
      } finally {
        await environment.destroy();
      }
    }
    return results;
  } finally {
    await client.end();
    await database.close();
  }
}
