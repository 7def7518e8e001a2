/**
 * Offer: one shop's price for a product in a market. Only available offers exist here (the
 * data layer's `available_offers` view); a URL carries the partner ref given to it.
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import {
  findAlternativePrices,
  findAvailableOffersByIds,
  findAvailableOffersPage,
  findCheapestOffers,
  summariseAvailableOffers,
  type OfferColumn,
  type OfferOrder,
  type OfferRow,
} from '../../db/repositories/offers.ts';
import { productTag } from '../../cache/answer-tags.ts';
import { PRODUCT_CONDITIONS, STOCK_STATUSES } from '../../db/types.ts';
import type { GraphQLResolveInfo } from 'graphql';
import type { RequestContext } from '../../context.ts';
import { entityByGlobalId } from '../federation.ts';
import { builder, type BuilderTypes } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { cacheTags } from '../cache-tags.ts';
import { groupByKey, oneByKey } from '../grouping.ts';
import { pageCost } from '../limits.ts';
import { loaderPerArguments } from '../argument-loaders.ts';
import { unionOfColumns } from '../row-loader.ts';
import { connectionOf, pageArgumentBounds, pagesOfBatch, type OffsetPage } from '../pagination.ts';
import { OFFER_PAGE_LIMITS, type OfferPageArguments } from '../page-limits.ts';
import {
  marketKey,
  marketKeyOfRow,
  loadByNodeKeys,
  nodeKey,
  productMarketKey,
  scopeKey,
  checkedRef,
  tagUrlWithRef,
  type Scope,
  type Scoped,
} from '../scope.ts';
import { columns, CONNECTION_ITEMS, selectedColumns, type RowType } from '../selection.ts';
import { MarketEnum } from './market.ts';
import { MoneyRef, moneyIn, PeriodPriceRef, periodPrice, type MoneyShape } from './money.ts';
import { PRODUCT_ROW, ProductRef, productRows, type ProductParent } from './product.ts';

export type OfferParent = Scoped<OfferRow>;

/** The offers table behind Offer: its fields declare the columns they read. */
export const OFFER_ROW: RowType<OfferColumn> = { typeName: 'Offer' };

/** A product whose offers are loaded, and the offer columns the selection shows. */
interface OffersOfProduct {
  product: ProductParent;
  columns: readonly OfferColumn[];
}

/** Selections differ between keys of one loader, so the cache key names the columns. */
function offersCacheKey(key: OffersOfProduct): string {
  return `${scopeKey(key.product)}/${key.columns.join()}`;
}

/** Each product of the keys once (a product's offers are read once whatever it selects). */
function uniqueProducts(keys: readonly OffersOfProduct[]): ProductParent[] {
  return [...new Map(keys.map(({ product }) => [marketKey(product), product])).values()];
}

/** The key of a product's offers: the product and the offer columns its selection shows. */
function offersOf(
  product: ProductParent,
  info: GraphQLResolveInfo,
  paths?: readonly (readonly string[])[],
) {
  return { product, columns: selectedColumns(info, OFFER_ROW, paths) };
}

export const StockStatusEnum = builder.enumType('StockStatus', {
  description:
    'Stock state reported by the shop. Offers OUT_OF_STOCK are never returned; UNKNOWN ones are.',
  values: {
    IN_STOCK: { description: 'In stock at the shop.' },
    LIMITED_STOCK: { description: 'Few items left.' },
    PREORDER: { description: 'Can be ordered before release.' },
    INCOMING: { description: 'On its way to the shop.' },
    UNKNOWN: { description: 'The shop does not say (the offer is still available).' },
    OUT_OF_STOCK: { description: 'Out of stock: such offers are never returned.' },
  } satisfies Record<(typeof STOCK_STATUSES)[number], { description: string }>,
});

export const ProductConditionEnum = builder.enumType('ProductCondition', {
  description: 'Condition of the item an offer sells.',
  values: {
    CONDITION_NEW: { description: 'New.' },
    CONDITION_USED: { description: 'Used.' },
    CONDITION_REFURBISHED: { description: 'Refurbished.' },
    CONDITION_DEMO: { description: 'Demonstration unit.' },
  } satisfies Record<(typeof PRODUCT_CONDITIONS)[number], { description: string }>,
});

export const OfferOrderEnum = builder.enumType('OfferOrder', {
  description: 'Order of a product’s offers.',
  values: {
    PRICE: { value: 'PRICE' as const, description: 'Cheapest first (the default).' },
    PRICE_INCLUDING_SHIPPING: {
      value: 'PRICE_INCLUDING_SHIPPING' as const,
      description: 'Cheapest with shipping first (the price alone where shipping is not stated).',
    },
  } satisfies Record<OfferOrder, unknown>,
});

function offerIn(product: ProductParent) {
  return (row: OfferRow): OfferParent => ({ row, scope: product.scope });
}

