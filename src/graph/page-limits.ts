/** Pages of offers and of products: the resolvers' and the compiled path's (./compile). */
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import type { OfferOrder } from '../db/repositories/offers.ts';

export const OFFER_PAGE_LIMITS = { defaultSize: 20, maxSize: 250 } as const;
export const PRODUCT_PAGE_LIMITS = { defaultSize: 20, maxSize: 250 } as const;

/** A product's page of offers, as `Product.offers` takes it. */
export interface OfferPageArguments extends DefaultConnectionArguments {
  orderBy?: OfferOrder | null;
}
