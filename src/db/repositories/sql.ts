/** Small SQL building blocks shared by the repositories. */
import { sql, type RawBuilder } from 'kysely';
import type { MarketCode } from '../../markets.ts';

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
