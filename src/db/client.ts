/**
 * The one place that opens a database: a Postgres server through `pg.Pool` when a URL is
 * given, otherwise the embedded PGlite through its node-postgres adapter. Both go through
 * Kysely's PostgresDialect, so every query and migration runs the same way on either.
 */
import { mkdir } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import {
  CompiledQuery,
  Kysely,
  PostgresDialect,
  type DatabaseConnection,
  type LogEvent,
  type PostgresPool,
} from 'kysely';
import pg from 'pg';
import { CopyInRows, copyInOnPglite, copyInOnServer, type CopyInResult } from './copy-in.ts';
import { preparedStatementName } from './prepared.ts';
import { ReadRoutingDialect, type DatabaseStatus, type ReplicaServer } from './replicas.ts';
import { timestamptzToIso } from './timestamps.ts';
import type { Database } from './types.ts';

const { builtins } = pg.types;
// node-postgres names no constant for numeric[]; 1231 is its fixed oid in pg_type.
const NUMERIC_ARRAY_OID = 1231 as (typeof builtins)['NUMERIC'];

// Prices are numeric(12,2) and counts may be int8: both fit a double exactly at our
// magnitudes, and callers want numbers, not strings. Dates stay 'YYYY-MM-DD' strings so no
// time zone can shift a calendar day. Timestamps are only ever re-serialised (the API writes
// them as ISO 8601): they arrive as that ISO string, rewritten from Postgres' text, not
// parsed into a Date per value (src/db/timestamps.ts).
const parseNumericArray = pg.types.getTypeParser(NUMERIC_ARRAY_OID);
pg.types.setTypeParser(builtins.INT8, Number);
pg.types.setTypeParser(builtins.NUMERIC, Number);
pg.types.setTypeParser(NUMERIC_ARRAY_OID, (value: string) =>
  (parseNumericArray(value) as (string | null)[]).map((item) =>
    item === null ? null : Number(item),
  ),
);
pg.types.setTypeParser(builtins.DATE, (value: string) => value);
pg.types.setTypeParser(builtins.TIMESTAMPTZ, timestamptzToIso);

/** How a client runs a COPY FROM STDIN whose rows come as its one parameter (./copy-in.ts). */
type CopyIn = (client: pg.Client, text: string, rows: CopyInRows) => Promise<CopyInResult>;

/**
 * The pool's client class: a statement `executePrepared` has named (src/db/prepared.ts) goes
 * with that name after `namePrefix`, so the connection parses and plans it once; node-postgres
 * remembers per connection which names it has parsed (a connection opened after a server
 * restart has none and parses again). A COPY from Kysely (./copy-in.ts) goes to `copyIn`.
 * Kysely's PostgresConnection calls `query(text, values)`; every other call (a config object,
 * a cursor, a callback) goes as it is.
 */
function preparingClient(namePrefix: string, copyIn: CopyIn): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    // `never` stands for the result of whichever overload of pg's `query` the call matches.
    override query(...args: unknown[]): never {
      const send = super.query as (...args: unknown[]) => never;
      const [text, values] = args;
      const rows = Array.isArray(values) ? values[0] : undefined;
      if (typeof text === 'string' && rows instanceof CopyInRows) {
        return copyIn(this, text, rows) as never;
      }
      const name =
        typeof text === 'string' && args.length === 2 ? preparedStatementName(text) : undefined;
      return name === undefined
        ? send.apply(this, args)
        : send.call(this, { name: namePrefix + name, text, values });
    }
  };
}

/** What Postgres shows of a connection (`pg_stat_activity.application_name`) unless told. */
export const APPLICATION_NAME = 'catalogue-gateway';

