/** Small SQL building blocks shared by the repositories. */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { MarketCode } from '../../markets.ts';
import { executePrepared } from '../prepared.ts';
import type { Database } from '../types.ts';

/**
 * `= any($1)` with the whole list as one array parameter: the statement text is the same for
 * 1 key or 1,000, so Postgres plans it once and the parameter limit never applies.
 */
export function anyOf<T extends string | number>(values: readonly T[]): RawBuilder<T> {
  return sql<T>`any(${[...values]})`;
}

/** A product seen in a market: the key of every market-scoped batch. */
export interface ProductMarketKey {
  productId: number;
  market: MarketCode;
}

/**
 * The keys as a table `k(product_id, market)` from two parallel array parameters: one
 * statement text for any number of keys, joined on both columns.
 */
export function productMarketKeyTable(keys: readonly ProductMarketKey[]): RawBuilder<unknown> {
  return sql`unnest(${keys.map((k) => k.productId)}::integer[], ${keys.map((k) => k.market)}::text[])
    as k(product_id, market)`;
}

/**
 * `"id", "<column>", …` (each prefixed with `alias.` when given): the columns a selection asked
 * for, and the id every loader keys its rows by, whatever was asked.
 */
export function columnsWithId(columns: readonly string[], alias?: string): RawBuilder<unknown> {
  const qualified = (column: string) =>
    sql.ref(alias === undefined ? column : `${alias}.${column}`);
  return sql.join([...new Set(['id', ...columns])].map(qualified));
}

/** Rows of a table by id: every column, or only those given (the id always). */
export function findRowsByIds<Row>(
  db: Kysely<Database>,
  table: 'products' | 'shops',
  ids: readonly number[],
  columns: readonly string[] | undefined,
): Promise<Row[]> {
  const selected = columns ? columnsWithId(columns) : sql`*`;
  return executePrepared(
    db,
    sql<Row>`select ${selected} from ${sql.table(table)} where ${sql.ref('id')} = ${anyOf(ids)}`,
  );
}
