/**
 * Imports every type so it registers with the builder, then builds the schema once, with
 * graphql-js's directives and the incremental delivery ones, @defer and @stream (docs/api.md,
 * "Incremental delivery"): in the schema itself, so the printed SDL and every client see them.
 */
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import './types/market.ts';
import './types/money.ts';
import './types/image-urls.ts';
import './types/product.ts';
import './types/offer.ts';
import './types/property.ts';
import './types/price-trend.ts';
import './types/price-history.ts';
import './types/market-price.ts';
import './types/shop.ts';
import './types/brand.ts';
import './types/category.ts';
import './types/product-listing.ts';

export const schema = builder.toSchema({
  directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
});
