/**
 * Applies a shop's queued runs, oldest first, one at a time in every process (the shop's lock,
 * src/db/repositories/feed-run-locks.ts). A run cut off by a crash or a database restart stays
 * `running` with its body kept: the next worker for the shop starts it again, and after
 * MAX_ATTEMPTS marks it `failed`. A worker asked to stop lets its run finish, or, past the
 * grace given, rolls it back and hands it back to the queue untouched (docs/api.md, "Feeds").
 */
import type { Kysely } from 'kysely';
import {
  finishFeedRun,
  findNextUnfinishedRun,
  handBackFeedRun,
  readFeedRunBody,
  removeFeedRunBody,
  startFeedRun,
  type FeedRunRow,
  type FinishedFeedRun,
} from '../db/repositories/feed-runs.ts';
import { tryLockShopRuns, unlockShopRuns } from '../db/repositories/feed-run-locks.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import { UnknownShopError, type AppliedFeedRun } from './apply-run.ts';
import type { RunFormat } from './feed-record.ts';
import { EMPTY_COUNTS, runFeed, type FeedRunReport } from './feed-run.ts';

/** Starts of one run before it is given up as `failed`. */
export const MAX_ATTEMPTS = 3;

/** The longest pause between looks at a shop whose run the database's absence cut off. */
const RETRY_MAX_DELAY_MS = 16_000;

/** The run was rolled back because its worker is stopping: it goes back to the queue. */
class HandedBack extends Error {}

export interface RunWorkerOptions {
  db: Kysely<Database>;
  logger: Logger;
  maxRejectedShare: number;
  /** Told after each applied run commits (the response cache follows it). */
  onApplied?(applied: AppliedFeedRun, shopId: number): void;
  /** Told of each run finished, whatever its state. */
  onFinished?(report: FeedRunReport): void;
}

export interface RunWorker {
  /**
   * Applies the shop's unfinished runs until none is left. Returns at once when another
   * worker holds the shop: that one looks for more runs after releasing it.
   */
  workShop(shopId: number): Promise<void>;
  /**
   * No new runs; the running ones finish within `graceMs`, or are handed back. Resolves with
   * the shops whose runs were handed back, for the queue to send again.
   */
  stop(graceMs: number): Promise<number[]>;
}

/** What applying one run needs of its worker. */
interface RunTurn {
  options: RunWorkerOptions;
  /** Whether the worker is rolling its runs back to stop. */
  interrupting(): boolean;
  /** Shops whose runs were handed back, for the queue to send again. */
  handedBack: Set<number>;
}

/** A stored body, read in the run's transaction; a stopping worker's read hands it back. */
async function* storedBody(turn: RunTurn, trx: Kysely<Database>, runId: string) {
  for await (const chunk of readFeedRunBody(trx, runId)) {
    if (turn.interrupting()) throw new HandedBack(`run ${runId} handed back`);
    yield chunk;
  }
}

async function finish(turn: RunTurn, conn: Kysely<Database>, report: FeedRunReport) {
  if (report.state !== 'applied') {
    await finishFeedRun(conn, report.runId, finishedRun(report));
  }
  await removeFeedRunBody(conn, report.runId);
  turn.options.logger.info(
    { runId: report.runId, shopId: report.shopId, state: report.state, counts: report.counts },
    'feed run finished',
  );
  turn.options.onFinished?.(report);
}

function finishedRun(report: FeedRunReport): FinishedFeedRun {
  return {
    state: report.state as FinishedFeedRun['state'],
    finishedAt: report.finishedAt ?? new Date().toISOString(),
    reason: report.reason,
    counts: report.counts,
    rejectedRows: report.rejectedRows,
    ignoredColumns: report.ignoredColumns,
  };
}

async function applyRun(turn: RunTurn, conn: Kysely<Database>, run: FeedRunRow): Promise<void> {
  const { options } = turn;
  if (run.state === 'running' && run.attempts >= MAX_ATTEMPTS) {
    const reason = `interrupted ${run.attempts} times (a process stopped or the database restarted mid-run): not applied`;
    await finish(turn, conn, failedReport(run, reason));
    return;
  }
  await startFeedRun(conn, run.run_id);
  let report: FeedRunReport;
  try {
    report = await runFeed(conn, {
      runId: run.run_id,
      shopId: run.shop_id,
      kind: run.kind,
      format: run.format as RunFormat,
      gzip: run.gzip,
      receivedAt: run.received_at,
      body: (trx) => storedBody(turn, trx, run.run_id),
      withdrawItemIds: run.withdraw_item_ids,
      maxRejectedShare: run.kind === 'full' ? options.maxRejectedShare : 1,
      recordApplied: (trx, applied) => finishFeedRun(trx, run.run_id, finishedRun(applied)),
      onApplied: (applied) => options.onApplied?.(applied, run.shop_id),
    });
  } catch (error) {
    if (error instanceof HandedBack) {
      await handBackFeedRun(conn, run.run_id);
      turn.handedBack.add(run.shop_id);
      throw error;
    }
    // The database went away: the run stays `running`, and is started again.
    if (databaseConnectionFailure(error) !== undefined) throw error;
    options.logger.error({ err: error, runId: run.run_id }, 'feed run failed');
    const reason =
      error instanceof UnknownShopError
        ? error.message
        : `could not be applied: ${(error as Error).message}`;
    report = failedReport(run, reason);
  }
  await finish(turn, conn, report);
}

