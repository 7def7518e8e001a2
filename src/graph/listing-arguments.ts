/**
 * The checks of a product listing's arguments, shared by the resolvers and the compiled path
 * (./compile), so both refuse the same arguments with the same errors.
 */
import type { ListingOrder } from '../db/repositories/product-listing.ts';
import type { SearchOrder } from '../db/repositories/product-search.ts';
import { badUserInput } from '../errors.ts';

export function checkPriceTrend(
  bounds: { gte?: number | null; lte?: number | null } | null | undefined,
) {
  for (const name of ['gte', 'lte'] as const) {
    const value = bounds?.[name];
    if (value != null && (!Number.isFinite(value) || Math.abs(value) > 1e6)) {
      throw badUserInput(
        `priceTrend.${name} must be a finite number`,
        `priceTrend.${name}`,
        'out_of_range',
      );
    }
  }
}

/** An order without a text query: RELEVANCE needs one. */
export function listingOrderOf(orderBy: SearchOrder | null | undefined): ListingOrder {
  if (orderBy === 'RELEVANCE') {
    throw badUserInput('orderBy RELEVANCE needs a query', 'orderBy', 'needs_query');
  }
  return orderBy ?? 'POPULARITY';
}
