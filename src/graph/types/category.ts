/**
 * Category: a node of the category tree, seen in a market (its product count, lowest price
 * and page URL are the market's).
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import {
  countCategories,
  countLeafCategoriesMatching,
  listCategories,
  findAncestors,
  findCategoriesByIds,
  findCategoriesBySlugs,
  findCategoryMarketStats,
  findChildCategories,
  searchLeafCategories,
  type CategoryMarketStatsRow,
  type CategoryRow,
} from '../../db/repositories/categories.ts';
import { categoryNameIn } from '../../localisation/category-names.ts';
import { marketLanguage } from '../../localisation/market-language.ts';
import { marketTextSearch } from '../../search/market-text-search.ts';
import { MAX_QUERY_LENGTH, MAX_QUERY_TERMS } from '../../search/text-search.ts';
import type { RequestContext } from '../../context.ts';
import { listsTag } from '../../cache/answer-tags.ts';
import { badUserInput } from '../../errors.ts';
import { entityByGlobalId } from '../federation.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { cacheTags } from '../cache-tags.ts';
import { categoryLookup } from '../category-reference.ts';
import { compiledCategories, compiledCategory } from '../compile/root-fields.ts';
import { groupByKey, oneByKey } from '../grouping.ts';
import { pageCost } from '../limits.ts';
import {
  checkPageArguments,
  connectionOf,
  offsetPage,
  pageArgumentBounds,
  pageFromEnd,
  pageOfList,
} from '../pagination.ts';
import {
  loadMarketScoped,
  marketKey,
  nodeKey,
  scoped,
  scopeKey,
  type Scope,
  type Scoped,
} from '../scope.ts';
import { columns } from '../selection.ts';
import { ImageUrlsRef } from './image-urls.ts';
import { scopeArgs, scopeFromArgs } from './market.ts';
import { MoneyRef, moneyIn } from './money.ts';
import { ProductRef } from './product.ts';

export type CategoryParent = Scoped<CategoryRow>;

export const CategoryRef = builder.loadableNodeRef('Category', {
  id: { resolve: (category: CategoryParent) => nodeKey(marketKey(category), category.scope) },
  loaderOptions: loaderOptions(),
  load: (keys: string[], context) =>
    loadMarketScoped(keys, (ids) => findCategoriesByIds(context.db, ids), 'category'),
});

// A federation entity keyed by `id` (docs/federation.md): `_entities` loads it here.
builder.asEntity(CategoryRef, entityByGlobalId(CategoryRef));

const NAME_DESCRIPTION =
  'The category name in the market’s language (Swedish in SE, Norwegian in NO, Danish in DK, Finnish in FI, French in FR, English in GB and NZ).';

async function nameInMarketLanguage(c: CategoryParent, _args: object, context: RequestContext) {
  return categoryNameIn(await marketLanguage(context, c.scope.market), c.row);
}

CategoryRef.implement({
  description: 'A category of the catalogue tree, seen in a market.',
  // A category's products, their count and lowest price follow every offer in its market:
  // any answer about one is a list answer (its name and place in the tree come along).
  extensions: cacheTags((c: CategoryParent) => listsTag(c.scope.market)),
  fields: (t) => ({
    categoryId: t.int({ description: 'The numeric category id.', resolve: (c) => c.row.id }),
    slug: t.string({
      description: 'URL-safe unique name; accepted wherever a category id is.',
      resolve: (c) => c.row.slug,
    }),
    name: t.string({ description: NAME_DESCRIPTION, resolve: nameInMarketLanguage }),
    description: t.string({
      nullable: true,
      description: 'A short description.',
      resolve: (c) => c.row.description,
    }),
    isLeaf: t.boolean({
      description: 'True for a leaf: products belong to leaves.',
      resolve: (c) => c.row.is_leaf,
    }),
    logo: t.field({
      type: ImageUrlsRef,
      nullable: true,
      description: 'The category logo, or null when it has none.',
      resolve: (c) =>
        c.row.logo_small_url === null && c.row.logo_large_url === null
          ? null
          : { small: c.row.logo_small_url, large: c.row.logo_large_url },
    }),
    url: t.string({
      description: 'URL of the category page on the market’s site.',
      resolve: async (c, _args, context) =>
        `${await context.siteBaseUrl(c.scope.market)}/category/${c.row.slug}`,
    }),
    parent: t.loadable({
      type: CategoryRef,
      nullable: true,
      description: 'The parent category; null for a root.',
      load: async (keys: CategoryParent[], context) => {
        const rows = await findCategoriesByIds(
          context.db,
          keys.map((c) => c.row.parent_id!),
        );
        return oneByKey(
          keys.map((c) => c.row.parent_id),
          rows,
          (row) => row.id,
        ).map((row, index) => (row ? { row, scope: keys[index]!.scope } : null));
      },
      loaderOptions: loaderOptions({ cacheKeyFn: scopeKey }),
      resolve: (c) => (c.row.parent_id === null ? null : c),
    }),
    children: t.loadableList({
      type: CategoryRef,
      description: 'The sub-categories, in display order.',
      load: async (keys: CategoryParent[], context) => {
        const rows = await findChildCategories(
          context.db,
          keys.map((c) => c.row.id),
        );
        return groupByKey(
          keys.map((c) => c.row.id),
          rows,
          (row) => row.parent_id,
        ).map((group, index) => group.map(scoped<CategoryRow>(keys[index]!.scope)));
      },
      loaderOptions: loaderOptions({ cacheKeyFn: scopeKey }),
      resolve: (c) => c,
    }),
    ancestors: t.loadableList({
      type: CategoryRef,
      description: 'The path from the root down to the parent (empty for a root).',
      load: async (keys: CategoryParent[], context) => {
        const rows = await findAncestors(
          context.db,
          keys.map((c) => c.row.id),
        );
        return groupByKey(
          keys.map((c) => c.row.id),
          rows,
          (row) => row.descendant_id,
        ).map((group, index) => group.reverse().map((row) => ({ row, scope: keys[index]!.scope })));
      },
      loaderOptions: loaderOptions({ cacheKeyFn: scopeKey }),
      resolve: (c) => c,
    }),
    productsTotal: t.int({
      description: 'How many products below this category have an available offer in the market.',
      resolve: async (c, _args, context) =>
        (await marketStatsLoader(context).load(c)).products_total,
    }),
    lowestPrice: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'The lowest available price below this category in the market.',
      resolve: async (c, _args, context) => {
        const stats = await marketStatsLoader(context).load(c);
        return moneyIn(c.scope.market, stats.lowest_price);
      },
    }),
  }),
});

/** productsTotal and lowestPrice share one statement per batch of categories and request. */
const marketStatsLoader = createContextCache(
  (context: RequestContext) =>
    new DataLoader<CategoryParent, CategoryMarketStatsRow, string>(
      async (keys) => {
        const rows = await findCategoryMarketStats(
          context.db,
          keys.map((c) => ({ categoryId: c.row.id, market: c.scope.market })),
        );
        return oneByKey(keys.map(marketKey), rows, (row) => `${row.market}:${row.category_id}`).map(
          (row, index) =>
            row ?? {
              category_id: keys[index]!.row.id,
              market: keys[index]!.scope.market,
              products_total: 0,
              lowest_price: null,
            },
        );
      },
      loaderOptions({ cacheKeyFn: marketKey }),
    ),
);

