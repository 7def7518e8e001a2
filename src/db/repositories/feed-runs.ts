/**
 * Feed runs and their bodies (docs/api.md, "Feeds"): a run is recorded while its body
 * arrives, queued once it has, taken by one worker at a time per shop (oldest first), and
 * finished with its report. A body is kept in chunks until its run is finished, so any
 * process can read it, and a run cut off by a crash can start again.
 */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database, FeedRunsTable, FeedRunState } from '../types.ts';

export type FeedRunRow = Selectable<FeedRunsTable>;

/** The states of a run that still has to be applied: its worker takes them oldest first. */
const UNFINISHED: FeedRunState[] = ['queued', 'running'];

export interface NewFeedRun {
  runId: string;
  shopId: number;
  kind: 'full' | 'push';
  format: string;
  gzip: boolean;
  receivedAt: Date;
  /** `receiving` while a body is still to arrive; `queued` when the run is complete as it is. */
  state: 'receiving' | 'queued';
  withdrawItemIds?: readonly string[];
}

export async function createFeedRun(db: Kysely<Database>, run: NewFeedRun): Promise<void> {
  await db
    .insertInto('feed_runs')
    .values({
      run_id: run.runId,
      shop_id: run.shopId,
      kind: run.kind,
      format: run.format,
      gzip: run.gzip,
      state: run.state,
      received_at: run.receivedAt,
      touched_at: run.receivedAt,
      withdraw_item_ids: [...(run.withdrawItemIds ?? [])],
    })
    .execute();
}

/** One more chunk of a run's body, in order from 0. */
export async function appendFeedRunBody(
  db: Kysely<Database>,
  runId: string,
  sequence: number,
  chunk: Uint8Array,
): Promise<void> {
  await sql`
    with stored as (
      insert into feed_run_bodies (run_id, sequence, chunk) values (${runId}, ${sequence}, ${chunk})
    )
    update feed_runs set body_bytes = body_bytes + ${chunk.byteLength}, touched_at = now()
     where run_id = ${runId}`.execute(db);
}

/** The body has arrived whole: the run waits for its shop's worker. */
export async function queueFeedRun(db: Kysely<Database>, runId: string): Promise<void> {
  await db
    .updateTable('feed_runs')
    .set({ state: 'queued', touched_at: new Date() })
    .where('run_id', '=', runId)
    .where('state', '=', 'receiving')
    .execute();
}

/** A body that never arrived whole: the run and what came of its body, gone. */
export async function discardFeedRun(db: Kysely<Database>, runId: string): Promise<void> {
  await db.deleteFrom('feed_run_bodies').where('run_id', '=', runId).execute();
  await db.deleteFrom('feed_runs').where('run_id', '=', runId).execute();
}

/** A run as its shop may see it (never one whose body is still arriving). */
export function findFeedRun(db: Kysely<Database>, runId: string): Promise<FeedRunRow | undefined> {
  return db
    .selectFrom('feed_runs')
    .selectAll()
    .where('run_id', '=', runId)
    .where('state', '<>', 'receiving')
    .executeTakeFirst();
}

/** A shop's runs, newest first, from after `before` (a run id of the previous page). */
export async function findShopFeedRuns(
  db: Kysely<Database>,
  shopId: number,
  page: { limit: number; before?: { receivedAt: string; runId: string } },
): Promise<FeedRunRow[]> {
  let query = db
    .selectFrom('feed_runs')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('state', '<>', 'receiving');
  if (page.before) {
    const { receivedAt, runId } = page.before;
    query = query.where(
      sql<boolean>`(received_at, run_id) < (${receivedAt}::timestamptz, ${runId}::uuid)`,
    );
  }
  return query.orderBy('received_at', 'desc').orderBy('run_id', 'desc').limit(page.limit).execute();
}

