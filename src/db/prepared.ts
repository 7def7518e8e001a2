/**
 * Named prepared statements for the hot paths. A repository runs its per-request statements
 * through `executePrepared`; once a statement's SQL text recurs, it gets a name, and the pg
 * client under Kysely (`preparingClient` in client.ts) sends it with that name, so each
 * connection parses and plans it once and afterwards only binds and executes it.
 *
 * Plans: the statements are key lookups (`id = any($1)`, a page of rows per key of an
 * `unnest` of keys) whose best plan does not depend on the values bound, so the generic plan
 * Postgres settles on after five executions under the default `plan_cache_mode = auto` is the
 * plan a custom one would be, without planning per call (docs/benchmarks.md, "Driver costs":
 * the page statements all settle on it). A lookup of one key keeps custom plans, as `auto`
 * costs the generic plan for an array of unknown length; it still saves the parse. The setting
 * is left at `auto` rather than forced to `force_generic_plan` for the session, which would
 * also take the per-call plan from any statement whose best plan does depend on its values.
 */
import { createHash } from 'node:crypto';
import type { CompiledQuery, Kysely, QueryExecutorProvider } from 'kysely';
import type { Database } from './types.ts';

/**
 * A query builder (`compile()`) or a raw `sql` template (`compile(db)`, which needs the
 * executor to compile with the database's plugins).
 */
export interface PreparableQuery<Row> {
  compile(executorProvider: QueryExecutorProvider): CompiledQuery<Row>;
}

/**
 * The texts that come through are those of the repositories' queries, one per set of columns a
 * selection asks for (src/graph/selection.ts): a few per query in practice, but a client can
 * vary its selection at will (REST's `fields`). Every name stays prepared on every connection
 * of the pool for the connection's life, so their number is bounded; past the bound texts run
 * unnamed, as all other statements do. So that one-off selections do not take the places, a
 * text is named only once it recurs: from its RUNS_BEFORE_NAMING-th run on.
 */
export const MAX_PREPARED_STATEMENTS = 64;
export const RUNS_BEFORE_NAMING = 3;
/** Run counts of texts not named yet; forgotten all at once when this many are counted. */
const MAX_COUNTED_TEXTS = 1024;

const statementNames = new Map<string, string>();
const unnamedRuns = new Map<string, number>();

/** Counts a run of `sql`, and names it once it has recurred enough and a place is free. */
function register(sql: string): void {
  if (statementNames.has(sql) || statementNames.size >= MAX_PREPARED_STATEMENTS) return;
  const runs = (unnamedRuns.get(sql) ?? 0) + 1;
  if (runs < RUNS_BEFORE_NAMING) {
    if (unnamedRuns.size >= MAX_COUNTED_TEXTS) unnamedRuns.clear();
    unnamedRuns.set(sql, runs);
    return;
  }
  unnamedRuns.delete(sql);
  // Named by the text itself, so every connection and every process gives one statement the
  // same name (pg_prepared_statements reads the same everywhere), and two texts never share
  // a name: pg refuses a name reused for a different text on one connection.
  statementNames.set(sql, `q_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`);
}

/** The statement name of a SQL text that has one; undefined for all other statements. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * Runs a Kysely query as a named prepared statement on a Postgres server (named by its SQL
 * text, once the text recurs: see above). It goes through `db.executeQuery` like any other
 * statement, so the statement counter, the request's abort plugin and the statement timeout
 * see it as they see the rest.
 */
export async function executePrepared<Row>(
  db: Kysely<Database>,
  query: PreparableQuery<Row>,
): Promise<Row[]> {
  const compiled = query.compile(db);
  register(compiled.sql);
  const result = await db.executeQuery(compiled);
  return result.rows;
}
