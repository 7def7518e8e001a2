/**
 * Product: the catalogue's central node. A product is seen in a market (its scope), which
 * every price-bearing field below it inherits; its global id names both.
 */
import {
  findGtinsOfProducts,
  findProductsByIds,
  type ProductColumn,
  type ProductRow,
} from '../../db/repositories/products.ts';
import { productTag } from '../../cache/answer-tags.ts';
import { badUserInput } from '../../errors.ts';
import { entityByGlobalId } from '../federation.ts';
import { builder } from '../builder.ts';
import { compiledProduct } from '../compile/root-fields.ts';
import { loaderOptions } from '../batching.ts';
import { cacheTags } from '../cache-tags.ts';
import { groupByKey } from '../grouping.ts';
import { rowLoader } from '../row-loader.ts';
import { loadMarketScoped, marketKey, nodeKey, scoped, type Scoped } from '../scope.ts';
import { columns, selectedColumns, type RowType } from '../selection.ts';
import { productImageUrls } from '../../images/image-urls.ts';
import { ImageUrlsRef } from './image-urls.ts';
import { MarketEnum, scopeArgs, scopeFromArgs } from './market.ts';

export type ProductParent = Scoped<ProductRow>;

/** The products table behind Product: its fields declare the columns they read. */
export const PRODUCT_ROW: RowType<ProductColumn> = { typeName: 'Product' };

/** Product rows with only the columns a selection needs (selection.ts). */
export const productRows = rowLoader((context, ids, columns: readonly ProductColumn[]) =>
  findProductsByIds(context.db, ids, columns),
);

export const ProductRef = builder.loadableNodeRef('Product', {
  id: { resolve: (product: ProductParent) => nodeKey(marketKey(product), product.scope) },
  loaderOptions: loaderOptions(),
  load: (keys: string[], context) =>
    loadMarketScoped(keys, (ids) => findProductsByIds(context.db, ids), 'product'),
});

// A federation entity keyed by `id` (docs/federation.md): `_entities` loads it here.
builder.asEntity(ProductRef, entityByGlobalId(ProductRef));

ProductRef.implement({
  description: 'A product as sold in one market: its identity, offers, prices and specification.',
  // Everything below a product (offers, prices, history) is read from it: one tag covers it.
  extensions: cacheTags((p: ProductParent) => productTag(p.row.id)),
  fields: (t) => ({
    productId: t.int({
      description: 'The catalogue’s numeric product id (the id REST routes use).',
      resolve: (p) => p.row.id,
    }),
    market: t.field({
      type: MarketEnum,
      description: 'The market this product is seen in; every price below is in it.',
      resolve: (p) => p.scope.market,
    }),
    name: t.string({
      ...columns('name'),
      description: 'The product name.',
      resolve: (p) => p.row.name,
    }),
    description: t.string({
      ...columns('description'),
      nullable: true,
      description: 'A short description.',
      resolve: (p) => p.row.description,
    }),
    popularity: t.int({
      ...columns('popularity'),
      description: 'Relative popularity (higher is more popular).',
      resolve: (p) => p.row.popularity,
    }),
    rankWithinCategory: t.int({
      ...columns('rank_within_category'),
      description: 'Popularity rank within its category, 1 being the most popular.',
      resolve: (p) => p.row.rank_within_category,
    }),
    images: t.field({
      type: ImageUrlsRef,
      description:
        'The product’s picture, drawn and served by this service (SVG: its category’s pictogram, brand and model name), on the base URL the client reached it under.',
      resolve: (p, _args, context) => productImageUrls(context.publicBase, p.row.id),
    }),
    productPage: t.string({
      description: 'URL of the product page on the market’s site.',
      resolve: async (p, _args, context) =>
        `${await context.siteBaseUrl(p.scope.market)}/product/${p.row.id}`,
    }),
    gtins: t.loadableList({
      type: 'String',
      description: 'The product’s GTINs (EAN/UPC), in ascending order.',
      loaderOptions: loaderOptions(),
      load: async (productIds: number[], context) => {
        const rows = await findGtinsOfProducts(context.db, productIds);
        return groupByKey(productIds, rows, (row) => row.product_id).map((group) =>
          group.map((row) => row.gtin),
        );
      },
      resolve: (p) => p.row.id,
    }),
  }),
});

builder.queryField('product', (t) =>
  t.field({
    type: ProductRef,
    nullable: true,
    description: 'One product by its numeric id, seen in a market; null when unknown.',
    args: {
      ...scopeArgs,
      id: t.arg.int({ required: true, description: 'The numeric product id.' }),
    },
    resolve: async (_root, args, context, info) => {
      const scope = scopeFromArgs(args);
      if (args.id < 1) throw badUserInput('id must be a positive integer', 'id', 'out_of_range');
      const compiled = compiledProduct(context, info, scope, args.id);
      if (compiled) return compiled;
      const row = await productRows(context).load({
        id: args.id,
        columns: selectedColumns(info, PRODUCT_ROW),
      });
      return row ? scoped<ProductRow>(scope)(row) : null;
    },
  }),
);

export const ProductConnection = builder.connectionObject({
  type: ProductRef,
  name: 'ProductConnection',
  description: 'A page of products.',
});
