/**
 * Announcements of feed runs, to every process (docs/operations.md, "Catalogue changes"): a
 * run announces itself inside its own transaction (`announceRun`), so the announcement is
 * delivered when the run commits and never for one rolled back. The payload is the run id
 * only (NOTIFY payloads are bounded); a listener reads what the run changed from the outbox.
 * The response cache drops what a run made stale on hearing it; live updates publish it.
 *
 * On a Postgres server each process listens on a connection of its own, outside the pool,
 * reconnecting with backoff when it drops; runs committed while it was down are read back
 * from the outbox when it is up again, before those announced meanwhile. Each run is followed
 * once: not again when read back, nor one the outbox held when the process began listening.
 * The embedded database is one process: PGlite delivers the same notification to its own
 * listeners after the commit. The same connection hears the operators' notices
 * (src/changes/notices.ts) and runs the process's other upkeep statements.
 */
import { sql, type CompiledQuery, type Transaction } from 'kysely';
import pg from 'pg';
import type { DatabaseHandle } from '../db/client.ts';
import {
  runChange,
  runsSince,
  latestChangeSequence,
  type RunChangeRow,
} from '../db/repositories/catalogue-changes.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import { isMarketCode, type MarketCode } from '../markets.ts';
import { NOTICES_CHANNEL, readNotice, type NoticeHandler } from './notices.ts';

/** The notification channel; its payload is a run id. */
export const CATALOGUE_CHANGES_CHANNEL = 'catalogue_changes';

/** What one committed run changed in the catalogue. */
export interface CatalogueChange {
  runId: string;
  market: MarketCode;
  shopId: number;
  /** Every product whose offers in the market the run changed. */
  productIds: number[];
}

export type CatalogueChangeHandler = (change: CatalogueChange) => void | Promise<void>;

