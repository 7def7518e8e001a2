/**
 * Imports every type so it registers with the builder, then builds the schema once: as a
 * federation subgraph (./federation.ts), which is the public schema plus `_service` and
 * `_entities`, so one endpoint serves clients and a gateway alike; with graphql-js's
 * directives and the incremental delivery ones, @defer and @stream (docs/api.md, "Incremental
 * delivery"), in the schema itself, so the printed SDL and every client see them.
 */
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { specifiedDirectives } from 'graphql';
import { builder } from './builder.ts';
import { answerCompiledValues } from './compile/compiled-values.ts';
import { describeFederation, FEDERATION_DIRECTIVES, FEDERATION_SPEC } from './federation.ts';
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
import './types/lowest-price-change.ts';
import './types/offer-change.ts';
import './types/node.ts';

export const schema = answerCompiledValues(
  describeFederation(
    builder.toSubGraphSchema({
      linkUrl: FEDERATION_SPEC,
      federationDirectives: FEDERATION_DIRECTIVES,
      directives: [...specifiedDirectives, GraphQLDeferDirective, GraphQLStreamDirective],
    }),
  ),
);
