/** Small SQL building blocks shared by the repositories. */
import { sql, type RawBuilder } from 'kysely';

/**
 * `= any($1)` with the whole list as one array parameter: the statement text is the same for
 * 1 key or 1,000, so Postgres plans it once and the parameter limit never applies.
 */
export function anyOf<T extends string | number>(values: readonly T[]): RawBuilder<T> {
  return sql<T>`any(${[...values]})`;
}
