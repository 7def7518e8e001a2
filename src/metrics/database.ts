/**
 * The database's figures: statements counted and timed where every one passes (the handle's
 * Kysely log hook, src/db/client.ts), each server's pool, and each replica's state and lag,
 * read from the handle when scraped.
 */
import type { LogEvent } from 'kysely';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { PoolUsage } from '../db/client.ts';
import type { DatabaseStatus } from '../db/replicas.ts';

export interface DatabaseSources {
  /** SQL statements the app's database handle has executed so far. */
  statementCount(): number;
  /** Each database server's statements and, for a replica, state and lag. */
  databases(): DatabaseStatus[];
  /** Each server's pool as it is now. */
  pools(): PoolUsage[];
  /** Every statement from now on, until the function returned is called. */
  onStatement(listener: (event: LogEvent) => void): () => void;
}

/** Seconds; a catalogue statement takes a millisecond or two, a feed run's many seconds. */
const STATEMENT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/** The statement kinds timed apart: a closed set, whatever SQL comes through. */
const KINDS = new Set(['select', 'insert', 'update', 'delete', 'with']);

/** The first keyword of a statement, past comments and parentheses. */
const FIRST_KEYWORD = /^(?:\s|\(|--[^\n]*\n|\/\*[\s\S]*?\*\/)*([a-z]+)/i;

/** `select`, `insert`, `update`, `delete`, `with` (a statement opening with a CTE) or `other`. */
export function statementKind(sql: string): string {
  const keyword = FIRST_KEYWORD.exec(sql)?.[1]?.toLowerCase();
  return keyword !== undefined && KINDS.has(keyword) ? keyword : 'other';
}

/** Registers the database's metrics; the function returned stops timing statements. */
export function registerDatabaseMetrics(
  sources: DatabaseSources,
  registers: Registry[],
): () => void {
  registerStatementCounters(sources, registers);
  registerPoolGauges(sources, registers);
  registerReplicaGauges(sources, registers);
  const durations = new Histogram({
    name: 'catalogue_sql_statement_duration_seconds',
    help: 'Time a SQL statement took on its connection (from sending to its result; waiting for a connection not included), by kind.',
    labelNames: ['kind'] as const,
    buckets: STATEMENT_BUCKETS,
    registers,
  });
  return sources.onStatement((event) =>
    durations.observe({ kind: statementKind(event.query.sql) }, event.queryDurationMillis / 1000),
  );
}

function registerStatementCounters(sources: DatabaseSources, registers: Registry[]): void {
  new Counter({
    name: 'catalogue_sql_statements_total',
    help: 'SQL statements executed through the database handle since it was opened.',
    registers,
    // Counted where every statement passes (src/db/client.ts); read at scrape time.
    collect() {
      this.reset();
      this.inc(sources.statementCount());
    },
  });
  new Counter({
    name: 'catalogue_database_statements_total',
    help: 'SQL statements executed, by the database server that ran them (primary, replica-N).',
    labelNames: ['database'] as const,
    registers,
    collect() {
      this.reset();
      for (const { name, statements } of sources.databases()) {
        this.inc({ database: name }, statements);
      }
    },
  });
}

/** One gauge per figure of PoolUsage, by server; summed across workers. */
function registerPoolGauges(sources: DatabaseSources, registers: Registry[]): void {
  const figures = {
    in_use: ['inUse', 'Connections of the pool running statements (or held by a transaction).'],
    idle: ['idle', 'Connections of the pool open and free.'],
    max: ['max', 'The most connections the pool opens (DATABASE_POOL_SIZE).'],
  } as const;
  for (const [suffix, [field, help]] of Object.entries(figures)) {
    poolGauge(`catalogue_database_pool_connections_${suffix}`, help, field, sources, registers);
  }
  poolGauge(
    'catalogue_database_pool_waiting',
    'Statements waiting for a connection of the pool, all of its connections being in use.',
    'waiting',
    sources,
    registers,
  );
}

function poolGauge(
  name: string,
  help: string,
  field: Exclude<keyof PoolUsage, 'name'>,
  sources: DatabaseSources,
  registers: Registry[],
): void {
  new Gauge({
    name,
    help: `${help} By server: primary, replica-N.`,
    labelNames: ['database'] as const,
    registers,
    collect() {
      this.reset();
      for (const usage of sources.pools()) this.set({ database: usage.name }, usage[field]);
    },
  });
}

function registerReplicaGauges(sources: DatabaseSources, registers: Registry[]): void {
  new Gauge({
    name: 'catalogue_database_replica_serving',
    help: 'Whether a replica serves reads now (1), or is out of service (0) and its reads go elsewhere.',
    labelNames: ['database', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const { name, role, state } of sources.databases()) {
        if (role === 'replica') this.set({ database: name, state }, state === 'serving' ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'catalogue_database_replica_lag_seconds',
    help: 'How far a replica was behind the primary at its last check (absent when unknown).',
    labelNames: ['database'] as const,
    registers,
    // Across workers, each checking on its own: the furthest behind.
    aggregator: 'max',
    collect() {
      this.reset();
      for (const { name, lagMs } of sources.databases()) {
        if (typeof lagMs === 'number' && Number.isFinite(lagMs)) {
          this.set({ database: name }, lagMs / 1000);
        }
      }
    },
  });
}
