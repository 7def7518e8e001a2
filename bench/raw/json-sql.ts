/**
 * SQL expressions that evaluate to JSON text, byte for byte what `JSON.stringify` gives the
 * gateway for the same values. Postgres's own json_build_object and json_agg put spaces after
 * `:` and `,` (and jsonb reorders keys), so response bodies are concatenated from pieces
 * instead: `to_json(text)` escapes strings exactly as JSON.stringify does, numbers and
 * timestamps are formatted as JavaScript prints them, keys keep their declared order.
 *
 * A `Json` is a list of parts (literal JSON text and SQL expressions yielding JSON text,
 * never NULL); objects splice their members' parts in, so a whole nested object renders as
 * one `concat(…)` call with adjacent literals merged.
 */

type Part = { literal: string } | { sql: string };

export interface Json {
  readonly parts: readonly Part[];
}

const sqlPart = (sql: string): Json => ({ parts: [{ sql }] });
const literalPart = (literal: string): Json => ({ parts: [{ literal }] });

/** A SQL string literal. */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** concat() takes at most 100 arguments (FUNC_MAX_ARGS); longer lists nest. */
const MAX_CONCAT_ARGS = 90;

function concat(args: string[]): string {
  if (args.length === 1) return args[0]!;
  if (args.length <= MAX_CONCAT_ARGS) return `concat(${args.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < args.length; i += MAX_CONCAT_ARGS) {
    chunks.push(concat(args.slice(i, i + MAX_CONCAT_ARGS)));
  }
  return concat(chunks);
}

/** The SQL expression (of type text) for a JSON value. */
export function render(json: Json): string {
  const args: string[] = [];
  let pending = '';
  for (const part of json.parts) {
    if ('literal' in part) {
      pending += part.literal;
    } else {
      if (pending !== '') args.push(sqlString(pending));
      pending = '';
      args.push(part.sql);
    }
  }
  if (pending !== '' || args.length === 0) args.push(sqlString(pending));
  return concat(args);
}

/** Literal JSON (a constant). */
export function constant(value: unknown): Json {
  return literalPart(JSON.stringify(value));
}

/** Already JSON text (e.g. an aggregate built elsewhere); `fallback` when it is NULL. */
export function raw(sql: string, fallback?: string): Json {
  return sqlPart(fallback === undefined ? sql : `coalesce(${sql}, ${sqlString(fallback)})`);
}

/** A text column: a JSON string, or null. */
export function string(sql: string): Json {
  return sqlPart(`coalesce(to_json(${sql})::text, 'null')`);
}

/** A text column that is never NULL. */
export function requiredString(sql: string): Json {
  return sqlPart(`to_json(${sql})::text`);
}

/**
 * A NOT NULL text column from a closed set of plain ASCII words (currencies, stock statuses,
 * conditions: CHECK constraints in 0001_catalogue), which need no escaping.
 */
export function word(sql: string): Json {
  return { parts: [{ literal: '"' }, { sql }, { literal: '"' }] };
}

/** An integer (a JSON number), or null. */
export function integer(sql: string): Json {
  return sqlPart(`coalesce((${sql})::text, 'null')`);
}

/** A NOT NULL integer written as a JSON string (REST ids, spec 2.6). */
export function integerAsString(sql: string): Json {
  return { parts: [{ literal: '"' }, { sql: `(${sql})::text` }, { literal: '"' }] };
}

/** A boolean, or null. */
export function boolean(sql: string): Json {
  return sqlPart(`coalesce((${sql})::text, 'null')`);
}

/**
 * A numeric column as the gateway shows it: node-postgres hands numeric over as Number, and
 * JSON.stringify prints the shortest text that reads back as that double. float8's own text
 * output is that same shortest text whenever it writes no exponent, i.e. for magnitudes in
 * [1e-4, 1e15): every numeric(12,2) price and numeric(7,1) percentage of the schema. (A
 * numeric has no negative zero, so -0 never arises.)
 */
export function decimal(sql: string): Json {
  return sqlPart(`coalesce((${sql})::float8::text, 'null')`);
}

/**
 * A double precision column printed as JavaScript prints a Number, over the whole range:
 * float8 text output switches to exponents outside [1e-4, 1e15) and pads the exponent to two
 * digits, where JavaScript writes plain digits within [1e-7, 1e21) and never pads; -0 prints
 * as 0 and non-finite values as null. Only the third branch runs for catalogue data; the
 * others are plain expressions, not subqueries, so that they cost the planner nothing.
 */
export function float(sql: string): Json {
  const v = `(${sql})`;
  // Postgres's exponent form: sign, first digit, further digits, exponent.
  const part = (index: number) =>
    `(regexp_match(${v}::text, '^(-?)([0-9])(?:\\.([0-9]+))?e([-+][0-9]+)$'))[${index}]`;
  const sign = part(1);
  const digits = `(${part(2)} || coalesce(${part(3)}, ''))`;
  const exponent = `${part(4)}::int`;
  return sqlPart(`case
    when ${v} is null or ${v} in ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)
      then 'null'
    when ${v} = 0 then '0'
    when abs(${v}) >= 1e-4 and abs(${v}) < 1e15 then ${v}::text
    when abs(${v}) >= 1e21 or abs(${v}) < 1e-6
      then ${sign} || ${part(2)} || coalesce('.' || ${part(3)}, '') || 'e'
           || case when ${exponent} > 0 then '+' else '-' end || abs(${exponent})::text
    when ${exponent} < 0 then ${sign} || '0.' || repeat('0', -${exponent} - 1) || ${digits}
    when ${exponent} >= length(${digits}) - 1
      then ${sign} || ${digits} || repeat('0', ${exponent} - length(${digits}) + 1)
    else ${sign} || left(${digits}, ${exponent} + 1) || '.' || substr(${digits}, ${exponent} + 2)
  end`);
}

/** A timestamptz as Date#toISOString writes it (UTC, milliseconds truncated), or null. */
export function timestamp(sql: string): Json {
  return sqlPart(
    `coalesce('"' || to_char((${sql}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')`,
  );
}

/** An object with its members in the order given. */
export function object(members: Record<string, Json>): Json {
  const parts: Part[] = [];
  let first = true;
  for (const [key, value] of Object.entries(members)) {
    parts.push({ literal: `${first ? '{' : ','}${JSON.stringify(key)}:` }, ...value.parts);
    first = false;
  }
  parts.push({ literal: first ? '{}' : '}' });
  return { parts };
}

/**
 * The opening of an object: `{` and its members, without the closing brace, for values
 * whose end is written elsewhere (property trees close several levels at once).
 */
export function openObject(members: Record<string, Json>): Json {
  const { parts } = object(members);
  const last = parts.at(-1) as { literal: string };
  return { parts: [...parts.slice(0, -1), { literal: last.literal.slice(0, -1) }] };
}

/** Several JSON pieces written one after the other (parts of one value). */
export function sequence(...pieces: Json[]): Json {
  return { parts: pieces.flatMap((piece) => piece.parts) };
}

/** `null` when the SQL condition holds, else the value. */
export function nullWhen(condition: string, value: Json): Json {
  return sqlPart(`case when ${condition} then 'null' else ${render(value)} end`);
}

/**
 * The aggregate of a JSON array: to be used as a select-list item over the elements' rows,
 * e.g. `select ${arrayAgg(element, 'o.price, o.id')} from …`. NULL over no rows: wrap the
 * place it is used in `raw(…, '[]')`.
 */
export function arrayAgg(element: Json, orderBy: string): string {
  return `'[' || string_agg(${render(element)}, ',' order by ${orderBy}) || ']'`;
}
