/**
 * After the rows are in: the summaries, the deferred indexes and foreign keys, statistics.
 *
 * The work is a queue of jobs over one connection per core (Postgres builds an index or runs a
 * statement on one backend, on one core). Its order is set by the summary refresh, the longest
 * piece of work:
 *
 *   1. the offers indexes that lead with product_id first: through one the refresh groups
 *      offers in product order instead of hashing 30 million rows, and then reads price
 *      history in key order too (measured several times faster than without);
 *   2. the refresh, split into ranges of products run side by side, ahead of anything queued;
 *   3. meanwhile, the other tables' indexes, biggest first;
 *   4. the summaries' own indexes once the refresh has filled the bare table;
 *   5. each foreign key once the indexes of both its tables are built, one per table at a
 *      time: jobs wait for their locks before they take a connection, never on one.
 */
import { availableParallelism } from 'node:os';
import { sql } from 'kysely';
import type pg from 'pg';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { refreshProductMarketSummaries } from '../../src/db/repositories/product-market-summaries.ts';
import type { Progress } from '../progress.ts';
import {
  closeJournal,
  restoreStatements,
  type DeferredDefinition,
} from './deferred-definitions.ts';

const SUMMARIES = 'product_market_summaries';
/** The refresh's access path (step 1 above): an index on offers that leads with product_id. */
const servesRefresh = (item: DeferredDefinition) =>
  item.kind === 'index' &&
  item.table === 'offers' &&
  /\bUSING btree \(product_id\b/i.test(item.definition);
/** Per backend, for index builds and the refresh's grouping; a few at a time fit easily. */
const MEMORY_PER_JOB = '512MB';

export interface CompletionOptions {
  asOf: string;
  /** Tables to analyze before the refresh (its plan needs their sizes) and at the end. */
  tables: readonly string[];
  definitions: readonly DeferredDefinition[];
  /** Rows per table as loaded: bigger tables' indexes go first. */
  rows: Readonly<Record<string, number>>;
  /** Product ids run from 1 to this. */
  products: number;
  progress: Progress;
}

/** Returns the number of summary rows. */
export async function completeCatalogue(
  database: DatabaseHandle,
  options: CompletionOptions,
): Promise<number> {
  const { definitions, progress } = options;
  const parallelism = Math.max(1, Math.min(availableParallelism(), poolSize(database)));

  progress.note('analyzing the loaded tables');
  await withClient(database.pool, (client) => client.query(`analyze ${options.tables.join(', ')}`));

  const bySize = (a: DeferredDefinition, b: DeferredDefinition) =>
    (options.rows[b.table] ?? 0) - (options.rows[a.table] ?? 0) || a.name.localeCompare(b.name);
  const indexes = definitions.filter((d) => d.kind === 'index').sort(bySize);
  const keys = definitions.filter((d) => d.kind === 'foreign key').sort(bySize);
  // More ranges than connections, so the last ones to finish are short.
  const ranges = productRanges(options.products, parallelism * 2);

  let done = 0;
  progress.phase('summaries, indexes', definitions.length + ranges.length, 'jobs');
  const queue = new JobQueue(parallelism);
  const run = (what: string, priority: number, job: () => Promise<unknown>) =>
    queue.add(priority, async () => {
      const started = performance.now();
      await job();
      progress.update(++done);
      const seconds = (performance.now() - started) / 1000;
      if (seconds >= 1) progress.detail(`${what} in ${seconds.toFixed(1)} s`);
    });
  const restore = (item: DeferredDefinition, priority: number) =>
    run(`${item.kind === 'index' ? 'built' : 'validated'} ${item.name}`, priority, () =>
      restoreDefinition(database.pool, item),
    );

  // Jobs wait for what they need before they take a connection: a job blocked on a lock
  // would hold its connection while a core idles. Everything is scheduled synchronously, so
  // every promise has its handler before any job can fail.
  const scheduled: Promise<unknown>[] = [];
  const schedule = <T>(job: Promise<T>) => {
    scheduled.push(job);
    return job;
  };

  let summaryRows = 0;
  const refreshPathJobs = new Map(
    indexes.filter(servesRefresh).map((item) => [item, schedule(restore(item, 0))] as const),
  );
  const refreshPaths = [...refreshPathJobs.values()];
  const refreshed = schedule(
    allSucceeded(refreshPaths).then(() =>
      allSucceeded(
        ranges.map(([first, last], index) =>
          run(`refreshed summaries ${index + 1}/${ranges.length}`, 0, async () => {
            // Awaited before adding: `x += await …` would read x before the wait.
            const rows = await refreshSummaries(database, options.asOf, first, last);
            summaryRows += rows;
          }),
        ),
      ),
    ),
  );

  // Indexes, biggest tables first; the summaries' once the refresh has filled the table.
  const indexesBuilt = new Map<string, Promise<void>>();
  for (const table of new Set(indexes.map((item) => item.table))) {
    const own = indexes.filter((item) => item.table === table);
    const built =
      table === SUMMARIES
        ? refreshed.then(() => allSucceeded(own.map((item) => restore(item, 0))))
        : allSucceeded(own.map((item) => refreshPathJobs.get(item) ?? restore(item, 1)));
    indexesBuilt.set(table, schedule(built));
  }

  // Foreign keys: each after the index builds on both of its tables (adding one conflicts
  // with CREATE INDEX), one at a time per table (validations of one table conflict too).
  const lastKeyOf = new Map<string, Promise<void>>();
  for (const item of keys) {
    const referenced = /REFERENCES\s+"?([\w.]+)"?/i.exec(item.definition)?.[1] ?? '';
    const before: Promise<unknown>[] = [];
    for (const needed of [
      indexesBuilt.get(item.table),
      indexesBuilt.get(referenced),
      lastKeyOf.get(item.table),
      item.table === SUMMARIES ? refreshed : undefined,
    ]) {
      if (needed) before.push(needed);
    }
    const validated = schedule(allSucceeded(before).then(() => restore(item, 2)));
    lastKeyOf.set(item.table, validated);
  }

  // Every job settles before a failure is reported: the caller's clean-up must not race jobs
  // still running on other connections.
  await allSucceeded(scheduled);
  progress.stop();

  progress.note('analyzing, vacuuming the summaries');
  await withClient(database.pool, async (client) => {
    await closeJournal(client);
    await client.query(`analyze ${options.tables.join(', ')}`);
    // The read model every listing and count reads: its visibility map set now, so that their
    // index-only scans read no heap from the first request (autovacuum would get there later).
    await client.query(`vacuum (analyze) ${SUMMARIES}`);
  });
  return summaryRows;
}

async function restoreDefinition(pool: pg.Pool, item: DeferredDefinition): Promise<void> {
  await withClient(pool, async (client) => {
    for (const statement of restoreStatements(item)) {
      // Settings last as long as the transaction: the pool's connections go on to serve
      // requests. One core per job: parallel maintenance workers would only contend with the
      // other jobs.
      await client.query('begin');
      await client.query(`set local maintenance_work_mem = '${MEMORY_PER_JOB}'`);
      await client.query(`set local work_mem = '${MEMORY_PER_JOB}'`);
      await client.query('set local max_parallel_maintenance_workers = 0');
      await client.query(statement);
      await client.query('commit');
    }
  });
}

/**
 * The one function that computes trends and listing facts, for the products first..last,
 * given room to group in memory.
 */
async function refreshSummaries(
  database: DatabaseHandle,
  asOf: string,
  first: number,
  last: number,
): Promise<number> {
  const productIds = Array.from({ length: last - first + 1 }, (_, index) => first + index);
  return database.db.connection().execute(async (connection) => {
    await sql.raw(`set work_mem = '${MEMORY_PER_JOB}'`).execute(connection);
    try {
      return await refreshProductMarketSummaries(connection, { asOf, productIds });
    } finally {
      await sql`reset work_mem`.execute(connection);
    }
  });
}

/** Waits for every promise to settle; then fails with the first failure, if any. */
async function allSucceeded(promises: readonly Promise<unknown>[]): Promise<void> {
  const outcomes = await Promise.allSettled(promises);
  const failure = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
}

/** Splits 1..products into `count` contiguous ranges of nearly equal size. */
function productRanges(products: number, count: number): [number, number][] {
  const ranges: [number, number][] = [];
  const parts = Math.max(1, Math.min(count, products));
  for (let part = 0; part < parts; part++) {
    const first = Math.floor((part * products) / parts) + 1;
    const last = Math.floor(((part + 1) * products) / parts);
    ranges.push([first, last]);
  }
  return ranges;
}

function poolSize(database: DatabaseHandle): number {
  return (database.pool.options as { max?: number }).max ?? 10;
}

export async function withClient<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    const result = await work(client);
    client.release();
    return result;
  } catch (error) {
    // A connection left mid-transaction must not go back to the pool.
    client.release(error as Error);
    throw error;
  }
}

/** Runs at most `limit` jobs at a time; a waiting job of lower priority number goes first. */
class JobQueue {
  private running = 0;
  private sequence = 0;
  private readonly waiting: { priority: number; sequence: number; start: () => void }[] = [];

  constructor(private readonly limit: number) {}

  async add<T>(priority: number, job: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      await new Promise<void>((start) => {
        this.waiting.push({ priority, sequence: this.sequence++, start });
        this.waiting.sort((a, b) => a.priority - b.priority || a.sequence - b.sequence);
      });
    }
    this.running++;
    try {
      return await job();
    } finally {
      this.running--;
      this.waiting.shift()?.start();
    }
  }
}