export const OfferRef = builder.loadableNodeRef('Offer', {
  id: { resolve: (offer: OfferParent) => nodeKey(String(offer.row.id), offer.scope) },
  loaderOptions: loaderOptions(),
  load: (keys: string[], context): Promise<(OfferParent | null)[]> =>
    loadByNodeKeys(keys, (ids) => findAvailableOffersByIds(context.db, ids)),
});

// A federation entity keyed by `id` (docs/federation.md): `_entities` loads it here.
builder.asEntity(OfferRef, entityByGlobalId(OfferRef));
/**
 * `url(ref:)` of Offer and AlternativePrice. Normalized caches key a field by its own
 * arguments under its object's id, so the URL with a ref and the one without are two entries,
 * and a page refetched through `node(id:)` asks for its ref again (docs/api.md, "Partner
 * ref"). Without the argument, the deprecated root `ref` the object is seen under, if any.
 */
const urlRefArgument = builder.args((t) => ({
  ref: t.string({
    description:
      'Partner id added as the query parameter `ref` (URL-encoded, merged into the URL’s own query string): 1–64 of A–Z a–z 0–9 . _ ~ -. Without it, the URL as stored.',
  }),
}));

function urlWithRef(url: string, ref: string | null | undefined, scope: Scope): string {
  return tagUrlWithRef(url, checkedRef(ref) ?? scope.ref);
}

const AlternativePriceRef = builder
  .objectRef<{ price: MoneyShape; url: string; scope: Scope }>('AlternativePrice')
  .implement({
    description: 'Another price the shop offers for the same item (e.g. another variant).',
    fields: (t) => ({
      price: t.field({ type: MoneyRef, description: 'The price.', resolve: (a) => a.price }),
      url: t.string({
        description: 'Where to buy at this price; carries `ref` when given one.',
        args: urlRefArgument,
        resolve: (a, args) => urlWithRef(a.url, args.ref, a.scope),
      }),
    }),
  });

OfferRef.implement({
  description: 'A shop’s offer for a product in a market; only offers available for purchase.',
  // An offer is its product's: a run changing it lists the product (every offer row read
  // carries its product id).
  extensions: cacheTags((o: OfferParent) => productTag(o.row.product_id)),
  fields: (t) => ({
    offerId: t.int({ description: 'The numeric offer id.', resolve: (o) => o.row.id }),
    market: t.field({ type: MarketEnum, description: 'The market.', resolve: (o) => o.row.market }),
    itemId: t.string({
      ...columns('item_id'),
      description: 'The shop’s id for the item: the `id` of its feed row.',
      resolve: (o) => o.row.item_id,
    }),
    product: t.field({
      ...columns('product_id'),
      type: ProductRef,
      description: 'The product this is an offer for, seen in the offer’s market and scope.',
      resolve: async (o, _args, context, info) => {
        const id = o.row.product_id;
        const row = await productRows(context).load({
          id,
          columns: selectedColumns(info, PRODUCT_ROW),
        });
        if (!row) throw new Error(`product ${id} of offer ${o.row.id} is missing`);
        return { row, scope: o.scope };
      },
    }),
    offerName: t.string({
      ...columns('offer_name'),
      description: 'The shop’s name for the item.',
      resolve: (o) => o.row.offer_name,
    }),
    url: t.string({
      ...columns('url'),
      description: 'Where to buy; carries the partner `ref` when given one.',
      args: urlRefArgument,
      resolve: (o, args) => urlWithRef(o.row.url, args.ref, o.scope),
    }),
    productCondition: t.field({
      ...columns('condition'),
      type: ProductConditionEnum,
      description: 'Condition of the item.',
      resolve: (o) => o.row.condition,
    }),
    stockStatus: t.field({
      ...columns('stock_status'),
      type: StockStatusEnum,
      description: 'Stock state at the shop.',
      resolve: (o) => o.row.stock_status,
    }),
    ...offerPriceFields(t),
    updatedAt: t.field({
      ...columns('updated_at'),
      type: 'DateTime',
      description: 'When the shop last reported this offer.',
      resolve: (o) => o.row.updated_at,
    }),
  }),
});

