/**
 * Products, brands and categories as compiled JSON, and a category's page of products: the
 * listing's own statement pieces (../../db/repositories/product-listing.ts) for the category
 * the statement holds.
 */
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import {
  categoryPageRows,
  categoryProductTotals,
  type ListingFilter,
} from '../../db/repositories/product-listing.ts';
import type { SearchOrder } from '../../db/repositories/product-search.ts';
import { checkPriceTrend, listingOrderOf } from '../listing-arguments.ts';
import { PRODUCT_PAGE_LIMITS } from '../page-limits.ts';
import { connectionJson } from './connections.ts';
import { column, globalId, jsonObject, scopeJson, tableRow, text } from './json-sql.ts';
import type { Emitter, EmitterTable, Env, TableRow } from './json-sql.ts';
import {
  argumentsOf,
  imageUrls,
  lookedUp,
  pageAsked,
  productOffers,
  rowFallback,
} from './offers.ts';
import type { Selection } from './selection-tree.ts';

const BRAND_FIELDS: EmitterTable<TableRow> = {
  id: (_field, brand) => globalId('Brand', '', brand.column('id'), null),
  brandId: column('id'),
  name: column('name'),
};

interface CategoryProductsArguments extends DefaultConnectionArguments {
  priceTrend?: { gte?: number | null; lte?: number | null } | null;
  orderBy?: SearchOrder | null;
}

/** `Category.products`: a page of the listed products below the category. */
const categoryProducts: Emitter<TableRow> = (field, category, env) => {
  const args = argumentsOf<CategoryProductsArguments>(field, env);
  let order;
  try {
    checkPriceTrend(args.priceTrend);
    order = listingOrderOf(args.orderBy);
  } catch {
    return undefined; // the resolver reports it
  }
  const page = pageAsked(args, PRODUCT_PAGE_LIMITS);
  if (page === undefined) return undefined;
  const filter: ListingFilter = {
    market: env.scope.market,
    priceTrend: args.priceTrend ?? undefined,
  };
  const categoryIds = sql`array[${category.column('id')}]`;
  const alias = env.alias();
  const from = sql`(
    select p.*, (listed.position - 1)::int as list_position
      from (${categoryPageRows(categoryIds, filter, order, page)}) as listed
      join products p on p.id = listed.product_id
  ) as ${sql.id(alias)}`;
  const total = () =>
    sql`(select t.total from (${categoryProductTotals(categoryIds, filter)}) as t)`;
  return connectionJson(
    field.selection,
    { from, row: tableRow(alias), page, total },
    productJson,
    env,
  );
};

const CATEGORY_FIELDS: EmitterTable<TableRow> = {
  id: (_field, category, env) =>
    globalId('Category', `${env.scope.market}:`, category.column('id'), env.scope),
  categoryId: column('id'),
  slug: column('slug'),
  // `name` is the resolver's: in the market's language (src/localisation).
  description: column('description'),
  isLeaf: column('is_leaf'),
  logo: (field, category, env) => {
    const urls = imageUrls(field, category, 'logo', env);
    const none = sql`${category.column('logo_small_url')} is null and ${category.column('logo_large_url')} is null`;
    return urls && sql`case when ${none} then null else ${urls} end`;
  },
  products: categoryProducts,
};

/**
 * A category; fields left to the resolvers read its whole row, as its loaders give it, and its
 * cache tag its scope.
 */
export function categoryJson(selection: Selection | undefined, category: TableRow, env: Env) {
  // Without fields left to the resolvers, its scope is all the type's cache tag reads.
  const row = (left: unknown[]) =>
    left.length > 0 ? sql`'row', to_json(${sql.id(category.alias)}), ` : sql``;
  const fallback = (left: unknown[]) =>
    sql`json_build_object(${row(left)}'scope', ${scopeJson(env.scope)})`;
  return jsonObject(selection, CATEGORY_FIELDS, category, env, fallback, true);
}

const PRODUCT_FIELDS: EmitterTable<TableRow> = {
  id: (_field, product, env) =>
    globalId('Product', `${env.scope.market}:`, product.column('id'), env.scope),
  productId: column('id'),
  market: (_field, _product, env) => text(env.scope.market),
  name: column('name'),
  description: column('description'),
  popularity: column('popularity'),
  rankWithinCategory: column('rank_within_category'),
  // `images` is the resolver's: pictures the service draws, on the request's public base.
  brand: (field, product, env) =>
    lookedUp(
      product,
      'brand_id',
      'brands',
      (brand) =>
        jsonObject(
          field.selection,
          BRAND_FIELDS,
          brand,
          env,
          () => sql`to_json(${sql.id(brand.alias)})`,
        ),
      env,
    ),
  category: (field, product, env) =>
    lookedUp(
      product,
      'category_id',
      'categories',
      (c) => categoryJson(field.selection, c, env),
      env,
    ),
  offers: productOffers,
};

export function productJson(selection: Selection | undefined, product: TableRow, env: Env) {
  const fallback = rowFallback(product, ['id'], env);
  return jsonObject(selection, PRODUCT_FIELDS, product, env, fallback, true);
}
