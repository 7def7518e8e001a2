/**
 * Product lists: the `products` root field (by ids, by GTINs, or the market's listing with a
 * text query, category and price-trend filters) and a category's products. Listings hold
 * only products with an available offer in the market; lookups by id or GTIN find any known
 * product.
 */
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import {
  countProducts,
  countProductsInCategories,
  listProducts,
  listProductsInCategories,
  type ListingFilter,
} from '../../db/repositories/product-listing.ts';
import {
  countSearchMatches,
  searchProductIds,
  SEARCH_COUNT_CAP,
  type SearchOrder,
} from '../../db/repositories/product-search.ts';
import {
  findProductIdsByGtins,
  type ProductColumn,
  type ProductRow,
} from '../../db/repositories/products.ts';
import { listsTag } from '../../cache/answer-tags.ts';
import { badUserInput } from '../../errors.ts';
import { marketTextSearch } from '../../search/market-text-search.ts';
import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS } from '../../search/text-search.ts';
import type { RequestContext } from '../../context.ts';
import type { MarketCode } from '../../markets.ts';
import { builder } from '../builder.ts';
import { cacheTags } from '../cache-tags.ts';
import { compiledProductsByIds } from '../compile/root-fields.ts';
import { loaderPerArguments } from '../argument-loaders.ts';
import { groupByKey } from '../grouping.ts';
import { pageCost } from '../limits.ts';
import { checkPriceTrend, listingOrderOf } from '../listing-arguments.ts';
import { PRODUCT_PAGE_LIMITS } from '../page-limits.ts';
import { unionOfColumns } from '../row-loader.ts';
import {
  checkPageArguments,
  connectionOf,
  offsetPage,
  pageArgumentBounds,
  pageOfList,
  pagesOfBatch,
  type OffsetPage,
} from '../pagination.ts';
import { scoped, scopeKey, type Scope } from '../scope.ts';
import { CONNECTION_ITEMS, selectedColumns } from '../selection.ts';
import { CategoryRef, findCategoryByReference, type CategoryParent } from './category.ts';
import { scopeArgs, scopeFromArgs } from './market.ts';
import { PRODUCT_ROW, ProductConnection, productRows, type ProductParent } from './product.ts';

const MAX_IDS = 20;
const MAX_GTINS = 10;

export const ProductOrderEnum = builder.enumType('ProductOrder', {
  description: 'Order of a product list.',
  values: {
    RELEVANCE: {
      value: 'RELEVANCE' as const,
      description:
        'Best match of the text `query` first, then the most popular, in tiers: every term is a word (after stemming) or a synonym of a word of the name or brand; of the name, brand or category; of those or a category above it; then some term only begins a word; then some term matches only with typos. Only with a `query`, where it is the default.',
    },
    POPULARITY: {
      value: 'POPULARITY' as const,
      description: 'Most popular first (the default without a `query`).',
    },
    PRICE: { value: 'PRICE' as const, description: 'Lowest current price first.' },
    PRICE_TREND: {
      value: 'PRICE_TREND' as const,
      description: 'Best price trend (furthest below the 90-day average) first, then popularity.',
    },
  } satisfies Record<SearchOrder, unknown>,
});

export const PriceTrendFilter = builder.inputType('PriceTrendFilter', {
  description: 'Bounds on the price trend percentage (positive: cheaper than its 90-day average).',
  fields: (t) => ({
    gte: t.float({ description: 'Keep products whose trend is at least this.' }),
    lte: t.float({ description: 'Keep products whose trend is at most this.' }),
  }),
});

/** The columns of the products a connection field's selection shows. */
function listedProductColumns(info: GraphQLResolveInfo): ProductColumn[] {
  return selectedColumns(info, PRODUCT_ROW, CONNECTION_ITEMS);
}

/** The products of these ids seen in the scope, in order; ids of unknown products left out. */
async function loadProducts(
  context: RequestContext,
  scope: Scope,
  ids: readonly number[],
  columns: readonly ProductColumn[],
): Promise<ProductParent[]> {
  const rows = await productRows(context).loadMany(ids.map((id) => ({ id, columns })));
  return rows.flatMap((row) => {
    if (row instanceof Error) throw row;
    return row ? [{ row, scope }] : [];
  });
}

/** Resolves ids and GTINs to known products, in the order given, duplicates collapsed. */
async function lookUpProducts(
  context: RequestContext,
  scope: Scope,
  ids: readonly number[],
  gtins: readonly string[],
  columns: readonly ProductColumn[],
): Promise<ProductParent[]> {
  const byGtin = gtins.length > 0 ? await findProductIdsByGtins(context.db, gtins) : new Map();
  const wanted = [...new Set([...ids, ...gtins.flatMap((gtin) => byGtin.get(gtin) ?? [])])];
  return loadProducts(context, scope, wanted, columns);
}

interface LookupArguments extends DefaultConnectionArguments {
  ids?: readonly number[] | null;
  gtins?: readonly string[] | null;
  category?: string | null;
  priceTrend?: unknown;
  query?: string | null;
}

