/**
 * The market and partner ref a root field was asked for. Every market-scoped object carries
 * its scope, so nested fields inherit it and a query cannot mix markets by accident.
 */
import type { MarketCode } from '../markets.ts';

export interface Scope {
  market: MarketCode;
  /** The partner id every offer URL carries (decisions section 6), or null. */
  ref: string | null;
}

/** A row seen in a scope: the parent value of every market-scoped GraphQL object. */
export interface Scoped<Row> {
  row: Row;
  scope: Scope;
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