/** A pool of connections to a PostgreSQL server (the primary or a replica). */
function serverPool(url: string, applicationName: string, poolSize = 10): pg.Pool {
  return new pg.Pool({
    connectionString: url,
    // A URL that sets `application_name` itself wins (node-postgres reads the URL last).
    application_name: applicationName,
    max: poolSize,
    // A host that drops packets must fail start-up and readiness, not hang them.
    connectionTimeoutMillis: 10_000,
    // In UTC, timestamps arrive in the form src/db/timestamps.ts rewrites without a Date, and
    // `current_date` is the UTC day whatever the server's own time zone. Without JIT: the
    // catalogue's statements run in milliseconds, and a count over a large category crosses
    // jit_above_cost on row estimates alone, then spends 45-200 ms compiling what runs in
    // one (docs/benchmarks.md, "Category listings on their index"). A URL that sets
    // `options` itself wins (timestamps then take the slower exact path).
    options: '-c TimeZone=UTC -c jit=off',
    Client: preparingClient('', copyInOnServer),
  });
}

/** Without a listener a pool's error event would kill the process: see openDatabase. */
function listenForConnectionErrors(pool: pg.Pool, onPoolError?: (error: Error) => void): void {
  // The pool listens to its idle clients only, and forwards their errors here (a server
  // restart, a network drop); it discards that client and the next query opens a fresh
  // connection.
  pool.on('error', (error) => onPoolError?.(error));
  // A client busy with a query when its connection dies emits 'error' with no pool listener
  // attached (node-postgres#2439). The query fails with that same error, which answers the
  // request, and the pool drops the broken client when it is released: the event only has to
  // be heard.
  pool.on('connect', (client) => client.on('error', ignoreBusyClientError));
}

export type DatabaseKind = 'postgres' | 'embedded';

export interface DatabaseOptions {
  /** Postgres server URL; when absent the embedded database is used. */
  url?: string | undefined;
  /** Directory of the embedded database, or 'memory://' for a throw-away one. */
  embeddedDataDir?: string;
  /** An existing PGlite instance to use (tests share one); the caller owns and closes it. */
  pglite?: PGlite;
  poolSize?: number;
  /**
   * How the connections introduce themselves to the server (APPLICATION_NAME unless given);
   * a connection of another purpose appends its own (`/listen`).
   */
  applicationName?: string;
  /** Called with every statement executed: tests count SQL through it. */
  onQuery?: (event: LogEvent) => void;
  /** Connection-level errors (a restarting server): logged, never fatal to the process. */
  onPoolError?: (error: Error) => void;
  /** Streaming replicas of `url`'s server that serve `reads` (src/db/replicas.ts). */
  replicaUrls?: string[];
  replicaMaxLagMs?: number;
  replicaCheckIntervalMs?: number;
  onReplicaStateChange?: (status: DatabaseStatus) => void;
}

export interface DatabaseHandle {
  /** The primary: migrations, seeding, and reads that must see the writes just made. */
  db: Kysely<Database>;
  /**
   * What requests read through: a replica in service when there are replicas, otherwise
   * `db` itself (src/db/replicas.ts).
   */
  reads: Kysely<Database>;
  /** Each database server's role, statements and, for a replica, state and lag. */
  databases(): DatabaseStatus[];
  /** How busy each server's pool is now: the primary's, then each replica's. */
  pools(): PoolUsage[];
  /** Calls `listener` with every statement executed from now on; the function returned stops it. */
  onStatement(listener: (event: LogEvent) => void): () => void;
  /** The name the connections give the server (DatabaseOptions.applicationName). */
  applicationName: string;
  kind: DatabaseKind;
  /** The node-postgres pool under Kysely, for what Kysely does not do (COPY in seeding). */
  pool: pg.Pool;
  /** The embedded instance itself (its own COPY from a blob loads the sample faster). */
  pglite?: PGlite;
  /**
   * How many SQL statements `db` has executed since the handle was opened (failed ones too):
   * the count behind `catalogue_sql_statements_total`. COPY and PGlite's own loading in
   * seeding bypass Kysely and are not counted.
   */
  statementCount(): number;
  /**
   * Bounds every statement run from now on to `ms` (0: unbounded), on a server: its
   * `statement_timeout`, which fails a longer one with SQLSTATE 57014 and leaves the
   * connection usable. The app sets it for the requests it serves; migrating and seeding
   * before it may take minutes. PGlite accepts the setting but never interrupts a statement
   * (it has no timer signals), so there it is not sent.
   */
  limitStatements(ms: number): void;
  /** Closes the pool and, when this module created it, the embedded database. */
  close(): Promise<void>;
}