/** `products(ids:)` or `products(gtins:)`: those products, in the order given (see below). */
async function productsByIdsOrGtins(
  context: RequestContext,
  info: GraphQLResolveInfo,
  scope: Scope,
  args: LookupArguments,
) {
  const ids = args.ids ?? [];
  const gtins = args.gtins ?? [];
  if (ids.length > MAX_IDS) throw badUserInput(`at most ${MAX_IDS} ids`, 'ids', 'too_many');
  if (gtins.length > MAX_GTINS)
    throw badUserInput(`at most ${MAX_GTINS} gtins`, 'gtins', 'too_many');
  if (args.category != null || args.priceTrend != null || args.query != null) {
    throw badUserInput('ids and gtins take no other filter', 'ids', 'exclusive');
  }
  if (ids.some((id) => id < 1))
    throw badUserInput('ids must be positive integers', 'ids', 'out_of_range');
  if (gtins.length === 0 && args.last == null) {
    const page = offsetPage(args, PRODUCT_PAGE_LIMITS);
    const compiled = compiledProductsByIds(context, info, scope, [...new Set(ids)], page);
    if (compiled) return compiled;
  }
  const products = await lookUpProducts(context, scope, ids, gtins, listedProductColumns(info));
  const page = offsetPage(args, PRODUCT_PAGE_LIMITS, products.length);
  return connectionOf(page, products.slice(page.offset, page.offset + page.limit), products.length);
}

builder.queryField('products', (t) =>
  t.field({
    type: ProductConnection,
    description: `Products of a market. With \`ids\` (≤ ${MAX_IDS}) or \`gtins\` (≤ ${MAX_GTINS}): those products, in the order given, duplicates collapsed, unknown ones left out. Otherwise: the products with an available offer in the market, matching the text \`query\` and the filters, ordered (at most ${PRODUCT_PAGE_LIMITS.maxSize} per page).`,
    args: {
      ...scopeArgs,
      ...t.arg.connectionArgs(),
      ids: t.arg.intList({ description: `Numeric product ids (at most ${MAX_IDS}).` }),
      gtins: t.arg.stringList({ description: `GTINs (at most ${MAX_GTINS}).` }),
      query: t.arg.string({
        description: `Text to find: at most ${MAX_QUERY_TERMS} space-separated terms, ${MAX_QUERY_LENGTH} characters. A product matches when every term matches a word of its name, its brand or its category's names (the category and those above it, in the market's language), by the market language's stemming (Swedish in se, Norwegian in no, Danish in dk, Finnish in fi, French in fr, English in gb and nz), as a synonym (tv and television), as a word's beginning, or with typos: one in a term of 5 to 8 letters, two from 9 (a wrong, missing, extra or swapped letter); not in terms with digits. Punctuation separates words. A blank query is no filter. \`totalCount\` counts matches up to ${SEARCH_COUNT_CAP}.`,
      }),
      category: t.arg.string({
        description: 'A category id or slug: keep products of that category and those below it.',
      }),
      priceTrend: t.arg({ type: PriceTrendFilter, description: 'Bounds on the price trend.' }),
      orderBy: t.arg({
        type: ProductOrderEnum,
        description:
          'The order of the list (not with ids or gtins). Default: RELEVANCE with a query, else POPULARITY.',
      }),
    },
    // With ids or GTINs (a GTIN names one product), the page holds at most that many.
    complexity: (args) =>
      args.ids != null || args.gtins != null
        ? pageCost(PRODUCT_PAGE_LIMITS, args, (args.ids?.length ?? 0) + (args.gtins?.length ?? 0))
        : pageCost(PRODUCT_PAGE_LIMITS, args),
    // Which products have an available offer, and their order, follow every run in the
    // market (with ids or GTINs too: conservative, and those pages are small).
    extensions: {
      ...pageArgumentBounds(PRODUCT_PAGE_LIMITS),
      ...cacheTags((_root: unknown, args: { market: MarketCode }) => listsTag(args.market)),
    },
    resolve: async (_root, args, context, info) => {
      const scope = scopeFromArgs(args);
      checkPageArguments(args, PRODUCT_PAGE_LIMITS);
      if (args.ids != null || args.gtins != null) {
        return productsByIdsOrGtins(context, info, scope, args);
      }

      checkPriceTrend(args.priceTrend);
      const text = await marketTextSearch(context, scope.market, args.query);
      const filter: ListingFilter = {
        market: scope.market,
        priceTrend: args.priceTrend ?? undefined,
      };
      if (args.category != null)
        filter.categoryId = (await categoryIdOf(context, args.category)).id;
      const count = () =>
        text === undefined
          ? countProducts(context.db, filter)
          : countSearchMatches(context.db, { ...filter, text });
      const { page, total } = await pageOfList(args, PRODUCT_PAGE_LIMITS, async () => {
        const counted = await count();
        // A search is counted up to a bound: past it, where its list ends is not known.
        if (text !== undefined && counted >= SEARCH_COUNT_CAP) {
          throw badUserInput(
            `last without before counts back from the end of the list, and this search matches ${SEARCH_COUNT_CAP} products or more: page with first, or with before`,
            'last',
            'too_many_matches',
          );
        }
        return counted;
      });
      const columns = listedProductColumns(info);
      const listed =
        text === undefined
          ? (
              await listProducts(context.db, filter, listingOrderOf(args.orderBy), page, columns)
            ).map(scoped<ProductRow>(scope))
          : await loadProducts(
              context,
              scope,
              await searchProductIds(
                context.db,
                { ...filter, text },
                args.orderBy ?? 'RELEVANCE',
                page,
              ),
              columns,
            );
      return connectionOf(page, listed, total ?? count);
    },
  }),
);