/** The shop's oldest run still to apply (a `running` one only when its worker is gone). */
export function findNextUnfinishedRun(
  db: Kysely<Database>,
  shopId: number,
): Promise<FeedRunRow | undefined> {
  return db
    .selectFrom('feed_runs')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('state', 'in', UNFINISHED)
    .orderBy('received_at')
    .orderBy('run_id')
    .limit(1)
    .executeTakeFirst();
}

/** The shops with runs still to apply: what a worker starting up sees to. */
export async function findShopsWithUnfinishedRuns(db: Kysely<Database>): Promise<number[]> {
  const rows = await db
    .selectFrom('feed_runs')
    .select('shop_id')
    .distinct()
    .where('state', 'in', UNFINISHED)
    .execute();
  return rows.map((row) => row.shop_id);
}

/** A worker takes the run: one more attempt. */
export async function startFeedRun(db: Kysely<Database>, runId: string): Promise<void> {
  const now = new Date();
  await db
    .updateTable('feed_runs')
    .set((eb) => ({
      state: 'running',
      started_at: now,
      touched_at: now,
      attempts: eb('attempts', '+', 1),
    }))
    .where('run_id', '=', runId)
    .execute();
}

/** A worker stopping gives the run back untouched, the attempt not counted. */
export async function handBackFeedRun(db: Kysely<Database>, runId: string): Promise<void> {
  await db
    .updateTable('feed_runs')
    .set((eb) => ({ state: 'queued', attempts: eb('attempts', '-', 1), touched_at: new Date() }))
    .where('run_id', '=', runId)
    .where('state', '=', 'running')
    .execute();
}

export interface FinishedFeedRun {
  state: 'applied' | 'rejected' | 'failed';
  finishedAt: string;
  reason: string | null;
  counts: unknown;
  rejectedRows: unknown;
  ignoredColumns: unknown;
}

export async function finishFeedRun(
  db: Kysely<Database>,
  runId: string,
  finished: FinishedFeedRun,
): Promise<void> {
  await db
    .updateTable('feed_runs')
    .set({
      state: finished.state,
      finished_at: finished.finishedAt,
      touched_at: finished.finishedAt,
      reason: finished.reason,
      counts: JSON.stringify(finished.counts),
      rejected_rows: JSON.stringify(finished.rejectedRows),
      ignored_columns: JSON.stringify(finished.ignoredColumns),
    })
    .where('run_id', '=', runId)
    .execute();
}

/** A run's body, chunk by chunk in order, each read when asked for. */
export async function* readFeedRunBody(
  db: Kysely<Database>,
  runId: string,
): AsyncGenerator<Uint8Array> {
  for (let sequence = 0; ; sequence++) {
    const row = await db
      .selectFrom('feed_run_bodies')
      .select('chunk')
      .where('run_id', '=', runId)
      .where('sequence', '=', sequence)
      .executeTakeFirst();
    if (row === undefined) return;
    yield row.chunk;
  }
}

/** The bodies of finished runs, and runs whose body stopped arriving before `staleBefore`. */
export async function removeFeedRunLeftovers(
  db: Kysely<Database>,
  staleBefore: Date,
): Promise<void> {
  const before = staleBefore.toISOString();
  await sql`
    delete from feed_run_bodies b using feed_runs r
     where r.run_id = b.run_id and r.state in ('applied', 'rejected', 'failed')`.execute(db);
  const stale = db
    .selectFrom('feed_runs')
    .select('run_id')
    .where('state', '=', 'receiving')
    .where('touched_at', '<', before);
  await db.deleteFrom('feed_run_bodies').where('run_id', 'in', stale).execute();
  await db
    .deleteFrom('feed_runs')
    .where('state', '=', 'receiving')
    .where('touched_at', '<', before)
    .execute();
}

/** A finished run's body, no longer needed. */
export async function removeFeedRunBody(db: Kysely<Database>, runId: string): Promise<void> {
  await db.deleteFrom('feed_run_bodies').where('run_id', '=', runId).execute();
}
