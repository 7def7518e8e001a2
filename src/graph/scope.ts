/**
 * The market and partner ref a root field was asked for. Every market-scoped object carries
 * its scope, so nested fields inherit it and a query cannot mix markets by accident.
 */
import type { ProductMarketKey } from '../db/repositories/sql.ts';
import { badUserInput } from '../errors.ts';
import { isMarketCode, type MarketCode } from '../markets.ts';

export interface Scope {
  market: MarketCode;
  /** The partner id every offer URL carries (docs/api.md, "Markets and scoping"), or null. */
  ref: string | null;
}

/** A row seen in a scope: the parent value of every market-scoped GraphQL object. */
export interface Scoped<Row> {
  row: Row;
  scope: Scope;
}

/** What keys are built from: a row with an id, seen in a scope. */
type ScopedWithId = Scoped<{ id: number }>;

/** "<market>:<id>": a market-scoped object's node key, and its loaders' key for prices. */
export function marketKey(item: ScopedWithId): string {
  return `${item.scope.market}:${item.row.id}`;
}

/** The same key for a (product, market) row of a batch statement. */
export function marketKeyOfRow(row: { product_id: number; market: string }): string {
  return `${row.market}:${row.product_id}`;
}

/** The market key plus the ref: loaders of fields that carry URLs keep refs apart by it. */
export function scopeKey(item: ScopedWithId): string {
  return `${marketKey(item)}:${item.scope.ref ?? ''}`;
}

/** A product in its market, as the data layer's batch key. */
export function productMarketKey(product: Scoped<{ id: number }>): ProductMarketKey {
  return { productId: product.row.id, market: product.scope.market };
}

/**
 * Loads market-scoped nodes by their keys ("<market>:<id>") with one statement; a malformed
 * key is an input error, an unknown id null. Refs do not travel in ids: none is set.
 */
export async function loadMarketScoped<Row extends { id: number }>(
  keys: readonly string[],
  find: (ids: number[]) => Promise<Row[]>,
  what: string,
): Promise<(Scoped<Row> | Error | null)[]> {
  const parsed = keys.map((key) => {
    const [market = '', id = ''] = key.split(':');
    const valid = isMarketCode(market) && /^[1-9]\d{0,9}$/.test(id) && Number(id) <= 2 ** 31 - 1;
    return valid ? { market, id: Number(id) } : null;
  });
  const ids = parsed.flatMap((key) => (key ? [key.id] : []));
  const byId = new Map((ids.length > 0 ? await find(ids) : []).map((row) => [row.id, row]));
  return parsed.map((key) => {
    if (key === null) return badUserInput(`not a ${what} id`, 'id', 'malformed_id');
    const row = byId.get(key.id);
    return row ? { row, scope: { market: key.market, ref: null } } : null;
  });
}

export function scoped<Row>(scope: Scope) {
  return (row: Row): Scoped<Row> => ({ row, scope });
}

/**
 * The `ref` rule, once: with a ref, the URL carries it as the query parameter `ref`
 * (URL-encoded, merged into any query string, replacing a stale one); without, as stored.
 */
export function tagUrlWithRef(url: string, ref: string | null): string {
  if (ref === null) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  parsed.searchParams.set('ref', ref);
  return parsed.toString();
}