/** A category given as numeric id or slug; an unknown one is a BAD_USER_INPUT naming it. */
async function categoryIdOf(context: RequestContext, reference: string) {
  const row = /^\d+$/.test(reference)
    ? await findCategoryByReference(context, { id: Number(reference) })
    : await findCategoryByReference(context, { slug: reference });
  if (!row) {
    throw badUserInput(`unknown category "${reference}"`, 'category', 'unknown');
  }
  return row;
}

/** A category whose products are listed, and the product columns its selection shows. */
interface CategoryProductsKey {
  category: CategoryParent;
  productColumns: readonly ProductColumn[];
}

interface CategoryProductsArguments extends DefaultConnectionArguments {
  priceTrend?: { gte?: number | null; lte?: number | null } | null;
  orderBy?: SearchOrder | null;
  /** The categories' market: a statement lists one market's products. */
  market: MarketCode;
}

/** A page of each category's products: one statement for every category asking the same page. */
const categoryProductPages = loaderPerArguments(
  // Async: a refused argument rejects every key with its own error (DataLoader wraps an error
  // thrown synchronously as its own TypeError, which would answer 500).
  async (keys: readonly CategoryProductsKey[], context, args: CategoryProductsArguments) => {
    checkPriceTrend(args.priceTrend);
    listingOrderOf(args.orderBy);
    const filter: ListingFilter = { market: args.market, priceTrend: args.priceTrend ?? undefined };
    return pagesOfBatch(
      keys,
      args,
      PRODUCT_PAGE_LIMITS,
      async (counted) => {
        const ids = [...new Set(counted.map(({ category }) => category.row.id))];
        const totals = await countProductsInCategories(context.db, ids, filter);
        return counted.map(({ category }) => totals.get(category.row.id) ?? 0);
      },
      (page, paged, totals) => readCategoryProductPages(context, args, filter, page, paged, totals),
    );
  },
  (key) => `${scopeKey(key.category)}/${key.productColumns.join()}`,
);

/** One page of each category's products, in one statement; `totals` when already counted. */
async function readCategoryProductPages(
  context: RequestContext,
  args: CategoryProductsArguments,
  filter: ListingFilter,
  page: OffsetPage,
  keys: readonly CategoryProductsKey[],
  totals?: number[],
) {
  const order = listingOrderOf(args.orderBy);
  // A category may come twice (two selections): list it once.
  const categoryIds = [...new Set(keys.map(({ category }) => category.row.id))];
  const rows = await listProductsInCategories(
    context.db,
    categoryIds,
    filter,
    order,
    page,
    unionOfColumns(keys.map((key) => key.productColumns)),
  );
  const byCategory = groupByKey(
    keys.map(({ category }) => category.row.id),
    rows,
    (row) => row.listed_under,
  );
  let counted: Promise<Map<number, number>> | undefined;
  return byCategory.map((group, index) => {
    const { category } = keys[index]!;
    const listed = group.map(({ listed_under: _, ...row }) => ({ row, scope: category.scope }));
    return connectionOf(
      page,
      listed,
      totals?.[index] ??
        (async () => {
          counted ??= countProductsInCategories(context.db, categoryIds, filter);
          return (await counted).get(category.row.id) ?? 0;
        }),
    );
  });
}

builder.objectField(CategoryRef, 'products', (t) =>
  t.field({
    type: ProductConnection,
    description: `The products below this category with an available offer in the market (at most ${PRODUCT_PAGE_LIMITS.maxSize} per page).`,
    args: {
      ...t.arg.connectionArgs(),
      priceTrend: t.arg({ type: PriceTrendFilter, description: 'Bounds on the price trend.' }),
      orderBy: t.arg({
        type: ProductOrderEnum,
        defaultValue: 'POPULARITY',
        description: 'The order of the list (not RELEVANCE: there is no query here).',
      }),
    },
    complexity: (args) => pageCost(PRODUCT_PAGE_LIMITS, args),
    extensions: pageArgumentBounds(PRODUCT_PAGE_LIMITS),
    resolve: (category, args, context, info) =>
      categoryProductPages(context, { ...args, market: category.scope.market }).load({
        category,
        productColumns: listedProductColumns(info),
      }),
  }),
);
