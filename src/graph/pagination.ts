/**
 * Offset-based Relay connections: `first`/`after` become an offset and a limit, checked
 * against each field's documented maximum (an over-large page is an error, never silently
 * shortened), and rows become edges with offset cursors.
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

export function offsetPage(args: DefaultConnectionArguments, limits: PageLimits): OffsetPage {
  checkBound('first', args.first, pageSizeBound(limits));
  checkBound('last', args.last, pageSizeBound(limits));
  checkCursor('after', args.after);
  checkCursor('before', args.before);
  if (args.last != null && args.before == null && args.first == null) {
    throw badUserInput('last needs before or first', 'last', 'unsupported');
  }
  const { offset, limit, expectedSize } = offsetForArgs({ args, ...limits });
  return { offset, limit, size: expectedSize };
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
