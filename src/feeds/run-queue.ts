/**
 * The queue of feed runs: pg-boss, on the database the catalogue lives in, so every gateway
 * process (on any machine) shares it with no new infrastructure; the embedded database's one
 * process runs it itself the same way (docs/operations.md, "Feed runs"). A job names a shop,
 * not a run: its worker applies all of the shop's unfinished runs in the order received
 * (./run-worker.ts), so a job lost or repeated loses or repeats nothing. A run's own record
 * (src/db/repositories/feed-runs.ts) is the truth about it; the queue only says which shop to
 * look at, soon.
 */
import PgBoss from 'pg-boss';
import type pg from 'pg';
import type { Kysely } from 'kysely';
import {
  findShopsWithUnfinishedRuns,
  removeFeedRunLeftovers,
} from '../db/repositories/feed-runs.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import type { RunWorker } from './run-worker.ts';

const QUEUE = 'feed-runs';

/** The pauses before a failed start of the queue is tried again: doubling, capped. */
const START_RETRY_FIRST_MS = 500;
const START_RETRY_MAX_MS = 30_000;

/** How often each process looks for runs nobody saw to (a job lost with its process). */
const SWEEP_INTERVAL_MS = 30_000;

/**
 * The statements pg-boss 10 runs once a job's handler has settled, marking the job completed or
 * failed, without awaiting them (Manager#watch): if the database is gone at that moment (a
 * restart under a run), their rejection reaches no one, and an unhandled rejection ends the
 * process. Told apart by their text (pg-boss's plans.js completeJobs and failJobsById).
 */
const UNAWAITED_JOB_ENDINGS = [
  /\bSET completed_on = now\(\),\s+state = 'completed'/,
  /\bDELETE FROM \S+\.job\s+WHERE name = \$1 AND id IN \(SELECT UNNEST\(\$2::uuid\[\]\)\)/,
];

export interface RunQueueOptions {
  db: Kysely<Database>;
  /** The pool pg-boss runs its statements on: the catalogue's own primary. */
  pool: pg.Pool;
  worker: RunWorker;
  /** Runs applied side by side in this process (each for another shop). */
  concurrency: number;
  /** A body that stopped arriving this long ago is given up. */
  stalledAfterMs: number;
  logger: Logger;
}

export interface RunQueue {
  /**
   * Takes runs from now on, first those left unfinished (a serving process starts it at once;
   * otherwise the first run queued starts it).
   */
  start(): Promise<void>;
  /** A run of this shop was queued: a worker (here or in another process) sees to the shop. */
  enqueue(shopId: number): Promise<void>;
  /** No new runs; running ones finish within `graceMs` or go back to the queue. */
  close(graceMs: number): Promise<void>;
}

/** pg-boss on the catalogue's pool, its database errors logged, never thrown at the process. */
function createBoss(pool: pg.Pool, logger: Logger): PgBoss {
  /**
   * A job's ending that fails for want of a database is logged and let go: the job stays
   * `active` until it expires, and the sweep sends its shop again meanwhile.
   */
  async function executeSql(text: string, values?: unknown[]) {
    try {
      return await pool.query(text, values);
    } catch (error) {
      const unawaited = UNAWAITED_JOB_ENDINGS.some((statement) => statement.test(text));
      if (!unawaited || databaseConnectionFailure(error) === undefined) throw error;
      logger.warn({ err: error }, 'feed run queue: a job could not be marked done');
      return { rows: [{ count: '0' }] };
    }
  }
  const boss = new PgBoss({
    db: { executeSql },
    schedule: false,
    // Jobs expire rather than sit `active` forever when their process died; the run itself is
    // started again by whichever worker takes the shop next.
    expireInSeconds: 60 * 60,
    retryLimit: 10,
    retryDelay: 1,
    retryBackoff: true,
  });
  boss.on('error', (error) => logger.warn({ err: error }, 'feed run queue: database error'));
  return boss;
}

export function startRunQueue(options: RunQueueOptions): RunQueue {
  const { logger, worker } = options;
  const boss = createBoss(options.pool, logger);
  const workerIds: string[] = [];
  let sweeper: NodeJS.Timeout | undefined;

  async function sweep(): Promise<void> {
    await removeFeedRunLeftovers(options.db, new Date(Date.now() - options.stalledAfterMs));
    for (const shopId of await findShopsWithUnfinishedRuns(options.db)) await send(shopId);
  }

  async function send(shopId: number): Promise<void> {
    await boss.send(QUEUE, { shopId });
    for (const id of workerIds) boss.notifyWorker(id);
  }

  async function start(): Promise<void> {
    await boss.start();
    await boss.createQueue(QUEUE, { name: QUEUE });
    for (let i = 0; i < options.concurrency; i++) {
      workerIds.push(
        await boss.work<{ shopId: number }>(
          QUEUE,
          { pollingIntervalSeconds: 2, batchSize: 1 },
          async ([job]) => worker.workShop(job!.data.shopId),
        ),
      );
    }
    await sweep();
    sweeper = setInterval(() => {
      sweep().catch((error: unknown) =>
        logger.warn({ err: error }, 'feed run queue: looking for runs failed'),
      );
    }, SWEEP_INTERVAL_MS);
    sweeper.unref();
  }
  let started: Promise<void> | undefined;
  let closing: Promise<void> | undefined;
  /**
   * Started once. A start that failed is tried again: at the next run queued, and on its own
   * after a pause that doubles (processes starting together race to create pg-boss's queue,
   * and the losers' statements fail or deadlock; the database may be away).
   */
  let retryDelayMs = START_RETRY_FIRST_MS;
  const ensureStarted = (): Promise<void> => {
    started ??= start().catch((error: unknown) => {
      started = undefined;
      if (closing === undefined) {
        logger.warn({ err: error, retryMs: retryDelayMs }, 'feed run queue: start failed');
        setTimeout(() => {
          if (closing === undefined && started === undefined) ensureStarted().catch(() => {});
        }, retryDelayMs).unref();
        retryDelayMs = Math.min(START_RETRY_MAX_MS, retryDelayMs * 2);
      }
      throw error;
    });
    return started;
  };

  return {
    start: ensureStarted,
    async enqueue(shopId) {
      await ensureStarted();
      await send(shopId);
    },
    close(graceMs) {
      closing ??= (async () => {
        clearInterval(sweeper);
        if (started === undefined) return;
        await started.catch(() => {});
        await boss.offWork(QUEUE).catch(() => {});
        const handedBack = await worker.stop(graceMs);
        for (const shopId of handedBack) await send(shopId).catch(() => {});
        await boss.stop({ graceful: true, wait: true, timeout: 1000 });
      })();
      return closing;
    },
  };
}
