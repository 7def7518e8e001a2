/**
 * The market (and deprecated partner ref) a root field was asked for. Every market-scoped
 * object carries its scope, so nested fields inherit it and a query cannot mix markets by
 * accident.
 *
 * Normalized client caches (Relay, Apollo) key an object by its global id and a field by its
 * own arguments, so a field must not change with an argument given above the object: a URL
 * takes its ref as `url(ref:)`. The deprecated root `ref` still tags the URLs below it, and
 * therefore makes the objects below it other objects: their global ids name the ref
 * (`nodeId`), and `node(id:)` on such an id sees the object under that ref again
 * (docs/api.md, "Partner ref").
 */
import type { ProductMarketKey } from '../db/repositories/sql.ts';
import { badUserInput } from '../errors.ts';
import { isMarketCode, type MarketCode } from '../markets.ts';

export interface Scope {
  market: MarketCode;
  /** The deprecated root `ref`, the default of `url(ref:)` below it and part of ids; or null. */
  ref: string | null;
}

/** A row seen in a scope: the parent value of every market-scoped GraphQL object. */
export interface Scoped<Row> {
  row: Row;
  scope: Scope;
}

/** What keys are built from: a row with an id, seen in a scope. */
type ScopedWithId = Scoped<{ id: number }>;

/** "<market>:<id>": a market-scoped object's loaders' key for prices. */
export function marketKey(item: ScopedWithId): string {
  return `${item.scope.market}:${item.row.id}`;
}

/**
 * A node's key (its global id's payload) in a scope: the key as given without a ref, with
 * ":<ref>" appended under one, so an object whose URLs carry a ref has an id of its own.
 */
export function nodeKey(key: string, scope: Scope): string {
  return scope.ref === null ? key : `${key}:${scope.ref}`;
}

/** A node key's parts: what `nodeKey` was given and the ref; null when the ref is malformed. */
export function splitNodeKey(
  key: string,
  parts: number,
): { key: string; ref: string | null } | null {
  const segments = key.split(':');
  if (segments.length === parts) return { key, ref: null };
  if (segments.length !== parts + 1 || !REF_PATTERN.test(segments.at(-1)!)) return null;
  return { key: segments.slice(0, parts).join(':'), ref: segments.at(-1)! };
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
 * Loads market-scoped nodes by their keys ("<market>:<id>", and ":<ref>" under a ref) with one
 * statement; a malformed key is an input error, an unknown id null.
 */
export async function loadMarketScoped<Row extends { id: number }>(
  keys: readonly string[],
  find: (ids: number[]) => Promise<Row[]>,
  what: string,
): Promise<(Scoped<Row> | Error | null)[]> {
  const parsed = keys.map((key) => {
    const split = splitNodeKey(key, 2);
    const [market = '', id = ''] = split?.key.split(':') ?? [];
    const valid = isMarketCode(market) && /^[1-9]\d{0,9}$/.test(id) && Number(id) <= 2 ** 31 - 1;
    return valid ? { market, id: Number(id), ref: split!.ref } : null;
  });
  const ids = parsed.flatMap((key) => (key ? [key.id] : []));
  const byId = new Map((ids.length > 0 ? await find(ids) : []).map((row) => [row.id, row]));
  return parsed.map((key) => {
    if (key === null) return badUserInput(`not a ${what} id`, 'id', 'malformed_id');
    const row = byId.get(key.id);
    return row ? { row, scope: { market: key.market, ref: key.ref } } : null;
  });
}

/**
 * Loads nodes of one market each (an offer, a shop: the row names its market) by their keys
 * ("<id>", and ":<ref>" under a ref) with one statement; a malformed or unknown key is null.
 */
export async function loadByNodeKeys<Row extends { id: number; market: MarketCode }>(
  keys: readonly string[],
  find: (ids: number[]) => Promise<Row[]>,
): Promise<(Scoped<Row> | null)[]> {
  const parsed = keys.map((key) => {
    const split = splitNodeKey(key, 1);
    return split && /^[1-9]\d{0,9}$/.test(split.key) && Number(split.key) <= 2 ** 31 - 1
      ? { id: Number(split.key), ref: split.ref }
      : null;
  });
  const ids = [...new Set(parsed.flatMap((key) => (key ? [key.id] : [])))];
  const byId = new Map((ids.length > 0 ? await find(ids) : []).map((row) => [row.id, row]));
  return parsed.map((key) => {
    const row = key && byId.get(key.id);
    return row ? { row, scope: { market: row.market, ref: key.ref } } : null;
  });
}

export function scoped<Row>(scope: Scope) {
  return (row: Row): Scoped<Row> => ({ row, scope });
}

const REF_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

/** A partner ref as given to an argument, checked; null when none was given. */
export function checkedRef(ref: string | null | undefined): string | null {
  if (ref == null) return null;
  if (!REF_PATTERN.test(ref)) {
    throw badUserInput('ref must be 1–64 characters of A–Z a–z 0–9 . _ ~ -', 'ref', 'pattern');
  }
  return ref;
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