export interface CatalogueChanges {
  /**
   * Calls `handler` once with each run committed from now on, in the order heard;
   * unsubscribes.
   */
  subscribe(handler: CatalogueChangeHandler): () => void;
  /** Calls `handler` with each operator's notice heard from now on; unsubscribes. */
  onNotice(handler: NoticeHandler): () => void;
  /**
   * Runs a statement of the process's upkeep (not a request's): on a server on the listening
   * connection, so it takes none of the pool's connections (the pool's while that is down).
   */
  read<Row>(statement: CompiledQuery<Row>): Promise<Row[]>;
  /** Settles once the first attempt to listen has succeeded or failed (tests wait for it). */
  ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Announces the run to every process once its transaction commits. Call it inside the run's
 * transaction, after its outbox rows are written, and only when it wrote some: a run that
 * changed nothing has nothing to announce.
 */
export async function announceRun(trx: Transaction<Database>, runId: string): Promise<void> {
  await sql`select pg_notify(${CATALOGUE_CHANGES_CHANNEL}, ${runId})`.execute(trx);
}

/** Reconnection delays on a server: doubling from the first, capped. */
export interface ReconnectDelays {
  firstMs: number;
  maxMs: number;
}

const DEFAULT_DELAYS: ReconnectDelays = { firstMs: 250, maxMs: 10_000 };

export function followCatalogueChanges(
  database: DatabaseHandle,
  logger: Logger,
  delays: ReconnectDelays = DEFAULT_DELAYS,
): CatalogueChanges {
  const handlers = new Set<CatalogueChangeHandler>();
  const noticeHandlers = new Set<NoticeHandler>();
  const heardUpTo: HeardUpTo = { sequence: undefined, runs: recentRuns(REMEMBERED_RUNS) };
  // Runs are handled one after the other, in the order heard.
  let handled: Promise<void> = Promise.resolve();
  const heard = (runId: string) => {
    handled = handled.then(() => deliver(runId));
  };
  // Notices are answered as they come, beside the runs: none waits for a run's handlers.
  const noticed = (payload: string) => {
    const notice = readNotice(payload);
    if (notice === undefined) return;
    for (const handler of noticeHandlers) {
      void (async () => handler(notice))().catch((error: unknown) =>
        logger.error({ err: error, notice }, 'catalogue changes: a notice’s handler failed'),
      );
    }
  };

  async function deliver(runId: string): Promise<void> {
    // Told again by a catch-up, or from before this process listened: followed already.
    if (heardUpTo.runs.has(runId)) return;
    let row: RunChangeRow | undefined;
    try {
      [row] = await source.read(runChange(database.db, runId));
    } catch (error) {
      logger.error({ err: error, runId }, 'catalogue changes: could not read the run’s changes');
      return;
    }
    heardUpTo.runs.add(runId);
    // A rerun that changed nothing wrote no outbox rows: nothing to follow.
    if (row === undefined || !isMarketCode(row.market)) return;
    if (
      heardUpTo.sequence === undefined ||
      BigInt(row.last_sequence) > BigInt(heardUpTo.sequence)
    ) {
      heardUpTo.sequence = row.last_sequence;
    }
    const change = { runId, market: row.market, shopId: row.shop_id, productIds: row.product_ids };
    for (const handler of handlers) {
      try {
        await handler(change);
      } catch (error) {
        logger.error({ err: error, runId }, 'catalogue changes: a subscriber failed');
      }
    }
  }

  const source =
    database.kind === 'embedded' && database.pglite
      ? listenEmbedded(database, { heard, noticed })
      : listenOnServer(database, logger, delays, { heard, noticed }, heardUpTo);

  return {
    subscribe(handler) {
      handlers.add(handler);
      return () => handlers.delete(handler);
    },
    onNotice(handler) {
      noticeHandlers.add(handler);
      return () => noticeHandlers.delete(handler);
    },
    read: (statement) => source.read(statement),
    ready: source.ready,
    async close() {
      handlers.clear();
      noticeHandlers.clear();
      await source.close();
      await handled;
    },
  };
}

interface Source {
  ready: Promise<void>;
  /**
   * Runs a statement of the follower's own: on a server, on the listening connection (the
   * process's upkeep, none of the pool's, nor a statement a request is counted by).
   */
  read<Row>(statement: CompiledQuery<Row>): Promise<Row[]>;
  close(): Promise<void>;
}

/** What a listener is told: a run's id, an operator's notice (its payload). */
interface Heard {
  heard(runId: string): void;
  noticed(payload: string): void;
}

function listenEmbedded(database: DatabaseHandle, { heard, noticed }: Heard): Source {
  const unlistens = [
    database.pglite!.listen(CATALOGUE_CHANGES_CHANNEL, heard),
    database.pglite!.listen(NOTICES_CHANNEL, noticed),
  ];
  // An instance closed before the listening began (an app dropped with its database) ends it:
  // nothing to follow, and nothing to report to a process no one listens to.
  const listening = Promise.all(unlistens).catch(() => undefined);
  return {
    ready: listening.then(() => undefined),
    read: async (statement) => (await database.db.executeQuery(statement)).rows,
    async close() {
      for (const unlisten of (await listening) ?? []) await unlisten().catch(() => undefined);
    },
  };
}

/** Outbox rows read again before the last one heard, after a lost connection. */
const REPLAY_MARGIN_ROWS = 5000;

/**
 * Runs remembered as heard: every run a catch-up can tell again lies within its margin of
 * outbox rows before the last run heard, each run at least one row.
 */
const REMEMBERED_RUNS = 2 * REPLAY_MARGIN_ROWS;

/** How far the follower has heard: the last run's outbox position, and the runs lately heard. */
interface HeardUpTo {
  sequence: string | undefined;
  runs: ReturnType<typeof recentRuns>;
}

/** The last `capacity` run ids added, oldest forgotten first. */
function recentRuns(capacity: number) {
  const runs = new Set<string>();
  return {
    has: (runId: string) => runs.has(runId),
    add(runId: string) {
      runs.add(runId);
      if (runs.size > capacity) runs.delete(runs.values().next().value!);
    },
  };
}

/** Runs a compiled statement on the listening connection. */
async function onConnection<Row>(connection: pg.Client, statement: CompiledQuery<Row>) {
  return (await connection.query(statement.sql, [...statement.parameters])).rows as Row[];
}

/**
 * Where the outbox stands once listening: the first time, its last position, and the runs a
 * catch-up could tell again are heard (what it holds is the past: no subscriber of this
 * process is owed their events); after a lost connection, the runs since the last one heard,
 * told to `replay` again. Read on the listening connection itself: the process's own upkeep,
 * none of the pool's (nor of the statements a request is counted by).
 */
async function catchUp(
  database: DatabaseHandle,
  connection: pg.Client,
  heardUpTo: HeardUpTo,
  replay: ((runId: string) => void) | undefined,
): Promise<void> {
  if (heardUpTo.sequence === undefined) {
    const [latest] = await onConnection(connection, latestChangeSequence(database.db));
    const sequence = latest?.sequence ?? '0';
    const past = runsSince(database.db, sequence, REPLAY_MARGIN_ROWS);
    for (const { run_id } of await onConnection(connection, past)) heardUpTo.runs.add(run_id);
    heardUpTo.sequence = sequence;
    return;
  }
  if (replay === undefined) return;
  const missed = runsSince(database.db, heardUpTo.sequence, REPLAY_MARGIN_ROWS);
  for (const { run_id } of await onConnection(connection, missed)) replay(run_id);
}

/** A connection of the follower's own, on the pool's server and database. */
function listeningClient(database: DatabaseHandle): pg.Client {
  return new pg.Client({
    connectionString: database.pool.options.connectionString,
    application_name: `${database.applicationName}/listen`,
    connectionTimeoutMillis: 10_000,
    keepAlive: true,
  });
}

/**
 * A connection of its own (LISTEN holds it for the process's life, which a pooled one must
 * not), reopened after any failure; never throws, never stops the process. After a lost
 * connection the runs since the last one heard are announced again, before any announced
 * meanwhile (some twice: following a run must be idempotent).
 */
function listenOnServer(
  database: DatabaseHandle,
  logger: Logger,
  delays: ReconnectDelays,
  { heard, noticed }: Heard,
  heardUpTo: HeardUpTo,
): Source {
  let current: pg.Client | undefined;
  /** `current` once it listens: the connection the follower's own statements run on. */
  let connected: pg.Client | undefined;
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let listening: Promise<void> = open();
  const ready = listening;

  async function open(): Promise<void> {
    const next = listeningClient(database);
    current = next;
    // After a lost connection, the runs announced while the missed ones are read back wait for
    // them: a run is never followed before an earlier one it missed.
    let held: string[] | undefined = failures > 0 ? [] : undefined;
    next.on('notification', ({ channel, payload }) => {
      if (channel === NOTICES_CHANNEL && payload) return noticed(payload);
      if (channel !== CATALOGUE_CHANGES_CHANNEL || !payload) return;
      if (held) held.push(payload);
      else heard(payload);
    });
    next.on('error', (error) => lost(next, error));
    next.on('end', () => lost(next, new Error('the connection ended')));
    try {
      await next.connect();
      await next.query(`listen ${CATALOGUE_CHANGES_CHANNEL}; listen ${NOTICES_CHANNEL}`);
    } catch (error) {
      lost(next, error);
      return;
    }
    connected = next;
    if (closed) return;
    const reconnected = failures > 0;
    if (reconnected) {
      logger.info({ channel: CATALOGUE_CHANGES_CHANNEL }, 'catalogue changes: listening again');
      failures = 0;
    }
    try {
      await catchUp(database, next, heardUpTo, reconnected ? heard : undefined);
    } catch (error) {
      // Listening again, and trying again, reads them (and the held runs) back.
      logger.error({ err: error }, 'catalogue changes: could not read the runs missed');
      held = undefined;
      lost(next, error);
      return;
    }
    const waiting = held ?? [];
    held = undefined;
    for (const runId of waiting) heard(runId);
  }

  function lost(which: pg.Client, error: unknown): void {
    if (connected === which) connected = undefined;
    if (closed || which !== current) return;
    current = undefined;
    which.removeAllListeners('end');
    void which.end().catch(() => undefined);
    const delay = Math.min(delays.firstMs * 2 ** failures, delays.maxMs);
    failures++;
    // The first failure of an outage is a warning; the retries that follow are quieter.
    (failures === 1 ? logger.warn : logger.debug).call(
      logger,
      { err: error, channel: CATALOGUE_CHANGES_CHANNEL, retryInMs: delay },
      'catalogue changes: not listening, reconnecting',
    );
    retry = setTimeout(() => {
      retry = undefined;
      listening = open();
    }, delay);
    retry.unref();
  }

  return {
    ready,
    async read(statement) {
      // While the listening connection is down, the pool's (the runs are replayed anyway).
      const client = connected;
      if (client === undefined) return (await database.db.executeQuery(statement)).rows;
      return onConnection(client, statement);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      await listening;
      const last = current;
      current = undefined;
      connected = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
