/**
 * The one place that opens a database: a Postgres server through `pg.Pool` when a URL is
 * given, otherwise the embedded PGlite through its node-postgres adapter. Both go through
 * Kysely's PostgresDialect, so every query and migration runs the same way on either.
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Database } from './types.ts';

const { builtins } = pg.types;
// node-postgres names no constant for numeric[]; 1231 is its fixed oid in pg_type.
const NUMERIC_ARRAY_OID = 1231 as (typeof builtins)['NUMERIC'];

// Prices are numeric(12,2) and counts may be int8: both fit a double exactly at our
// magnitudes, and callers want numbers, not strings. Dates stay 'YYYY-MM-DD' strings so no
// time zone can shift a calendar day.
const parseNumericArray = pg.types.getTypeParser(NUMERIC_ARRAY_OID);
pg.types.setTypeParser(builtins.INT8, Number);
pg.types.setTypeParser(builtins.NUMERIC, Number);
pg.types.setTypeParser(NUMERIC_ARRAY_OID, (value: string) =>
  (parseNumericArray(value) as (string | null)[]).map((item) =>
    item === null ? null : Number(item),
  ),
);
pg.types.setTypeParser(builtins.DATE, (value: string) => value);

export type DatabaseKind = 'postgres' | 'embedded';

export interface DatabaseOptions {
  /** Postgres server URL; when absent the embedded database is used. */
  url?: string | undefined;
  /** Directory of the embedded database, or 'memory://' for a throw-away one. */
  embeddedDataDir?: string;
  /** An existing PGlite instance to use (tests share one); the caller owns and closes it. */
  pglite?: PGlite;
  poolSize?: number;
  /** Called with every statement executed: tests count SQL through it. */
  onQuery?: (event: LogEvent) => void;
  /** Connection-level errors (a restarting server): logged, never fatal to the process. */
  onPoolError?: (error: Error) => void;
}

export interface DatabaseHandle {
  db: Kysely<Database>;
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
  /** Closes the pool and, when this module created it, the embedded database. */
  close(): Promise<void>;
}

/** Creates the embedded database with the extensions the migrations need. */
export async function createEmbeddedDatabase(dataDir: string): Promise<PGlite> {
  return PGlite.create(dataDir, { extensions: { pg_trgm } });
}

export async function openDatabase(options: DatabaseOptions): Promise<DatabaseHandle> {
  let ownedPglite: PGlite | undefined;
  let pglite: PGlite | undefined;
  let pool: pg.Pool;
  let kind: DatabaseKind;

  if (options.url !== undefined) {
    kind = 'postgres';
    pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      // A host that drops packets must fail start-up and readiness, not hang them.
      connectionTimeoutMillis: 10_000,
    });
  } else {
    kind = 'embedded';
    pglite =
      options.pglite ??
      (ownedPglite = await createEmbeddedDatabase(options.embeddedDataDir ?? 'memory://'));
    // PGlite is a single connection; the adapter's pool serialises access to it.
    pool = new pg.Pool(createPgConfig(pglite) as pg.PoolConfig);
  }

  // Without a listener an idle client's error (server restart, network drop) would be an
  // unhandled 'error' event and kill the process. The pool discards that client and the next
  // query opens a fresh connection.
  pool.on('error', (error) => options.onPoolError?.(error));

  // Every statement Kysely runs passes through its log hook, on either database: counting here
  // is the one place that sees them all.
  let statements = 0;
  const onQuery = options.onQuery;
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      statements++;
      onQuery?.(event);
    },
  });

  return {
    db,
    kind,
    pool,
    ...(pglite ? { pglite } : {}),
    statementCount: () => statements,
    async close() {
      await db.destroy();
      await ownedPglite?.close();
    },
  };
}