/** A pool's connections: open (in use or idle), the most it opens, and callers waiting for one. */
export interface PoolUsage {
  /** `primary`, or `replica-N` (DatabaseStatus's name). */
  name: string;
  inUse: number;
  idle: number;
  max: number;
  waiting: number;
}

function usageOf(name: string, pool: pg.Pool): PoolUsage {
  return {
    name,
    inUse: pool.totalCount - pool.idleCount,
    idle: pool.idleCount,
    max: pool.options.max,
    waiting: pool.waitingCount,
  };
}

/**
 * Creates the embedded database with the extensions the migrations need, and its directory
 * with every missing parent (PGlite creates only the last level).
 */
export async function createEmbeddedDatabase(dataDir: string): Promise<PGlite> {
  if (!dataDir.startsWith('memory://')) await mkdir(dataDir, { recursive: true });
  return PGlite.create(dataDir, { extensions: { pg_trgm } });
}

/** See the 'connect' listener in openDatabase: the failed query already carries the error. */
function ignoreBusyClientError(): void {}

interface OpenedPool {
  kind: DatabaseKind;
  pool: pg.Pool;
  /** What Kysely is given: the pool, or on a shared PGlite a view that ends only this handle. */
  kyselyPool: PostgresPool;
  pglite?: PGlite;
  /** The instance opened here, closed with the handle (a caller's own is left open). */
  ownedPglite?: PGlite;
}

/** The pool of each PGlite instance handles are open on, and how many handles use it. */
const embeddedPools = new WeakMap<PGlite, { pool: pg.Pool; handles: number }>();
let embeddedPoolsOpened = 0;

/**
 * PGlite is one connection, one session: every handle opened on an instance shares the
 * instance's one pool of one connection, so a statement (or a transaction) of one handle
 * never interleaves with another's. Two pools would send their protocol messages into the
 * one session in turn, and a query could lose its answer to the other's (seen: a handle's
 * only connection waiting for ever). Ending a handle ends the pool with the last handle.
 */
function sharedEmbeddedPool(
  pglite: PGlite,
  onPoolError: ((error: Error) => void) | undefined,
): { pool: pg.Pool; kyselyPool: PostgresPool } {
  let shared = embeddedPools.get(pglite);
  if (shared === undefined) {
    shared = {
      pool: new pg.Pool({
        ...(createPgConfig(pglite) as pg.PoolConfig),
        max: 1,
        // The statement names carry the pool's own prefix: a caller's instance may outlive
        // its pool, and a later pool's connection, knowing no name parsed, would parse one
        // already in the instance and be refused ("already exists"). An ended pool's
        // statements stay in the instance until it closes (at most MAX_PREPARED_STATEMENTS).
        Client: preparingClient(`h${++embeddedPoolsOpened}_`, (_client, text, rows) =>
          copyInOnPglite(pglite, text, rows),
        ),
      }),
      handles: 0,
    };
    embeddedPools.set(pglite, shared);
    listenForConnectionErrors(shared.pool, onPoolError);
  }
  shared.handles++;
  const { pool } = shared;
  let ended = false;
  return {
    pool,
    kyselyPool: {
      connect: () => pool.connect(),
      async end() {
        if (ended) return;
        ended = true;
        if (--shared.handles > 0) return;
        embeddedPools.delete(pglite);
        await pool.end();
      },
    },
  };
}

async function openPool(options: DatabaseOptions, applicationName: string): Promise<OpenedPool> {
  if (options.url !== undefined) {
    const pool = serverPool(options.url, applicationName, options.poolSize);
    listenForConnectionErrors(pool, options.onPoolError);
    return { kind: 'postgres', pool, kyselyPool: pool };
  }
  const ownedPglite = options.pglite
    ? undefined
    : await createEmbeddedDatabase(options.embeddedDataDir ?? 'memory://');
  const pglite = options.pglite ?? ownedPglite!;
  return {
    kind: 'embedded',
    ...sharedEmbeddedPool(pglite, options.onPoolError),
    pglite,
    ...(ownedPglite ? { ownedPglite } : {}),
  };
}

