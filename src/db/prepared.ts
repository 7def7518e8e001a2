/**
 * Named prepared statements for the hot paths. A repository runs its per-request statements
 * through `executePrepared`; that registers the statement's SQL text, and the pg client under
 * Kysely (see `PreparingClient` in client.ts) then sends every registered text with a name, so
 * each connection parses and plans it once and afterwards only binds and executes it.
 *
 * Plans: the statements registered are uniform key lookups (`id = any($1)`, a market and a
 * page of keys) whose best plan does not depend on the values bound, so the generic plan
 * Postgres settles on after five executions under the default `plan_cache_mode = auto` is the
 * plan a custom one would be, without planning per call. The setting is left at `auto` rather
 * than forced to `force_generic_plan`: `auto` still plans per call whenever the generic plan is
 * estimated costlier than the custom ones, which is what a statement with skewed values needs.
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
 * Registered texts are those of a fixed set of repository queries, tens at most. The bound
 * guards against a caller that builds its text from data (a list of values inlined, a
 * variable number of placeholders): each distinct text would otherwise stay prepared on every
 * connection of the pool for the connection's life. Texts past the bound run unnamed, as all
 * other statements do.
 */
export const MAX_PREPARED_STATEMENTS = 64;

const statementNames = new Map<string, string>();

/** Registers `sql` (once) and returns its statement name, or undefined past the bound. */
function register(sql: string): string | undefined {
  const known = statementNames.get(sql);
  if (known !== undefined || statementNames.size >= MAX_PREPARED_STATEMENTS) return known;
  // Named by the text itself, so every connection and every process gives one statement the
  // same name (pg_prepared_statements reads the same everywhere), and two texts never share
  // a name: pg refuses a name reused for a different text on one connection.
  const name = `q_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
  statementNames.set(sql, name);
  return name;
}

/** The statement name of a registered SQL text; undefined for all other statements. */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

/**
 * Runs a Kysely query as a named prepared statement on a Postgres server (named by its SQL
 * text). It goes through `db.executeQuery` like any other statement, so the statement
 * counter, the request's abort plugin and the statement timeout see it as they see the rest.
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
