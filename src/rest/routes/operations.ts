/** The GraphQL operations REST routes run, each written once. */
import type { OperationShape } from '../document.ts';
import { connectionVariables, PAGE_INFO_PATHS, pagingOf } from '../paging.ts';
import type { ParamValues } from '../params.ts';

const PRODUCTS_VARIABLES =
  '$market: Market!, $ref: String, $ids: [Int!], $gtins: [String!], $query: String, $category: String, $priceTrend: PriceTrendFilter, $orderBy: ProductOrder, $first: Int, $after: String';
const PRODUCTS_ROOT =
  'products(market: $market, ids: $ids, gtins: $gtins, query: $query, category: $category, priceTrend: $priceTrend, orderBy: $orderBy, first: $first, after: $after)';

/** A page of the `products` connection (lookups by id/GTIN, listings, text search). */
export const productsPage: OperationShape = {
  variables: PRODUCTS_VARIABLES,
  root: PRODUCTS_ROOT,
  envelope: PAGE_INFO_PATHS,
  items: 'edges.node',
};

/** The same, with the total the generic convention reports as `items_total`. */
export const productsPageWithTotal: OperationShape = {
  ...productsPage,
  envelope: [...PAGE_INFO_PATHS, 'totalCount'],
};

/** One product by id. */
export const singleProduct: OperationShape = {
  variables: '$market: Market!, $id: Int!, $ref: String, $first: Int, $after: String',
  root: 'product(market: $market, id: $id)',
  envelope: [],
  items: '',
};

/** A page of the categories matching a text query. */
export const categoriesPage: OperationShape = {
  variables: '$market: Market!, $query: String!, $first: Int, $after: String',
  root: 'categories(market: $market, query: $query, first: $first, after: $after)',
  envelope: PAGE_INFO_PATHS,
  items: 'edges.node',
};

/** A page of every category, with the total the generic convention reports. */
export const allCategoriesPage: OperationShape = {
  variables: '$market: Market!, $first: Int, $after: String',
  root: 'categories(market: $market, first: $first, after: $after)',
  envelope: [...PAGE_INFO_PATHS, 'totalCount'],
  items: 'edges.node',
};

/** One category by id or slug. */
export const singleCategory: OperationShape = {
  variables: '$market: Market!, $id: Int, $slug: String, $ref: String',
  root: 'category(market: $market, id: $id, slug: $slug)',
  envelope: [],
  items: '',
};

/** A page of a category's products. */
export const categoryProductsPage: OperationShape = {
  variables: '$market: Market!, $id: Int, $slug: String, $ref: String, $first: Int, $after: String',
  root: 'category(market: $market, id: $id, slug: $slug)',
  envelope: [
    'products(first: $first, after: $after).pageInfo.hasNextPage',
    'products(first: $first, after: $after).totalCount',
  ],
  items: 'products(first: $first, after: $after).edges.node',
};

/** Drops undefined values: a variable left out lets the argument's default apply. */
export function definedVariables(variables: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(variables).filter(([, value]) => value !== undefined));
}

/**
 * The variables of a route's scope: the market every root field takes (a GraphQL enum name)
 * and the partner ref the offers' `url(ref: $ref)` take.
 */
export function scopeVariables(params: ParamValues): { market: string; ref?: string } {
  const market = String(params.market).toUpperCase();
  return params.ref === undefined ? { market } : { market, ref: params.ref as string };
}

/**
 * A paged route's variables: its scope, what the route adds, and `limit`/`offset` as
 * connection arguments; undefined values left out so the arguments' defaults apply.
 */
export function pageVariables(
  params: ParamValues,
  variables: Record<string, unknown> = {},
): Record<string, unknown> {
  return definedVariables({
    ...scopeVariables(params),
    ...variables,
    ...connectionVariables(pagingOf(params)),
  });
}
