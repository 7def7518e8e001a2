/**
 * The pieces a compiled statement is made of: a selection's object as `json_build_object`,
 * keyed by response keys, each field given by its type's table of emitters; a field an
 * emitter does not cover is left to its resolver (./compiled-values.ts), which reads the row
 * the object carries under `$`.
 */
import { offsetToCursor } from '@pothos/plugin-relay';
import { sql, type RawBuilder } from 'kysely';
import type { Scope } from '../scope.ts';
import type { SelectedField, Selection } from './selection-tree.ts';

export type Sql = RawBuilder<unknown>;

/** What every emitter of one statement shares. */
export interface Env {
  scope: Scope;
  variables: Record<string, unknown>;
  /** A table alias of its own ("z1", "z2", …): no shared fragment uses one of these. */
  alias(): string;
}

/** A row of a table or subquery in the statement, by its alias. */
export interface TableRow {
  alias: string;
  column(name: string): Sql;
  /**
   * Rows looked up by key beside it (its shop, its brand): left joins on a primary key, added
   * where the row is read, so a list's rows join them in one plan, not one lookup per row.
   */
  joins: Sql[];
}

export function tableRow(alias: string): TableRow {
  return { alias, column: (name) => sql.ref(`${alias}.${name}`), joins: [] };
}

/** The row's joins, to follow its FROM item. */
export function joinsOf(row: TableRow): Sql {
  return sql.join(row.joins, sql` `);
}

/** A field's value as SQL, or undefined: its resolver answers it. */
export type Emitter<Parent> = (field: SelectedField, parent: Parent, env: Env) => Sql | undefined;
export type EmitterTable<Parent> = Readonly<Record<string, Emitter<Parent>>>;

/** Postgres takes at most 100 arguments: 50 pairs, one of them `$`. */
const MAX_KEYS = 49;

/**
 * The object of a selection. Fields without an emitter (or whose emitter declines) go to their
 * resolvers with `fallback(fields)` as their parent; without `fallback`, the whole object is
 * undefined and so is the field holding it. `tagged`: the type records a cache tag from that
 * parent (../cache-tags.ts), which the object then always carries.
 */
export function jsonObject<Parent>(
  selection: Selection | undefined,
  table: EmitterTable<Parent>,
  parent: Parent,
  env: Env,
  fallback?: (fields: SelectedField[]) => Sql,
  tagged = false,
): Sql | undefined {
  if (selection === undefined) return undefined;
  const entries: Sql[] = [];
  const left: SelectedField[] = [];
  for (const field of selection.fields) {
    const value = table[field.definition.name]?.(field, parent, env);
    if (value === undefined) left.push(field);
    else entries.push(sql`${sql.lit(field.key)}, ${value}`);
  }
  if (entries.length > MAX_KEYS || (left.length > 0 && fallback === undefined)) return undefined;
  const mark = left.length > 0 || (tagged && fallback) ? fallback!(left) : sql`0`;
  return sql`json_build_object('$', ${mark}${sql.join([sql``, ...entries])})`;
}

/** Parameters typed where Postgres cannot infer them (inside json_build_object). */
export const text = (value: string | null): Sql => sql`${value}::text`;
export const int = (value: number): Sql => sql`${value}::int`;
export const bool = (value: boolean): Sql => sql`${value}::boolean`;

/** Base64 as Relay's ids and cursors write it (Postgres breaks lines every 76 characters). */
function base64(value: Sql): Sql {
  return sql`replace(encode(convert_to(${value}, 'UTF8'), 'base64'), chr(10), '')`;
}

/** What the relay plugin's offset cursors encode before the offset. */
const CURSOR_PREFIX = Buffer.from(offsetToCursor(0), 'base64').toString().slice(0, -1);

/** The offset cursor of a 0-based position, as `offsetToCursor` writes it. */
export function cursorAt(position: Sql): Sql {
  return base64(sql`${sql.lit(CURSOR_PREFIX)} || ${position}`);
}

/** The cursor of a position known when the statement is built. */
export function cursorOf(position: number): Sql {
  return text(offsetToCursor(position));
}

/**
 * A node's global id, as the relay plugin encodes `nodeKey(key, scope)`: `<prefix><id>`, then
 * `:<ref>` under a ref (../scope.ts).
 */
export function globalId(typename: string, prefix: string, id: Sql, scope: Scope | null): Sql {
  const ref = scope?.ref == null ? sql`` : sql` || ${text(`:${scope.ref}`)}`;
  return base64(sql`${text(`${typename}:${prefix}`)} || ${id}::text${ref}`);
}

/** The scope as the resolvers' parents carry it. */
export function scopeJson(scope: Scope): Sql {
  return sql`json_build_object('market', ${text(scope.market)}, 'ref', ${text(scope.ref)})`;
}

/** A column read as it is. */
export function column<Parent extends TableRow>(name: string): Emitter<Parent> {
  return (_field, row) => row.column(name);
}