export function createRunWorker(options: RunWorkerOptions): RunWorker {
  const { db } = options;
  /** Shops this process works on, and whether more runs came while it did. */
  const working = new Map<number, { again: boolean; done: Promise<void> }>();
  let stopping = false;
  let interrupting = false;
  const turn: RunTurn = { options, interrupting: () => interrupting, handedBack: new Set() };

  /** One turn with the shop's lock: its next run applied, or none left, or the lock held elsewhere. */
  async function applyNext(shopId: number): Promise<'applied' | 'none' | 'busy'> {
    return db.connection().execute(async (conn) => {
      if (!(await tryLockShopRuns(conn, shopId))) return 'busy';
      try {
        const run = await findNextUnfinishedRun(conn, shopId);
        if (run === undefined) return 'none';
        await applyRun(turn, conn, run);
        return 'applied';
      } finally {
        await unlockShopRuns(conn, shopId);
      }
    });
  }

  async function drainShop(shopId: number, state: { again: boolean }): Promise<void> {
    while (!stopping) {
      state.again = false;
      const outcome = await applyNext(shopId);
      if (outcome === 'busy') return;
      // Runs queued while the lock was held but after the last look: one more look.
      if (outcome === 'none' && !state.again && !(await hasUnfinished(shopId))) return;
    }
  }

  async function hasUnfinished(shopId: number): Promise<boolean> {
    return (await findNextUnfinishedRun(db, shopId)) !== undefined;
  }

  /**
   * The database went away mid-run: looked at again soon, sooner than the queue's sweep, once
   * a second, then less often (the job's own failure may not be recorded while it is away).
   */
  function retryLater(shopId: number, attempt: number): void {
    const delayMs = Math.min(RETRY_MAX_DELAY_MS, 1000 * 2 ** attempt);
    setTimeout(() => {
      if (stopping) return;
      work(shopId, attempt + 1).catch(() => {});
    }, delayMs).unref();
  }

  function work(shopId: number, attempt = 0): Promise<void> {
    if (stopping) return Promise.resolve();
    const current = working.get(shopId);
    if (current) {
      current.again = true;
      return current.done;
    }
    const state = { again: false, done: Promise.resolve() };
    state.done = drainShop(shopId, state)
      .catch((error: unknown) => {
        if (error instanceof HandedBack) return;
        if (databaseConnectionFailure(error) !== undefined) retryLater(shopId, attempt);
        throw error;
      })
      .finally(() => working.delete(shopId));
    working.set(shopId, state);
    return state.done;
  }

  return {
    workShop: (shopId) => work(shopId),
    async stop(graceMs) {
      stopping = true;
      const running = Promise.allSettled([...working.values()].map((state) => state.done));
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'over'>((resolve) => {
        timer = setTimeout(() => resolve('over'), graceMs);
      });
      if ((await Promise.race([running, graceOver])) === 'over') {
        // Said, so that a stop that outlasts the grace shows why (a run past its body's end
        // is writing, and finishes rather than be handed back).
        options.logger.warn(
          { shopIds: [...working.keys()], graceMs },
          'feed runs still running after the grace: those still reading their feed are handed back',
        );
        interrupting = true;
        await running;
      }
      clearTimeout(timer);
      return [...turn.handedBack];
    },
  };
}

function failedReport(run: FeedRunRow, reason: string): FeedRunReport {
  return {
    runId: run.run_id,
    shopId: run.shop_id,
    kind: run.kind,
    format: run.format as RunFormat,
    state: 'failed',
    receivedAt: run.received_at,
    startedAt: run.started_at,
    finishedAt: new Date().toISOString(),
    reason,
    counts: EMPTY_COUNTS,
    rejectedRows: [],
    ignoredColumns: [],
  };
}
