/**
 * Live prices (docs/api.md, "Live updates"; docs/operations.md, "Live updates"): every
 * subscription of this process is fed from the catalogue's announcements
 * (src/changes/catalogue-changes.ts). When a run is announced and some subscription watches
 * its market, the run's outbox rows are read once and handed to every such subscription in
 * memory; each picks the events it wants into a buffer of its own.
 *
 * Each committed run reaches a subscription once (src/changes/catalogue-changes.ts tells each
 * run once), and a run whose rows cannot be read because the database is restarting is read
 * again until it can.
 *
 * Bounds: subscriptions per connection and per client address; a buffer per subscription
 * (a subscriber that falls that far behind gets one error event and its stream ends, so a
 * slow client never holds a growing queue; its place is freed at once, whether or not it ever
 * reads that event); and `completeAll` (a shutdown) ends every stream with a regular
 * completion and refuses new ones.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { CatalogueChanges } from '../changes/catalogue-changes.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import {
  findRunProductChanges,
  type ProductChangeRow,
} from '../db/repositories/catalogue-changes.ts';
import type { Database } from '../db/types.ts';
import { serviceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { MarketCode } from '../markets.ts';
import type { AppMetrics } from '../metrics.ts';

/** What the metrics count of the streams: events taken, and subscribers that fell behind. */
export type LiveSignals = Pick<AppMetrics, 'liveEventDelivered' | 'liveSubscriberFellBehind'>;

export interface LiveLimits {
  perConnection: number;
  perClientIp: number;
  bufferEvents: number;
}

/** One client connection: an SSE request, or a WebSocket with several subscriptions. */
export interface LiveConnection {
  open: number;
}

/** What a subscription yields when it fell more than its buffer behind: its last event. */
export const FELL_BEHIND = Symbol('fell behind');

/**
 * An event with its run's rows: one array for every subscription the run reaches, by which
 * their events share what they load (src/graph/live.ts).
 */
export interface RunEvent<Event> {
  event: Event;
  run: readonly ProductChangeRow[];
}

export type LiveItem<Event> = RunEvent<Event> | typeof FELL_BEHIND;

export interface LiveRequest<Event> {
  market: MarketCode;
  /**
   * What `select` depends on: subscriptions with the same key pick the same events from a run,
   * so one pick serves them all, and they receive the same event objects (what lets an event
   * be executed once for all of them: src/graph/shared-subscription-results.ts).
   */
  key: string;
  /** The events this subscription wants from a run's rows (of its market), in order. */
  select(rows: readonly ProductChangeRow[]): Event[];
  connection: LiveConnection;
  clientIp: string;
}

export interface LivePrices {
  /** A stream of events; throws RATE_LIMITED past a bound, SERVICE_UNAVAILABLE once closing. */
  open<Event>(request: LiveRequest<Event>): AsyncIterableIterator<LiveItem<Event>>;
  /** How many subscriptions are open now. */
  count(): number;
  /** Ends every stream (a clean completion) and refuses new ones; for the shutdown. */
  completeAll(): void;
}

/** The events picked from one run, by the key of the subscriptions that picked them. */
type Picked = Map<string, unknown[]>;

interface Subscriber {
  market: MarketCode;
  offer(rows: readonly ProductChangeRow[], picked: Picked): void;
  end(): void;
}

/** Reading a run's rows again while the database cannot serve: doubling waits, capped. */
const READ_RETRY = { firstMs: 100, maxMs: 2_000 };

/**
 * `db`: where the runs' outbox rows are read; the primary, which has them as soon as the
 * announcement comes (a replica may not yet).
 */