/** An offer's prices: the current one, the period prices, and the alternatives. */
function offerPriceFields(t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, OfferParent>) {
  return {
    price: t.field({
      ...columns('price', 'currency', 'price_including_shipping'),
      type: MoneyRef,
      description: 'The current price, with shipping where the shop states it.',
      resolve: (o) => ({
        value: o.row.price,
        currency: o.row.currency,
        includingShipping: o.row.price_including_shipping,
      }),
    }),
    memberPrice: t.field({
      ...columns('currency', 'member_price', 'member_price_start', 'member_price_end'),
      type: PeriodPriceRef,
      nullable: true,
      description: 'Price for members of the shop’s club, with its validity period.',
      resolve: (o) =>
        periodPrice(
          o.row.currency,
          o.row.member_price,
          o.row.member_price_start,
          o.row.member_price_end,
        ),
    }),
    salesPrice: t.field({
      ...columns('currency', 'sales_price', 'sales_price_start', 'sales_price_end'),
      type: PeriodPriceRef,
      nullable: true,
      description: 'Campaign price, with its validity period.',
      resolve: (o) =>
        periodPrice(
          o.row.currency,
          o.row.sales_price,
          o.row.sales_price_start,
          o.row.sales_price_end,
        ),
    }),
    originalPrice: t.field({
      ...columns('currency', 'original_price', 'original_price_start', 'original_price_end'),
      type: PeriodPriceRef,
      nullable: true,
      description: 'The price before a reduction, with its period.',
      resolve: (o) =>
        periodPrice(
          o.row.currency,
          o.row.original_price,
          o.row.original_price_start,
          o.row.original_price_end,
        ),
    }),
    alternativePrices: t.loadableList({
      ...columns('currency'),
      type: AlternativePriceRef,
      description: 'Other prices the shop offers for the item, each with its URL.',
      // An offer has a few at most (the catalogue's have one or two), not a page's worth: with
      // the default 10, a page of offers would cost three times what it holds.
      complexity: { field: 1, multiplier: 3 },
      load: async (offers: OfferParent[], context) => {
        const rows = await findAlternativePrices(
          context.db,
          offers.map((o) => o.row.id),
        );
        return groupByKey(
          offers.map((o) => o.row.id),
          rows,
          (row) => row.offer_id,
        ).map((group, index) => {
          const offer = offers[index]!;
          return group.map((row) => ({
            price: { value: row.price, currency: offer.row.currency, includingShipping: null },
            url: row.url,
            scope: offer.scope,
          }));
        });
      },
      loaderOptions: loaderOptions({
        cacheKeyFn: (o: OfferParent) => `${o.row.id}:${o.scope.ref ?? ''}`,
      }),
      resolve: (o) => o,
    }),
  };
}

export const OfferConnection = builder.connectionObject({
  type: OfferRef,
  name: 'OfferConnection',
  description: 'A page of available offers (a product’s, or a shop’s).',
});

export interface OfferSummaryShape {
  offerCount: number;
  regular: MoneyShape | null;
  alternative: MoneyShape | null;
  inStock: MoneyShape | null;
  bestStockStatus: (typeof STOCK_STATUSES)[number] | null;
}

const OfferSummaryRef = builder.objectRef<OfferSummaryShape>('OfferSummary').implement({
  description: 'Aggregates over a product’s available offers in the market.',
  fields: (t) => ({
    offerCount: t.exposeInt('offerCount', { description: 'How many offers are available.' }),
    lowestNewPrice: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Lowest price among new-condition offers, with the shipping its offer states.',
      resolve: (s) => s.regular,
    }),
    lowestAlternativePrice: t.field({
      type: MoneyRef,
      nullable: true,
      description:
        'Lowest price among used, refurbished and demo offers, with the shipping its offer states.',
      resolve: (s) => s.alternative,
    }),
    lowestInStockPrice: t.field({
      type: MoneyRef,
      nullable: true,
      description: 'Lowest price among offers IN_STOCK, with the shipping its offer states.',
      resolve: (s) => s.inStock,
    }),
    bestStockStatus: t.field({
      type: StockStatusEnum,
      nullable: true,
      description: 'The best stock state among the offers (IN_STOCK first); null without offers.',
      resolve: (s) => s.bestStockStatus,
    }),
  }),
});

/** A page of each product's offers: one statement for every product asking the same page. */
const offerPages = loaderPerArguments(
  (keys: readonly OffersOfProduct[], context, args: OfferPageArguments) =>
    pagesOfBatch(
      keys,
      args,
      OFFER_PAGE_LIMITS,
      async (counted) => {
        const summaries = await summariseAvailableOffers(
          context.db,
          uniqueProducts(counted).map(productMarketKey),
        );
        const byKey = new Map(summaries.map((row) => [marketKeyOfRow(row), row.offer_count]));
        return counted.map(({ product }) => byKey.get(marketKey(product)) ?? 0);
      },
      (page, paged, totals) => readOfferPages(context, args, page, paged, totals),
    ),
  offersCacheKey,
);

