/**
 * Product lists: the `products` root field (by ids, by GTINs, or the market's listing with
 * category and price-trend filters) and a category's products. Listings hold only products
 * with an available offer in the market; lookups by id or GTIN find any known product.
 */
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import {
  countProducts,
  countProductsInCategories,
  listProductIds,
  listProductIdsInCategories,
  type ListingFilter,
  type ListingOrder,
} from '../../db/repositories/product-listing.ts';
import { findProductIdsByGtins } from '../../db/repositories/products.ts';
import { badUserInput } from '../../errors.ts';
import type { RequestContext } from '../../context.ts';
import { builder } from '../builder.ts';
import { groupByKey } from '../grouping.ts';
import { connectionOf, offsetPage, type OffsetPage } from '../pagination.ts';
import type { Scope } from '../scope.ts';
import { CategoryRef, findCategoryByReference, type CategoryParent } from './category.ts';
import { scopeArgs, scopeFromArgs } from './market.ts';
import { ProductConnection, ProductRef, type ProductParent } from './product.ts';

export const PRODUCT_PAGE_LIMITS = { defaultSize: 20, maxSize: 250 } as const;
const MAX_IDS = 20;
const MAX_GTINS = 10;

export const ProductOrderEnum = builder.enumType('ProductOrder', {
  description: 'Order of a product list.',
  values: {
    POPULARITY: { value: 'POPULARITY' as const, description: 'Most popular first (the default).' },
    PRICE: { value: 'PRICE' as const, description: 'Lowest current price first.' },
    PRICE_TREND: {
      value: 'PRICE_TREND' as const,
      description: 'Best price trend (furthest below the 90-day average) first, then popularity.',
    },
  } satisfies Record<ListingOrder, unknown>,
});

export const PriceTrendFilter = builder.inputType('PriceTrendFilter', {
  description: 'Bounds on the price trend percentage (positive: cheaper than its 90-day average).',
  fields: (t) => ({
    gte: t.float({ description: 'Keep products whose trend is at least this.' }),
    lte: t.float({ description: 'Keep products whose trend is at most this.' }),
  }),
});

