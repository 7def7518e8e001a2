/**
 * timestamptz values as the API writes them: ISO 8601 in UTC with exactly three fractional
 * digits (`2026-10-30T12:34:56.123Z`), what `Date#toISOString` gave when node-postgres parsed
 * every value into a Date. Sessions run in UTC (client.ts), where Postgres writes
 * `2026-10-30 12:34:56.123456+00`; that text is rewritten by slicing, with no Date made.
 */
import { sql, type RawBuilder } from 'kysely';
import pg from 'pg';

/**
 * Postgres' ISO output in UTC: a four-digit year (AD), up to six fractional digits, `+00`.
 * Anything else (another session time zone, a year past 9999 or BC, infinity) takes the
 * parsing path below.
 */
const UTC_TIMESTAMP = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.(\d{1,6}))?\+00$/;

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text');

/**
 * A timestamptz's text as the ISO string of its instant. Milliseconds are the first three
 * fractional digits, padded: node-postgres computed them as `1000 * parseFloat(fraction)` and
 * Date truncated that, which for every fraction of one to six digits is the same truncation
 * (checked for all of them in test/db/timestamps.test.ts).
 */
export function timestamptzToIso(value: string): string {
  const utc = UTC_TIMESTAMP.exec(value);
  if (utc === null) return timestamptzToIsoByDate(value);
  const milliseconds = `${utc[1] ?? ''}000`.slice(0, 3);
  return `${value.slice(0, 10)}T${value.slice(11, 19)}.${milliseconds}Z`;
}

/**
 * The exact path for any other form: node-postgres' own parser, as before; values a Date cannot
 * hold (±infinity) stay Postgres' text rather than fail the whole statement.
 */
function timestamptzToIsoByDate(value: string): string {
  const parsed: unknown = parseTimestamptz(value);
  return parsed instanceof Date && !Number.isNaN(parsed.getTime()) ? parsed.toISOString() : value;
}

/**
 * The same text written by Postgres, for values a statement builds into JSON (src/graph/compile):
 * `to_char`'s MS truncates to the millisecond as the slicing above does; a year outside 0–9999
 * (astronomical: 1 BC is year 0) takes a sign and six digits as `Date#toISOString` writes it,
 * and ±infinity stays Postgres' text, as above.
 */
export function isoTimestamp(value: RawBuilder<unknown>): RawBuilder<string> {
  const utc = sql`(${value} at time zone 'UTC')`;
  const era = sql`extract(year from ${utc})::integer`;
  const year = sql`(case when ${era} < 0 then ${era} + 1 else ${era} end)`;
  return sql<string>`case when isfinite(${value}) then
      case when ${year} between 0 and 9999 then to_char(${year}, 'FM0000')
           else (case when ${year} < 0 then '-' else '+' end) || to_char(abs(${year}), 'FM000000')
      end || to_char(${utc}, '-MM-DD"T"HH24:MI:SS.MS"Z"')
    else ${value}::text end`;
}
