/**
 * What every subscription field shares: its stream from the process's live prices
 * (src/live/live-prices.ts), opened with the subscriber's bounds, each event resolved with the
 * loaders of its run (shared by every subscription of the process) once the database answers
 * (src/live/database-answers.ts), and the error a subscriber that fell behind ends with.
 */
import type { ExecutionResult } from 'graphql';
import type { Kysely } from 'kysely';
import { loadForRun, renewRunLoads, type RequestContext } from '../context.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import type { ProductChangeRow } from '../db/repositories/catalogue-changes.ts';
import type { Database } from '../db/types.ts';
import { serviceError } from '../errors.ts';
import {
  answeringDeadline,
  databaseAnswersBy,
  databaseAnswersFor,
} from '../live/database-answers.ts';
import { FELL_BEHIND } from '../live/live-prices.ts';
import type { MarketCode } from '../markets.ts';

/**
 * The events of the subscriber's market that `select` picks from each run's rows; `key` names
 * everything `select` depends on (subscriptions with the same key share their events). Opened
 * at once, so that a subscription past its bounds is refused before it starts (429).
 */
export function liveEvents<Event>(
  context: RequestContext,
  market: MarketCode,
  key: string,
  select: (rows: readonly ProductChangeRow[]) => Event[],
): AsyncIterable<Event | typeof FELL_BEHIND> {
  const live = context.live;
  if (!live) throw serviceError('SERVICE_UNAVAILABLE', 'live updates are not served here');
  const stream = live.prices.open({
    market,
    key,
    select,
    connection: live.connection,
    clientIp: live.clientIp,
  });
  return {
    [Symbol.asyncIterator]: () => ({
      async next(): Promise<IteratorResult<Event | typeof FELL_BEHIND>> {
        const result = await stream.next();
        if (result.done) return { value: undefined, done: true };
        if (result.value === FELL_BEHIND) return { value: FELL_BEHIND, done: false };
        const { event, run } = result.value;
        await databaseAnswersFor(run, live.db);
        loadForRun(context, run, live.db);
        if (typeof event === 'object' && event !== null && !eventRuns.has(event)) {
          eventRuns.set(event, { run, db: live.db, giveUpAt: answeringDeadline() });
        }
        return { value: event, done: false };
      },
      return: async () => {
        await stream.return!();
        return { value: undefined, done: true };
      },
    }),
  };
}

/** Each event given out: its run, where its statements go, and when it stops being retried. */
const eventRuns = new WeakMap<object, { run: object; db: Kysely<Database>; giveUpAt: number }>();

/**
 * Whether an event's answer is to be executed again: its statements found the database gone
 * (it stopped after the wait before the event), and the database answers again before the
 * event's wait runs out; the run's loaders are then renewed for `context`, since a failed
 * batch stays failed in its loader. For src/graph/shared-subscription-results.ts.
 */
export async function executeEventAgain(
  event: unknown,
  context: RequestContext,
  result: ExecutionResult,
): Promise<boolean> {
  if (typeof event !== 'object' || event === null) return false;
  const pending = eventRuns.get(event);
  if (pending === undefined || Date.now() >= pending.giveUpAt) return false;
  const away = result.errors?.some((e) => databaseConnectionFailure(e.originalError) !== undefined);
  if (!away || !(await databaseAnswersBy(pending.db, pending.giveUpAt))) return false;
  renewRunLoads(context, pending.run, pending.db);
  return true;
}

/** The event, or the error that ends the stream of a subscriber that fell behind. */
export function liveEvent<Event>(item: Event | typeof FELL_BEHIND): Event {
  if (item === FELL_BEHIND) {
    throw serviceError(
      'SERVICE_UNAVAILABLE',
      'this subscription fell too far behind its events and is closed; subscribe again and refetch what it watches',
      [{ parameter: 'subscription', reason: 'slow_consumer' }],
    );
  }
  return item;
}

/** How far a price fell, in percent of what it was (positive when it fell). */
export function dropPercent(previous: number, current: number): number {
  return Math.round(((previous - current) / previous) * 10_000) / 100;
}
