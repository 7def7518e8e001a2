/** Imports every type so it registers with the builder, then builds the schema once. */
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
import './types/node.ts';

export const schema = builder.toSchema();