function checkPriceTrend(bounds: { gte?: number | null; lte?: number | null } | null | undefined) {
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

/** Resolves ids and GTINs to known products, in the order given, duplicates collapsed. */
async function lookUpProducts(
  context: RequestContext,
  scope: Scope,
  ids: readonly number[],
  gtins: readonly string[],
): Promise<ProductParent[]> {
  if (ids.some((id) => id < 1))
    throw badUserInput('ids must be positive integers', 'ids', 'out_of_range');
  const byGtin = gtins.length > 0 ? await findProductIdsByGtins(context.db, gtins) : new Map();
  const wanted = [...new Set([...ids, ...gtins.flatMap((gtin) => byGtin.get(gtin) ?? [])])];
  const loaded = await ProductRef.getDataloader(context).loadMany(
    wanted.map((id) => `${scope.market}:${id}`),
  );
  return loaded.flatMap((product) => {
    if (product instanceof Error) throw product;
    return product ? [{ row: product.row, scope }] : [];
  });
}

builder.queryField('products', (t) =>
  t.field({
    type: ProductConnection,
    description: `Products of a market. With \`ids\` (≤ ${MAX_IDS}) or \`gtins\` (≤ ${MAX_GTINS}): those products, in the order given, duplicates collapsed, unknown ones left out. Otherwise: the products with an available offer in the market, filtered and ordered (at most ${PRODUCT_PAGE_LIMITS.maxSize} per page).`,
    args: {
      ...scopeArgs,
      ...t.arg.connectionArgs(),
      ids: t.arg.intList({ description: `Numeric product ids (at most ${MAX_IDS}).` }),
      gtins: t.arg.stringList({ description: `GTINs (at most ${MAX_GTINS}).` }),
      category: t.arg.string({
        description: 'A category id or slug: keep products of that category and those below it.',
      }),
      priceTrend: t.arg({ type: PriceTrendFilter, description: 'Bounds on the price trend.' }),
      orderBy: t.arg({
        type: ProductOrderEnum,
        defaultValue: 'POPULARITY',
        description: 'The order of the list (not with ids or gtins).',
      }),
    },
    resolve: async (_root, args, context) => {
      const scope = scopeFromArgs(args);
      const page = offsetPage(args, PRODUCT_PAGE_LIMITS);
      if (args.ids != null || args.gtins != null) {
        const ids = args.ids ?? [];
        const gtins = args.gtins ?? [];
        if (ids.length > MAX_IDS) throw badUserInput(`at most ${MAX_IDS} ids`, 'ids', 'too_many');
        if (gtins.length > MAX_GTINS)
          throw badUserInput(`at most ${MAX_GTINS} gtins`, 'gtins', 'too_many');
        if (args.category != null || args.priceTrend != null) {
          throw badUserInput('ids and gtins take no other filter', 'ids', 'exclusive');
        }
        const products = await lookUpProducts(context, scope, ids, gtins);
        return connectionOf(
          page,
          products.slice(page.offset, page.offset + page.limit),
          products.length,
        );
      }

      checkPriceTrend(args.priceTrend);
      const filter: ListingFilter = {
        market: scope.market,
        priceTrend: args.priceTrend ?? undefined,
      };
      if (args.category != null)
        filter.categoryId = (await categoryIdOf(context, args.category)).id;
      const order = args.orderBy ?? 'POPULARITY';
      const ids = await listProductIds(context.db, filter, order, page);
      const products = await ProductRef.getDataloader(context).loadMany(
        ids.map((id) => `${scope.market}:${id}`),
      );
      const listed = products.flatMap((p) =>
        p && !(p instanceof Error) ? [{ row: p.row, scope }] : [],
      );
      return connectionOf(page, listed, () => countProducts(context.db, filter));
    },
  }),
);

/** A category given as numeric id or slug, or a NOT_FOUND naming it. */
async function categoryIdOf(context: RequestContext, reference: string) {
  const row = /^\d+$/.test(reference)
    ? await findCategoryByReference(context, { id: Number(reference) })
    : await findCategoryByReference(context, { slug: reference });
  if (!row) {
    throw badUserInput(`unknown category "${reference}"`, 'category', 'unknown');
  }
  return row;
}

builder.objectField(CategoryRef, 'products', (t) =>
  t.loadable({
    type: ProductConnection,
    description: `The products below this category with an available offer in the market (at most ${PRODUCT_PAGE_LIMITS.maxSize} per page).`,
    byPath: true,
    args: {
      ...t.arg.connectionArgs(),
      priceTrend: t.arg({ type: PriceTrendFilter, description: 'Bounds on the price trend.' }),
      orderBy: t.arg({
        type: ProductOrderEnum,
        defaultValue: 'POPULARITY',
        description: 'The order of the list.',
      }),
    },
    load: async (categories: CategoryParent[], context, args) => {
      checkPriceTrend(args.priceTrend);
      const page: OffsetPage = offsetPage(args as DefaultConnectionArguments, PRODUCT_PAGE_LIMITS);
      const market = categories[0]!.scope.market;
      const filter: ListingFilter = { market, priceTrend: args.priceTrend ?? undefined };
      const categoryIds = categories.map((c) => c.row.id);
      const rows = await listProductIdsInCategories(
        context.db,
        categoryIds,
        filter,
        args.orderBy ?? 'POPULARITY',
        page,
      );
      const products = await ProductRef.getDataloader(context).loadMany(
        rows.map((row) => `${market}:${row.product_id}`),
      );
      const byCategory = groupByKey(
        categoryIds,
        rows.map((row, index) => ({ categoryId: row.category_id, product: products[index] })),
        (item) => item.categoryId,
      );
      let totals: Promise<Map<number, number>> | undefined;
      return byCategory.map((items, index) => {
        const category = categories[index]!;
        const listed = items.flatMap(({ product }) =>
          product && !(product instanceof Error)
            ? [{ row: product.row, scope: category.scope }]
            : [],
        );
        return connectionOf(page, listed, async () => {
          totals ??= countProductsInCategories(context.db, categoryIds, filter);
          return (await totals).get(category.row.id) ?? 0;
        });
      });
    },
    loaderOptions: {
      cacheKeyFn: (c: CategoryParent) => `${c.scope.market}:${c.row.id}:${c.scope.ref ?? ''}`,
    },
    resolve: (category) => category,
  }),
);
