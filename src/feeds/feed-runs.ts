/**
 * Feed runs in a serving process: the routes that make runs, the queue they wait in, and this
 * process's worker that applies them (docs/operations.md, "Feed runs").
 */
import type { Config } from '../config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import type { Logger } from '../logger.ts';
import type { Lookup } from '../http/router.ts';
import type { AppMetrics } from '../metrics.ts';
import type { AppliedFeedRun } from './apply-run.ts';
import { startRunQueue } from './run-queue.ts';
import { createRunWorker } from './run-worker.ts';
import { feedRoutes } from './routes/feed-routes.ts';
import { createRunWaiters } from './routes/run-report.ts';

export interface FeedRunsOptions {
  config: Pick<
    Config,
    'feedMaxRejectedShare' | 'feedMaxBytes' | 'feedStallSeconds' | 'feedWaitSeconds' | 'feedWorkers'
  >;
  database: Pick<DatabaseHandle, 'db' | 'pool'>;
  logger: Logger;
  metrics: Pick<AppMetrics, 'feedRunFinished'>;
  /** Told after each applied run commits. */
  onApplied?(applied: AppliedFeedRun, shopId: number): void;
}

export interface FeedRuns {
  routes: Lookup;
  /** Takes queued runs from now on, first those a stopped process left. */
  start(): Promise<void>;
  close(graceMs: number): Promise<void>;
}

export function createFeedRuns({
  config,
  database,
  logger,
  metrics,
  onApplied,
}: FeedRunsOptions): FeedRuns {
  const log = logger.child({ component: 'feed-runs' });
  const waiters = createRunWaiters();
  const worker = createRunWorker({
    db: database.db,
    logger: log,
    maxRejectedShare: config.feedMaxRejectedShare,
    ...(onApplied ? { onApplied } : {}),
    onFinished: (report) => {
      waiters.finished(report.runId);
      const seconds = (Date.parse(report.finishedAt!) - Date.parse(report.receivedAt)) / 1000;
      metrics.feedRunFinished(report.kind, report.state, seconds);
    },
  });
  const stallMs = config.feedStallSeconds * 1000;
  const queue = startRunQueue({
    db: database.db,
    pool: database.pool,
    worker,
    concurrency: config.feedWorkers,
    stalledAfterMs: 2 * stallMs,
    logger: log,
  });
  return {
    routes: feedRoutes({
      db: database.db,
      queue,
      waiters,
      bounds: { maxBytes: config.feedMaxBytes, stallMs },
      waitMs: config.feedWaitSeconds * 1000,
    }),
    start: () => queue.start(),
    close: (graceMs) => queue.close(graceMs),
  };
}
