/**
 * Offset-based Relay connections: `first`/`after`, `last`/`before` (and `last` alone, the
 * list's last items) become an offset and a limit, checked against each field's documented
 * maximum (an over-large page is an error, never silently shortened), and rows become edges
 * with offset cursors.
 */
import {
  cursorToOffset,
  offsetForArgs,
  offsetToCursor,
  type DefaultConnectionArguments,
} from '@pothos/plugin-relay';
import { badUserInput } from '../errors.ts';
import { boundedArguments, checkBound, type IntegerBound } from './argument-bounds.ts';
import type { TotalCount } from './builder.ts';

export interface PageLimits {
  defaultSize: number;
  maxSize: number;
}

export interface OffsetPage {
  offset: number;
  /** Rows to fetch: the page size plus one, to learn whether a next page exists. */
  limit: number;
  size: number;
}

function checkCursor(name: 'after' | 'before', cursor: string | null | undefined): void {
  if (cursor == null) return;
  let offset: number;
  try {
    offset = cursorToOffset(cursor);
  } catch {
    throw badUserInput(`${name} is not a cursor of this list`, name, 'malformed_cursor');
  }
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw badUserInput(`${name} is not a cursor of this list`, name, 'malformed_cursor');
  }
}

function pageSizeBound(limits: PageLimits): IntegerBound {
  return { min: 0, max: limits.maxSize };
}

/**
 * The `extensions` of a connection field paged with these limits: its page sizes are then
 * checked before the request runs (./argument-bounds.ts), with the bound `offsetPage` checks.
 */
export function pageArgumentBounds(limits: PageLimits) {
  const size = pageSizeBound(limits);
  return boundedArguments({ first: size, last: size });
}

/**
 * Whether the page counts back from the list's end: `last` without `before` (nor `first`),
 * which the Relay cursor connections specification makes the list's last items. Its offset
 * needs the list's length.
 */
export function pageFromEnd(args: DefaultConnectionArguments): boolean {
  return args.last != null && args.before == null && args.first == null;
}

/** Refuses page sizes out of bounds and cursors not of an offset list, before any work. */
export function checkPageArguments(args: DefaultConnectionArguments, limits: PageLimits): void {
  checkBound('first', args.first, pageSizeBound(limits));
  checkBound('last', args.last, pageSizeBound(limits));
  checkCursor('after', args.after);
  checkCursor('before', args.before);
}

/** The page the arguments ask for; `totalCount`, the list's length, when it counts from the end. */
export function offsetPage(
  args: DefaultConnectionArguments,
  limits: PageLimits,
  totalCount?: number,
): OffsetPage {
  checkPageArguments(args, limits);
  const fromEnd = pageFromEnd(args);
  if (fromEnd && totalCount === undefined) throw new Error('a page from the end needs the length');
  const { offset, limit, expectedSize } = offsetForArgs({
    args,
    ...limits,
    ...(fromEnd ? { totalCount } : {}),
  });
  return { offset, limit, size: expectedSize };
}

/** The page of one list: counted first only when the page counts from its end. */
export async function pageOfList(
  args: DefaultConnectionArguments,
  limits: PageLimits,
  count: () => Promise<number>,
): Promise<{ page: OffsetPage; total?: number }> {
  if (!pageFromEnd(args)) return { page: offsetPage(args, limits) };
  const total = await count();
  return { page: offsetPage(args, limits, total), total };
}

/**
 * The pages of a batch of lists asking the same arguments, each read by `read` (one statement
 * for the keys given it). Usually one page for all; counted from the end, each list's offset
 * depends on its length, so the lists are counted first (`count`, in key order) and read in
 * one statement per distinct length, each given its keys' totals.
 */
export async function pagesOfBatch<Key, Value>(
  keys: readonly Key[],
  args: DefaultConnectionArguments,
  limits: PageLimits,
  count: (keys: readonly Key[]) => Promise<number[]>,
  read: (page: OffsetPage, keys: readonly Key[], totals?: number[]) => Promise<Value[]>,
): Promise<Value[]> {
  if (!pageFromEnd(args)) return read(offsetPage(args, limits), keys);
  const totals = await count(keys);
  const byTotal = new Map<number, number[]>();
  totals.forEach((total, index) => byTotal.set(total, [...(byTotal.get(total) ?? []), index]));
  const results: Value[] = new Array<Value>(keys.length);
  await Promise.all(
    [...byTotal].map(async ([total, indexes]) => {
      const values = await read(
        offsetPage(args, limits, total),
        indexes.map((index) => keys[index]!),
        indexes.map(() => total),
      );
      indexes.forEach((index, position) => (results[index] = values[position]!));
    }),
  );
  return results;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: {
    startCursor: string | null;
    endCursor: string | null;
    hasPreviousPage: boolean;
    hasNextPage: boolean;
  };
  totalCount?: TotalCount;
}

/** Edges for the rows of a page fetched with `page.limit` (one more than the page size). */
export function connectionOf<T>(
  page: OffsetPage,
  rows: T[],
  totalCount?: TotalCount,
): Connection<T> {
  const edges = rows
    .slice(0, page.size)
    .map((node, index) => ({ cursor: offsetToCursor(page.offset + index), node }));
  return {
    edges,
    pageInfo: {
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
      hasPreviousPage: page.offset > 0,
      hasNextPage: rows.length > page.size,
    },
    ...(totalCount === undefined ? {} : { totalCount }),
  };
}
