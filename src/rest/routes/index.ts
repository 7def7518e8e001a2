/** Every REST data route, in the order the OpenAPI document lists them. */
import type { RestRoute } from '../route.ts';
import { categoriesRoute } from './categories.ts';
import {
  genericCategoriesRoute,
  genericCategoryProductsRoute,
  genericCategoryRoute,
  genericProductRoute,
  genericProductsRoute,
} from './generic.ts';
import { partnerProductRoute, partnerSearchRoute } from './partner-search.ts';
import { productsByIdRoute, productsRoute } from './products.ts';
import { suggestionsRoute } from './suggestions.ts';

export const restRoutes: readonly RestRoute[] = [
  partnerSearchRoute,
  partnerProductRoute,
  suggestionsRoute,
  categoriesRoute,
  productsRoute,
  productsByIdRoute,
  genericProductsRoute,
  genericProductRoute,
  genericCategoriesRoute,
  genericCategoryRoute,
  genericCategoryProductsRoute,
];
