/**
 * After the rows are in: the summaries, the deferred indexes and foreign keys, statistics.
 *
 * The work runs as a queue of jobs over a few connections at once (Postgres builds one index
 * per backend, on one core): the summary refresh first, since it is the longest and needs no
 * index, then the indexes of the biggest tables, then the foreign keys. The summaries' own
 * indexes and keys wait for the refresh, so that it inserts into a bare table.
 */
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
/** Per backend, for index builds and the refresh's grouping; three at a time fit easily. */
const MEMORY_PER_JOB = '512MB';

export interface CompletionOptions {
  asOf: string;
  /** Tables to analyze once before the refresh (its plan needs their sizes) and at the end. */
  tables: readonly string[];
  definitions: readonly DeferredDefinition[];
  /** Bigger tables' indexes first: rows per table as loaded. */
  rows: Readonly<Record<string, number>>;
  progress: Progress;
}

/** Returns the number of summary rows. */
export async function completeCatalogue(
  database: DatabaseHandle,
  options: CompletionOptions,
): Promise<number> {
  const { definitions, progress } = options;
  const parallelism = Math.min(3, poolSize(database));

  progress.note('analyzing the loaded tables');
  await withClient(database.pool, (client) => client.query(`analyze ${options.tables.join(', ')}`));

  const bySize = (a: DeferredDefinition, b: DeferredDefinition) =>
    (options.rows[b.table] ?? 0) - (options.rows[a.table] ?? 0) || a.name.localeCompare(b.name);
  const ofTable = (summaries: boolean) => (d: DeferredDefinition) =>
    (d.table === SUMMARIES) === summaries;
  const indexes = definitions.filter((d) => d.kind === 'index');
  const keys = definitions.filter((d) => d.kind === 'foreign key');

  let summaryRows = 0;
  const total = definitions.length + 1;
  let done = 0;
  progress.phase('summaries, indexes', total, 'jobs');
  const tick = () => progress.update(++done);

  const queue = new JobQueue(parallelism);
  const refreshed = queue.add(async () => {
    summaryRows = await refreshSummaries(database, options.asOf);
    tick();
  });
  const restore = (item: DeferredDefinition) =>
    queue.add(async () => {
      await withClient(database.pool, async (client) => {
        for (const statement of restoreStatements(item)) {
          // Memory set per transaction, so it ends with the job: the pool's connections go on
          // to serve requests.
          await client.query('begin');
          await client.query(`set local maintenance_work_mem = '${MEMORY_PER_JOB}'`);
          await client.query(`set local work_mem = '${MEMORY_PER_JOB}'`);
          await client.query(statement);
          await client.query('commit');
        }
      });
      tick();
    });
  const catalogueJobs = [
    ...indexes.filter(ofTable(false)).sort(bySize),
    ...keys.filter(ofTable(false)).sort(bySize),
  ].map(restore);
  const summaryJobs = refreshed.then(() =>
    Promise.all([...indexes.filter(ofTable(true)), ...keys.filter(ofTable(true))].map(restore)),
  );
  await Promise.all([refreshed, summaryJobs, ...catalogueJobs]);
  progress.stop();

  progress.note('analyzing');
  await withClient(database.pool, async (client) => {
    await closeJournal(client);
    await client.query(`analyze ${[...options.tables, SUMMARIES].join(', ')}`);
  });
  return summaryRows;
}

/** The one function that computes trends and listing facts, given room to group in memory. */
async function refreshSummaries(database: DatabaseHandle, asOf: string): Promise<number> {
  return database.db.connection().execute(async (connection) => {
    await sql.raw(`set work_mem = '${MEMORY_PER_JOB}'`).execute(connection);
    try {
      return await refreshProductMarketSummaries(connection, { asOf });
    } finally {
      await sql`reset work_mem`.execute(connection);
    }
  });
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

/** Runs at most `limit` jobs at a time, in the order they were added. */
class JobQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async add<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((go) => this.waiting.push(go));
    this.running++;
    try {
      return await job();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
