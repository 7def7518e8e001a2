/**
 * limit/offset paging over GraphQL connections (docs/api.md, "Paging"): `limit` becomes
 * `first`, `offset` an offset cursor for `after`, and a next page exists exactly when the
 * connection says `hasNextPage`. Envelopes link pages with absolute URLs of the same route
 * and parameters, on the public base src/proxy-trust.ts settles (never a raw Host header).
 */
import { offsetToCursor } from '@pothos/plugin-relay';
import type { ParamValues } from './params.ts';
import type { ResponseInput } from './route.ts';

/** The connection paths every paged envelope needs. */
export const PAGE_INFO_PATHS = ['pageInfo.hasNextPage'];

export interface Paging {
  limit: number;
  offset: number;
}

export function pagingOf(params: ParamValues): Paging {
  return { limit: params.limit as number, offset: (params.offset as number | undefined) ?? 0 };
}

/** Connection arguments for a page; `after` is left out on the first page. */
export function connectionVariables({ limit, offset }: Paging): { first: number; after?: string } {
  return offset > 0 ? { first: limit, after: offsetToCursor(offset - 1) } : { first: limit };
}

export function hasNextPage(root: ResponseInput['root']): boolean {
  const pageInfo = root?.pageInfo as { hasNextPage?: boolean } | undefined;
  return pageInfo?.hasNextPage === true;
}

/**
 * The request's path and query on the public base: what a client would ask for again, with
 * the market as answers write it (`SE` is taken for `se`).
 */
export function publicUrl(publicBase: string, url: URL, params: ParamValues): URL {
  const link = new URL(`${publicBase}${url.pathname}${url.search}`);
  const market = params.market;
  if (typeof market === 'string' && link.searchParams.get('market') !== market) {
    link.searchParams.set('market', market);
  }
  return link;
}

/** The same URL with another offset. */
export function linkWithOffset(url: URL, offset: number): string {
  const link = new URL(url);
  link.searchParams.set('offset', String(offset));
  return link.toString();
}

export interface PageLinks {
  self: string;
  next: string | null;
  prev: string | null;
  nextOffset: number | null;
  prevOffset: number | null;
}

export function pageLinks(input: ResponseInput): PageLinks {
  const { limit, offset } = pagingOf(input.params);
  // With limit=0 no page makes progress: a `next` equal to `self` would loop a client forever.
  const nextOffset = hasNextPage(input.root) && limit > 0 ? offset + limit : null;
  const prevOffset = offset > 0 ? Math.max(0, offset - limit) : null;
  return {
    self: input.url.toString(),
    next: nextOffset === null ? null : linkWithOffset(input.url, nextOffset),
    prev: prevOffset === null ? null : linkWithOffset(input.url, prevOffset),
    nextOffset,
    prevOffset,
  };
}

/** Partner search: links, paging echoing the request, data. */
export function partnerEnvelope(input: ResponseInput) {
  const { limit, offset } = pagingOf(input.params);
  const links = pageLinks(input);
  return {
    links: { self: links.self, next: links.next, prev: links.prev },
    paging: { limit, offset, nextOffset: links.nextOffset, prevOffset: links.prevOffset },
    data: input.items,
  };
}

/** Products list: links with prev, next and self, then data. */
export function linksEnvelope(input: ResponseInput) {
  const links = pageLinks(input);
  return { links: { prev: links.prev, next: links.next, self: links.self }, data: input.items };
}

/** The generic resources' convention: meta.paging and items_total, then items. */
export function genericEnvelope(input: ResponseInput) {
  const links = pageLinks(input);
  const total = input.root?.totalCount;
  return {
    meta: {
      paging: { next: links.next, prev: links.prev },
      items_total: typeof total === 'number' ? total : null,
    },
    items: input.items,
  };
}

/** JSON Schema of `{"data": [item, …]}` (suggestions, categories, several products). */
export function dataEnvelopeSchema(item: Record<string, unknown>) {
  return {
    type: 'object',
    required: ['data'],
    properties: { data: { type: 'array', items: item } },
  };
}
