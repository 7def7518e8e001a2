/**
 * Root fields answered by one statement each: the selected subtree built as JSON by Postgres
 * (./catalogue-objects.ts, ./offers.ts), run as a named prepared statement, its fields read
 * as properties (./compiled-values.ts). A root field whose selection cannot compile (more
 * fields on one object than Postgres takes) gets `undefined` and runs
 * on its resolvers; within a compiled one, each field the compiler does not cover runs on its
 * resolver. The resolvers check the arguments first, so both paths refuse alike.
 */
import { sql } from 'kysely';
import type { GraphQLResolveInfo } from 'graphql';
import type { RequestContext } from '../../context.ts';
import { executePrepared } from '../../db/prepared.ts';
import { CATEGORY_COUNT, categoryListPage } from '../../db/repositories/categories.ts';
import type { CategoryLookup } from '../category-reference.ts';
import type { OffsetPage } from '../pagination.ts';
import type { Scope } from '../scope.ts';
import { categoryJson, productJson } from './catalogue-objects.ts';
import { connectionJson } from './connections.ts';
import { int, joinsOf, tableRow, type Env, type Sql, type TableRow } from './json-sql.ts';
import { selectionOf, type Selection } from './selection-tree.ts';
import { compiling } from './switch.ts';

/** The root field's value: a compiled object stands for the parent its type's resolvers take. */
type Answer<Value> = Promise<Value> | undefined;

async function answer(context: RequestContext, statement: Sql): Promise<unknown> {
  const rows = await executePrepared(context.db, sql<{ value: unknown }>`${statement}`);
  return rows[0]?.value ?? null;
}

/** The statement `build` makes from the root field's selection, run; undefined: see above. */
function compiled(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  build: (selection: Selection, row: TableRow, env: Env) => Sql | undefined,
): Answer<never> {
  if (!compiling()) return undefined;
  const selection = selectionOf(info);
  if (selection === undefined) return undefined;
  let aliases = 0;
  const env: Env = { scope, variables: info.variableValues, alias: () => `z${++aliases}` };
  const statement = build(selection, tableRow(env.alias()), env);
  return statement && (answer(context, statement) as Promise<never>);
}

/** One row of `table` (null when there is none) as the object `json` builds. */
function compiledRow(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  table: 'products' | 'categories',
  where: (row: TableRow) => Sql,
  json: (selection: Selection, row: TableRow, env: Env) => Sql | undefined,
): Answer<never> {
  return compiled(context, info, scope, (selection, row, env) => {
    const object = json(selection, row, env);
    return (
      object &&
      sql`select ${object} as value from ${sql.table(table)} as ${sql.id(row.alias)} ${joinsOf(row)}
           where ${where(row)}`
    );
  });
}

/** `product(id:)`. */
export function compiledProduct(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  id: number,
): Answer<never> {
  const where = (row: TableRow) => sql`${row.column('id')} = ${int(id)}`;
  return compiledRow(context, info, scope, 'products', where, productJson);
}

/** `category(id:)` or `category(slug:)`. */
export function compiledCategory(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  lookup: CategoryLookup,
): Answer<never> {
  const where = (row: TableRow) =>
    'id' in lookup
      ? sql`${row.column('id')} = ${int(lookup.id)}`
      : sql`${row.column('slug')} = ${lookup.slug}`;
  return compiledRow(context, info, scope, 'categories', where, categoryJson);
}

/**
 * `products(ids:)`: the known products of `ids` (distinct, in order) as a connection. Its page
 * is `page` as asked without the list's length: the same edges and page info for any page
 * not counted back from the end (`last`), which stays with the resolver.
 */
export function compiledProductsByIds(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  ids: readonly number[],
  page: OffsetPage,
): Answer<never> {
  return compiled(context, info, scope, (selection, row, env) => {
    const idArray = sql`${[...ids]}::integer[]`;
    const from = sql`(
      select * from (
        select p.*, (row_number() over (order by k.ordinal) - 1)::int as list_position
          from unnest(${idArray}) with ordinality as k(id, ordinal)
          join products p on p.id = k.id) as found
       where found.list_position >= ${int(page.offset)}
         and found.list_position < ${int(page.offset + page.limit)}
    ) as ${sql.id(row.alias)}`;
    const total = () => sql`(select count(*)::int from products p where p.id = any(${idArray}))`;
    const connection = connectionJson(selection, { from, row, page, total }, productJson, env);
    return connection && sql`select ${connection} as value`;
  });
}

/** `categories` without a query: a page of the whole tree, parents before children. */
export function compiledCategories(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  page: OffsetPage,
): Answer<never> {
  return compiled(context, info, scope, (selection, row, env) => {
    const from = sql`(${categoryListPage(page)}) as ${sql.id(row.alias)}`;
    const total = () => sql`(${CATEGORY_COUNT})`;
    const connection = connectionJson(selection, { from, row, page, total }, categoryJson, env);
    return connection && sql`select ${connection} as value`;
  });
}