export function createLivePrices(
  changes: CatalogueChanges,
  db: Kysely<Database>,
  limits: LiveLimits,
  logger: Logger,
  signals: LiveSignals,
): LivePrices {
  const subscribers = new Set<Subscriber>();
  const log = logger.child({ component: 'live-prices' });
  const perIp = new Map<string, number>();
  let closing = false;

  changes.subscribe(async (change) => {
    if (![...subscribers].some((s) => s.market === change.market)) return;
    const read = await readRun(db, change.runId, log, () => closing);
    if (read === undefined) return;
    const rows = read.filter((row) => row.market === change.market);
    if (rows.length === 0) return;
    // Those that subscribed while the rows were read see the run too.
    const picked: Picked = new Map();
    for (const subscriber of subscribers) {
      if (subscriber.market === change.market) subscriber.offer(rows, picked);
    }
  });

  function admit(request: { connection: LiveConnection; clientIp: string }): () => void {
    if (closing) throw serviceError('SERVICE_UNAVAILABLE', 'the server is shutting down');
    if (request.connection.open >= limits.perConnection) {
      throw serviceError(
        'RATE_LIMITED',
        `at most ${limits.perConnection} subscriptions per connection`,
        [{ parameter: 'subscription', reason: 'per_connection' }],
      );
    }
    const ofIp = perIp.get(request.clientIp) ?? 0;
    if (ofIp >= limits.perClientIp) {
      throw serviceError(
        'RATE_LIMITED',
        `at most ${limits.perClientIp} subscriptions per client address`,
        [{ parameter: 'subscription', reason: 'per_client_ip' }],
      );
    }
    request.connection.open++;
    perIp.set(request.clientIp, ofIp + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      request.connection.open--;
      const left = (perIp.get(request.clientIp) ?? 1) - 1;
      if (left > 0) perIp.set(request.clientIp, left);
      else perIp.delete(request.clientIp);
    };
  }

  return {
    open<Event>(request: LiveRequest<Event>) {
      const release = admit(request);
      const stream = bufferedStream<Event>(limits.bufferEvents, signals, () => {
        subscribers.delete(subscriber);
        release();
      });
      const subscriber: Subscriber = {
        market: request.market,
        offer(rows, picked) {
          let events = picked.get(request.key) as Event[] | undefined;
          try {
            events ??= request.select(rows);
          } catch (error) {
            log.error({ err: error }, 'live prices: a subscription failed to pick its events');
            return;
          }
          picked.set(request.key, events);
          for (const event of events) stream.push({ event, run: rows });
        },
        end: stream.end,
      };
      subscribers.add(subscriber);
      return stream.iterator;
    },
    count: () => subscribers.size,
    completeAll() {
      closing = true;
      for (const subscriber of [...subscribers]) subscriber.end();
    },
  };
}

/**
 * The run's rows; read again after a connection failure (a restarting database), until read
 * or `closing()`, when it answers undefined.
 */
async function readRun(
  db: Kysely<Database>,
  runId: string,
  log: Logger,
  closing: () => boolean,
): Promise<ProductChangeRow[] | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await findRunProductChanges(db, runId);
    } catch (error) {
      if (databaseConnectionFailure(error) === undefined) throw error;
      if (attempt === 0) {
        log.warn({ err: error, runId }, 'live prices: could not read a run, reading it again');
      }
      await sleep(Math.min(READ_RETRY.firstMs * 2 ** attempt, READ_RETRY.maxMs));
      if (closing()) return undefined;
    }
  }
}

/**
 * An async iterator fed by `push`, holding at most `bound` events for a consumer that is
 * behind: past it, what is held is dropped and FELL_BEHIND is the last item. `done` runs once,
 * as soon as the stream has ended or fallen behind, however it ended (the consumer's return,
 * `end`, or falling behind: then before the consumer takes FELL_BEHIND, which one that has
 * stopped reading never does).
 */
function bufferedStream<Event>(bound: number, signals: LiveSignals, done: () => void) {
  const held: LiveItem<Event>[] = [];
  let waiting: ((result: IteratorResult<LiveItem<Event>>) => void) | undefined;
  let ended = false;
  let finishing = false;
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    done();
  };

  const finish = () => {
    if (ended) return;
    ended = true;
    release();
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
  };

  const taken = (item: LiveItem<Event>): IteratorResult<LiveItem<Event>> => {
    if (item !== FELL_BEHIND) signals.liveEventDelivered();
    return { value: item, done: false };
  };

  const deliver = (item: LiveItem<Event>) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(taken(item));
    } else {
      held.push(item);
    }
  };

  const iterator: AsyncIterableIterator<LiveItem<Event>> = {
    next() {
      const item = held.shift();
      if (item !== undefined) return Promise.resolve(taken(item));
      if (ended || finishing) {
        finish();
        return Promise.resolve({ value: undefined, done: true });
      }
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      held.length = 0;
      finish();
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };

  return {
    iterator,
    push(event: RunEvent<Event>) {
      if (ended || finishing) return;
      if (held.length >= bound) {
        held.length = 0;
        finishing = true;
        signals.liveSubscriberFellBehind();
        release();
        deliver(FELL_BEHIND);
        return;
      }
      deliver(event);
    },
    /** Ends the stream once what it holds is taken (a clean completion). */
    end() {
      if (ended) return;
      finishing = true;
      if (held.length === 0) finish();
    },
  };
}
