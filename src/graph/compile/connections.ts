/**
 * A connection in one subquery: its page's rows (the page size plus one, as the resolvers read
 * them, with each row's 0-based position in the whole list) aggregated into `edges`, with
 * `pageInfo` and `totalCount` as `connectionOf` (../pagination.ts) gives them.
 */
import { sql } from 'kysely';
import type { OffsetPage } from '../pagination.ts';
import {
  bool,
  cursorAt,
  cursorOf,
  int,
  joinsOf,
  jsonObject,
  type Emitter,
  type Env,
  type Sql,
  type TableRow,
} from './json-sql.ts';
import type { Selection } from './selection-tree.ts';

export interface PageOfRows {
  /** A FROM clause whose rows are `row`, each with its 0-based `list_position`. */
  from: Sql;
  row: TableRow;
  page: OffsetPage;
  /** The length of the whole list (only built when `totalCount` is selected). */
  total: () => Sql;
}

/** A node of the list as JSON, from the page's row. */
export type NodeEmitter = (
  selection: Selection | undefined,
  row: TableRow,
  env: Env,
) => Sql | undefined;

interface Aggregate {
  rows: PageOfRows;
  node: NodeEmitter;
  /** How many rows of the page are edges: at most the page size. */
  edgeCount: Sql;
}

const EDGE_FIELDS: Record<string, Emitter<Aggregate>> = {
  cursor: (_field, { rows }) => cursorAt(rows.row.column('list_position')),
  node: (field, { rows, node }, env) => node(field.selection, rows.row, env),
};

const PAGE_INFO_FIELDS: Record<string, Emitter<Aggregate>> = {
  hasNextPage: (_field, { rows }) => sql`count(*) > ${int(rows.page.size)}`,
  hasPreviousPage: (_field, { rows }) => bool(rows.page.offset > 0),
  startCursor: (_field, { rows, edgeCount }) =>
    sql`case when ${edgeCount} > 0 then ${cursorOf(rows.page.offset)} end`,
  endCursor: (_field, { rows, edgeCount }) =>
    sql`case when ${edgeCount} > 0 then ${cursorAt(sql`${int(rows.page.offset)} + ${edgeCount} - 1`)} end`,
};

const CONNECTION_FIELDS: Record<string, Emitter<Aggregate>> = {
  edges: (field, aggregate, env) => {
    const edge = jsonObject(field.selection, EDGE_FIELDS, aggregate, env);
    if (edge === undefined) return undefined;
    const { row, page } = aggregate.rows;
    const position = row.column('list_position');
    return sql`coalesce(json_agg(${edge} order by ${position})
                 filter (where ${position} < ${int(page.offset + page.size)}), '[]'::json)`;
  },
  pageInfo: (field, aggregate, env) =>
    jsonObject(field.selection, PAGE_INFO_FIELDS, aggregate, env),
  totalCount: (_field, aggregate) => aggregate.rows.total(),
};

/** The connection as a JSON value (a subquery), or undefined when its selection cannot compile. */
export function connectionJson(
  selection: Selection | undefined,
  rows: PageOfRows,
  node: NodeEmitter,
  env: Env,
): Sql | undefined {
  const edgeCount = sql`least(count(*), ${int(rows.page.size)})`;
  const object = jsonObject(selection, CONNECTION_FIELDS, { rows, node, edgeCount }, env);
  // `group by ()`: one row, an aggregate's, even when no aggregate is selected.
  return object && sql`(select ${object} from ${rows.from} ${joinsOf(rows.row)} group by ())`;
}