/**
 * The statement bound of a handle's connections. A connection takes the bound when it is
 * next reserved, whether it was opened before the bound was set (preparing the database) or
 * after (replacing a broken one): one round trip per connection, none per statement. A
 * failure is left to the statement that follows: Kysely would never release a connection
 * whose reservation threw, and a SET fails only on a broken connection, which that statement
 * finds too, and the pool then drops.
 */
function statementTimeouts() {
  let boundMs = 0;
  const connectionBounds = new WeakMap<DatabaseConnection, number>();
  return {
    set(ms: number) {
      boundMs = ms;
    },
    async apply(connection: DatabaseConnection) {
      const bound = boundMs;
      if ((connectionBounds.get(connection) ?? 0) === bound) return;
      try {
        await connection.executeQuery(CompiledQuery.raw(`set statement_timeout = ${bound}`));
        connectionBounds.set(connection, bound);
      } catch {
        // See above: the statement that follows reports it.
      }
    },
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  const applicationName = options.applicationName ?? APPLICATION_NAME;
  const { kind, pool, kyselyPool, pglite, ownedPglite } = await openPool(options, applicationName);

  // Every statement Kysely runs passes through its log hook, on either database: counting here
  // is the one place that sees them all.
  let statements = 0;
  const listeners = new Set<(event: LogEvent) => void>();
  if (options.onQuery) listeners.add(options.onQuery);
  const timeouts = statementTimeouts();
  const log = (event: LogEvent) => {
    statements++;
    for (const listener of listeners) listener(event);
  };
  let primaryStatements = 0;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: kyselyPool,
      ...(kind === 'postgres' ? { onReserveConnection: timeouts.apply } : {}),
    }),
    log: (event) => {
      primaryStatements++;
      log(event);
    },
  });

  // The embedded database has no replicas (the configuration refuses them without a URL).
  const replicas = (kind === 'postgres' ? (options.replicaUrls ?? []) : []).map((url, index) => {
    const replicaPool = serverPool(url, applicationName, options.poolSize);
    listenForConnectionErrors(replicaPool, options.onPoolError);
    return { name: `replica-${index + 1}`, pool: replicaPool };
  });
  const routing =
    replicas.length === 0 ? undefined : readRouting(pool, replicas, timeouts, options);
  const reads = routing ? new Kysely<Database>({ dialect: routing, log }) : db;
  routing?.driver.startChecks();

  return {
    db,
    reads,
    databases: () => [
      {
        name: 'primary',
        role: 'primary',
        statements: primaryStatements + (routing?.driver.primaryStatements() ?? 0),
      },
      ...(routing?.driver.replicaStatuses() ?? []),
    ],
    pools: () =>
      [{ name: 'primary', pool }, ...replicas].map(({ name, pool }) => usageOf(name, pool)),
    onStatement(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    applicationName,
    kind,
    pool,
    ...(pglite ? { pglite } : {}),
    statementCount: () => statements,
    limitStatements: timeouts.set,
    async close() {
      if (routing) {
        await reads.destroy();
        // Kysely destroys a driver only once it has run a statement.
        await routing.driver.destroy();
      }
      await db.destroy();
      await ownedPglite?.close();
    },
  };
}

/** Reads routed to the replicas in service (./replicas.ts), each connection bounded as the primary's. */
function readRouting(
  primaryPool: pg.Pool,
  replicas: ReplicaServer[],
  timeouts: ReturnType<typeof statementTimeouts>,
  options: DatabaseOptions,
): ReadRoutingDialect {
  return new ReadRoutingDialect({
    primaryPool,
    replicas,
    onReserveConnection: timeouts.apply,
    maxLagMs: options.replicaMaxLagMs ?? 5_000,
    checkIntervalMs: options.replicaCheckIntervalMs ?? 1_000,
    ...(options.onReplicaStateChange ? { onReplicaStateChange: options.onReplicaStateChange } : {}),
  });
}
