/**
 * Waits, once per run, until the database answers before a run's events are resolved. A run
 * committed in the instant before Postgres stopped reaches the subscribers while it is down:
 * resolved then, its events would carry "the catalogue is unavailable" instead of what the run
 * changed. Resolved once the database is back, they carry it. The wait is bounded: past it,
 * the events are resolved anyway and carry the error. An event whose statements find the
 * database gone after the wait (it stopped in between) waits again (`databaseAnswersBy`).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import type { Database } from '../db/types.ts';

/** As long as a fast restart takes, with room; the catch-up after a longer outage resends. */
const MAX_WAIT_MS = 30_000;
const FIRST_PAUSE_MS = 100;
const MAX_PAUSE_MS = 2_000;

const waits = new WeakMap<object, Promise<boolean>>();

/** When a wait that begins now gives up. */
export function answeringDeadline(): number {
  return Date.now() + MAX_WAIT_MS;
}

/** Settles once `db` answers a statement (or the wait ran out): at most one wait per run. */
export async function databaseAnswersFor(run: object, db: Kysely<Database>): Promise<void> {
  let wait = waits.get(run);
  if (!wait) waits.set(run, (wait = databaseAnswersBy(db, answeringDeadline())));
  await wait;
}

/**
 * Whether `db` answers a statement by `giveUpAt` (asked again, with growing pauses, while it is
 * away); true too for a failure other than the database being away, which the events' own
 * statements report.
 */
export async function databaseAnswersBy(db: Kysely<Database>, giveUpAt: number): Promise<boolean> {
  for (let pause = FIRST_PAUSE_MS; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
    try {
      await sql`select 1`.execute(db);
      return true;
    } catch (error) {
      if (databaseConnectionFailure(error) === undefined) return true;
      if (Date.now() >= giveUpAt) return false;
    }
    await sleep(pause);
  }
}
