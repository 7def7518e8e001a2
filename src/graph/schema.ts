/** Imports every type so it registers with the builder, then builds the schema once. */
import { builder } from './builder.ts';
import './types/market.ts';
import './types/money.ts';
import './types/image-urls.ts';
import './types/product.ts';

export const schema = builder.toSchema();