builder.objectField(ProductRef, 'category', (t) =>
  t.loadable({
    ...columns('category_id'),
    type: CategoryRef,
    description: 'The product’s (leaf) category.',
    load: async (products: { categoryId: number; scope: Scope }[], context) => {
      const rows = await findCategoriesByIds(
        context.db,
        products.map((p) => p.categoryId),
      );
      return oneByKey(
        products.map((p) => p.categoryId),
        rows,
        (row) => row.id,
      ).map((row, index) =>
        row
          ? { row, scope: products[index]!.scope }
          : new Error(`category ${products[index]!.categoryId} is missing`),
      );
    },
    loaderOptions: {
      cacheKeyFn: (p: { categoryId: number; scope: Scope }) =>
        `${p.scope.market}:${p.categoryId}:${p.scope.ref ?? ''}`,
    },
    resolve: (product) => ({ categoryId: product.row.category_id, scope: product.scope }),
  }),
);

/** Categories by id or by slug, every lookup of a request's tick in one statement per kind. */
const categoriesByReference = createContextCache((context: RequestContext) => ({
  byId: new DataLoader<number, CategoryRow | null>(
    async (ids) => oneByKey(ids, await findCategoriesByIds(context.db, ids), (row) => row.id),
    loaderOptions(),
  ),
  bySlug: new DataLoader<string, CategoryRow | null>(
    async (slugs) =>
      oneByKey(slugs, await findCategoriesBySlugs(context.db, slugs), (row) => row.slug),
    loaderOptions(),
  ),
}));