/** One page of each product's offers, in one statement; `totals` when already counted. */
async function readOfferPages(
  context: RequestContext,
  args: OfferPageArguments,
  page: OffsetPage,
  keys: readonly OffersOfProduct[],
  totals?: number[],
) {
  // The same product may come twice (two selections): read its offers once.
  const products = uniqueProducts(keys);
  const rows = await findAvailableOffersPage(
    context.db,
    products.map(productMarketKey),
    { offset: page.offset, limit: page.limit, order: args.orderBy ?? 'PRICE' },
    unionOfColumns(keys.map((key) => key.columns)),
  );
  // Each row carries its product's total; a page past the end has no row to carry it,
  // so those products are counted on demand, all in one statement.
  let counts: Promise<Map<string, number>> | undefined;
  const countOffers = async (product: ProductParent) => {
    counts ??= summariseAvailableOffers(context.db, products.map(productMarketKey)).then(
      (summaries) => new Map(summaries.map((row) => [marketKeyOfRow(row), row.offer_count])),
    );
    return (await counts).get(marketKey(product)) ?? 0;
  };
  const byProduct = groupByKey(
    keys.map(({ product }) => marketKey(product)),
    rows,
    marketKeyOfRow,
  );
  return byProduct.map((group, index) => {
    const { product } = keys[index]!;
    const total =
      totals?.[index] ?? group[0]?.total ?? (page.offset > 0 ? () => countOffers(product) : 0);
    return connectionOf(page, group.map(offerIn(product)), total);
  });
}

/**
 * The cheapest available offer of each product, for `lowestOffer` and the deprecated
 * `lowestPrice` alike (one statement when a query selects both).
 */
const cheapestOffers = createContextCache(
  (context: RequestContext) =>
    new DataLoader<OffersOfProduct, OfferParent | null, string>(
      async (keys) => {
        const products = keys.map((key) => key.product);
        const rows = await findCheapestOffers(
          context.db,
          products.map(productMarketKey),
          unionOfColumns(keys.map((key) => key.columns)),
        );
        return oneByKey(products.map(marketKey), rows, marketKeyOfRow).map((row, index) =>
          row ? offerIn(products[index]!)(row) : null,
        );
      },
      loaderOptions({ cacheKeyFn: offersCacheKey }),
    ),
);

/** The product's cheapest available offer in its scope, or null (live events show it too). */
export function cheapestOfferOf(
  context: RequestContext,
  product: ProductParent,
  info: GraphQLResolveInfo,
): Promise<OfferParent | null> {
  return cheapestOffers(context).load(offersOf(product, info));
}

/** A Product field answering its cheapest offer, described (and deprecated) as given. */
function cheapestOffer(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, ProductParent>,
  options: { description: string; deprecationReason?: string },
) {
  return t.field({
    ...options,
    type: OfferRef,
    nullable: true,
    resolve: (product, _args, context, info) => cheapestOfferOf(context, product, info),
  });
}

builder.objectFields(ProductRef, (t) => ({
  offers: t.field({
    type: OfferConnection,
    description: `The available offers in the market, cheapest first unless ordered otherwise (at most ${OFFER_PAGE_LIMITS.maxSize} per page).`,
    complexity: (args) => pageCost(OFFER_PAGE_LIMITS, args),
    extensions: pageArgumentBounds(OFFER_PAGE_LIMITS),
    args: {
      ...t.arg.connectionArgs(),
      orderBy: t.arg({
        type: OfferOrderEnum,
        defaultValue: 'PRICE',
        description: 'The order of the offers.',
      }),
    },
    resolve: (product, args, context, info) =>
      offerPages(context, args).load(offersOf(product, info, CONNECTION_ITEMS)),
  }),
  lowestOffer: cheapestOffer(t, {
    description: 'The cheapest available offer in the market, with its shop; null without offers.',
  }),
  lowestPrice: cheapestOffer(t, {
    description:
      'The cheapest available offer in the market; null without offers. Deprecated: an Offer where every other `lowestPrice` is a Money.',
    deprecationReason:
      'Use `lowestOffer` (the same Offer); on other types `lowestPrice` is a Money, and this field will be removed in a later release.',
  }),
  offerSummary: t.loadable({
    type: OfferSummaryRef,
    description: 'Counts and lowest prices over the available offers in the market.',
    load: async (products: ProductParent[], context) => {
      const rows = await summariseAvailableOffers(context.db, products.map(productMarketKey));
      return oneByKey(products.map(marketKey), rows, marketKeyOfRow).map(
        (row, index): OfferSummaryShape => {
          const { market } = products[index]!.scope;
          return {
            offerCount: row?.offer_count ?? 0,
            regular: moneyIn(market, row?.regular ?? null, row?.regular_including_shipping),
            alternative: moneyIn(
              market,
              row?.alternative ?? null,
              row?.alternative_including_shipping,
            ),
            inStock: moneyIn(market, row?.in_stock ?? null, row?.in_stock_including_shipping),
            bestStockStatus: row?.best_stock_status ?? null,
          };
        },
      );
    },
    loaderOptions: loaderOptions({ cacheKeyFn: scopeKey }),
    resolve: (product) => product,
  }),
}));
