/**
 * A run as its shop reads it (docs/api.md, "Feeds"): the report once the run is finished, the
 * same fields with zero counts before; and waiting for a run to finish, for `?wait=true`.
 */
import type { Kysely } from 'kysely';
import { findFeedRun, type FeedRunRow } from '../../db/repositories/feed-runs.ts';
import type { Database } from '../../db/types.ts';
import type { FeedRunCounts } from '../apply-run.ts';
import type { RejectedRow } from '../feed-item.ts';
import type { RunFormat } from '../feed-record.ts';
import { EMPTY_COUNTS, type FeedRunReport } from '../feed-run.ts';

/** How often a waiting request looks at a run another process applies. */
const WAIT_POLL_MS = 100;

export const RUNS_PATH_PREFIX = '/feeds/runs/';

export function runLocation(runId: string): string {
  return `${RUNS_PATH_PREFIX}${runId}`;
}

export function reportOfRow(row: FeedRunRow): FeedRunReport {
  return {
    runId: row.run_id,
    shopId: row.shop_id,
    kind: row.kind,
    format: row.format as RunFormat,
    state: row.state === 'receiving' ? 'queued' : row.state,
    receivedAt: row.received_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    reason: row.reason,
    counts: inReportOrder((row.counts as FeedRunCounts | null) ?? EMPTY_COUNTS),
    rejectedRows: (row.rejected_rows as RejectedRow[] | null) ?? [],
    ignoredColumns: (row.ignored_columns as string[] | null) ?? [],
  };
}

/** jsonb keeps keys in its own order; the report lists them as documented. */
function inReportOrder(counts: FeedRunCounts): FeedRunCounts {
  const { rows, created, updated, unchanged, withdrawn, rejected, unmatched } = counts;
  return { rows, created, updated, unchanged, withdrawn, rejected, unmatched };
}

export function isFinished(report: FeedRunReport): boolean {
  return report.state !== 'queued' && report.state !== 'running';
}

/** Runs finishing in this process, told at once; others are looked at every WAIT_POLL_MS. */
export function createRunWaiters() {
  const waiting = new Map<string, Set<() => void>>();
  return {
    finished(runId: string): void {
      for (const wake of waiting.get(runId) ?? []) wake();
    },
    /** The run once finished, or as it stands after `ms`; undefined for no such run. */
    async wait(
      db: Kysely<Database>,
      runId: string,
      ms: number,
    ): Promise<FeedRunReport | undefined> {
      const until = Date.now() + ms;
      for (;;) {
        const row = await findFeedRun(db, runId);
        if (row === undefined) return undefined;
        const report = reportOfRow(row);
        const left = until - Date.now();
        if (isFinished(report) || left <= 0) return report;
        await new Promise<void>((resolve) => {
          const wakers = waiting.get(runId) ?? new Set();
          const wake = () => {
            clearTimeout(timer);
            wakers.delete(wake);
            if (wakers.size === 0) waiting.delete(runId);
            resolve();
          };
          const timer = setTimeout(wake, Math.min(WAIT_POLL_MS, left));
          wakers.add(wake);
          waiting.set(runId, wakers);
        });
      }
    },
  };
}

export type RunWaiters = ReturnType<typeof createRunWaiters>;