/** A category by numeric id or slug, or null; throws on a malformed reference. */
export async function findCategoryByReference(
  context: RequestContext,
  reference: { id?: number | null; slug?: string | null },
): Promise<CategoryRow | null> {
  const lookup = categoryLookup(reference);
  if (lookup === null) return null;
  const loaders = categoriesByReference(context);
  return 'id' in lookup ? loaders.byId.load(lookup.id) : loaders.bySlug.load(lookup.slug);
}

builder.queryField('category', (t) =>
  t.field({
    type: CategoryRef,
    nullable: true,
    description: 'One category by numeric id or by slug, seen in a market; null when unknown.',
    args: {
      ...scopeArgs,
      id: t.arg.int({ description: 'The numeric category id.' }),
      slug: t.arg.string({ description: 'The category slug.' }),
    },
    resolve: async (_root, args, context, info) => {
      const scope = scopeFromArgs(args);
      const lookup = categoryLookup(args);
      if (lookup === null) return null;
      const compiled = compiledCategory(context, info, scope, lookup);
      if (compiled) return compiled;
      const row = await findCategoryByReference(context, args);
      return row ? { row, scope } : null;
    },
  }),
);

/** The bounds of the REST categories endpoint, which pages through this field. */
export const CATEGORY_SEARCH_PAGE_LIMITS = { defaultSize: 5, maxSize: 100 } as const;

const CategoryConnection = builder.connectionObject({
  type: CategoryRef,
  name: 'CategoryConnection',
  description: 'A page of categories.',
});

builder.queryField('categories', (t) =>
  t.field({
    type: CategoryConnection,
    description: `With \`query\`: the leaf categories (those products belong to) whose name in the market's language or English name matches it, by the rules of \`products(query:)\` (every term a word, synonym, word's beginning or typo of one); best match first, then the shortest name. Without: the categories of the whole tree, parents before children, a page at a time (\`totalCount\` counts them all). ${CATEGORY_SEARCH_PAGE_LIMITS.defaultSize} per page unless \`first\` says otherwise, at most ${CATEGORY_SEARCH_PAGE_LIMITS.maxSize}. A category's id or slug can be passed as \`category\` to \`products\`.`,
    args: {
      ...scopeArgs,
      ...t.arg.connectionArgs(),
      query: t.arg.string({
        description: `Text to find in category names (not blank, at most ${MAX_QUERY_TERMS} space-separated terms, ${MAX_QUERY_LENGTH} characters; punctuation separates words).`,
      }),
    },
    complexity: (args) => pageCost(CATEGORY_SEARCH_PAGE_LIMITS, args),
    extensions: pageArgumentBounds(CATEGORY_SEARCH_PAGE_LIMITS),
    resolve: async (_root, args, context, info) => {
      const scope = scopeFromArgs(args);
      checkPageArguments(args, CATEGORY_SEARCH_PAGE_LIMITS);
      if (args.query == null && !pageFromEnd(args)) {
        const page = offsetPage(args, CATEGORY_SEARCH_PAGE_LIMITS);
        const compiled = compiledCategories(context, info, scope, page);
        if (compiled) return compiled;
      }
      if (args.query == null) {
        const count = () => countCategories(context.db);
        const { page, total } = await pageOfList(args, CATEGORY_SEARCH_PAGE_LIMITS, count);
        const rows = await listCategories(context.db, page);
        return connectionOf(page, rows.map(scoped<CategoryRow>(scope)), total ?? count);
      }
      if (args.query.trim() === '') {
        throw badUserInput('query must not be empty', 'query', 'empty');
      }
      const search = (await marketTextSearch(context, scope.market, args.query))!;
      if (search.tiers.length === 0) {
        return connectionOf(offsetPage(args, CATEGORY_SEARCH_PAGE_LIMITS, 0), [], 0);
      }
      const count = () => countLeafCategoriesMatching(context.db, search);
      const { page, total } = await pageOfList(args, CATEGORY_SEARCH_PAGE_LIMITS, count);
      const rows = await searchLeafCategories(context.db, search, page);
      return connectionOf(page, rows.map(scoped<CategoryRow>(scope)), total ?? count);
    },
  }),
);
