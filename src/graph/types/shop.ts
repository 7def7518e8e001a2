/**
 * Shop: a store selling in one market. A shop is seen in the scope it was reached in (an
 * offer's, or its own market's by id), so the offers listed under it carry that scope's ref.
 */
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import {
  countShopOffers,
  findShopOffersPage,
  type OfferColumn,
} from '../../db/repositories/offers.ts';
import { findShopsByIds, type ShopColumn, type ShopRow } from '../../db/repositories/shops.ts';
import { shopTag } from '../../cache/answer-tags.ts';
import { entityByGlobalId } from '../federation.ts';
import type { RequestContext } from '../../context.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { cacheTags } from '../cache-tags.ts';
import { loaderPerArguments } from '../argument-loaders.ts';
import { groupByKey } from '../grouping.ts';
import { pageCost } from '../limits.ts';
import { connectionOf, pageArgumentBounds, pagesOfBatch, type OffsetPage } from '../pagination.ts';
import { unionOfColumns, rowLoader } from '../row-loader.ts';
import { loadByNodeKeys, nodeKey, type Scoped } from '../scope.ts';
import { columns, CONNECTION_ITEMS, selectedColumns, type RowType } from '../selection.ts';
import { shopLogoUrls } from '../../images/image-urls.ts';
import { ImageUrlsRef } from './image-urls.ts';
import { MarketEnum } from './market.ts';
import { OFFER_PAGE_LIMITS } from '../page-limits.ts';
import { OFFER_ROW, OfferConnection, OfferRef, type OfferParent } from './offer.ts';

type ShopParent = Scoped<ShopRow>;

/** The shops table behind Shop: its fields declare the columns they read. */
const SHOP_ROW: RowType<ShopColumn> = { typeName: 'Shop' };

/** Shop rows with only the columns a selection needs (selection.ts). */
const shopRows = rowLoader((context, ids, columns: readonly ShopColumn[]) =>
  findShopsByIds(context.db, ids, columns),
);

/** A shop whose offers are listed, and the offer columns the selection shows. */
interface OffersOfShop {
  shop: ShopParent;
  columns: readonly OfferColumn[];
}

/** A page of each shop's offers: one statement for every shop asking the same page. */
const shopOfferPages = loaderPerArguments(
  (keys: readonly OffersOfShop[], context, args: DefaultConnectionArguments) =>
    pagesOfBatch(
      keys,
      args,
      OFFER_PAGE_LIMITS,
      async (counted) => {
        const found = await countShopOffers(context.db, [
          ...new Set(counted.map(({ shop }) => shop.row.id)),
        ]);
        const byShop = new Map(found.map((row) => [row.shop_id, row.offer_count]));
        return counted.map(({ shop }) => byShop.get(shop.row.id) ?? 0);
      },
      (page, paged, totals) => readShopOfferPages(context, page, paged, totals),
    ),
  ({ shop, columns }) => `${shop.row.id}:${shop.scope.ref ?? ''}/${columns.join()}`,
);

/** One page of each shop's offers, in one statement; `totals` when already counted. */
async function readShopOfferPages(
  context: RequestContext,
  page: OffsetPage,
  keys: readonly OffersOfShop[],
  totals?: number[],
) {
  const shopIds = [...new Set(keys.map(({ shop }) => shop.row.id))];
  const rows = await findShopOffersPage(
    context.db,
    shopIds,
    page,
    unionOfColumns(keys.map((key) => key.columns)),
  );
  // Counted only when a client selects totalCount, for every shop of the batch at once.
  let counts: Promise<Map<number, number>> | undefined;
  const countOffers = async (shopId: number) => {
    counts ??= countShopOffers(context.db, shopIds).then(
      (found) => new Map(found.map((row) => [row.shop_id, row.offer_count])),
    );
    return (await counts).get(shopId) ?? 0;
  };
  const byShop = groupByKey(
    keys.map(({ shop }) => shop.row.id),
    rows,
    (row) => row.shop_id,
  );
  return byShop.map((group, index) => {
    const { shop } = keys[index]!;
    const offers = group.map((row): OfferParent => ({ row, scope: shop.scope }));
    return connectionOf(page, offers, totals?.[index] ?? (() => countOffers(shop.row.id)));
  });
}

export const ShopRef = builder.loadableNode('Shop', {
  description: 'A shop selling in one market.',
  id: { resolve: (shop: ShopParent) => nodeKey(String(shop.row.id), shop.scope) },
  loaderOptions: loaderOptions(),
  load: (keys: string[], context) => loadByNodeKeys(keys, (ids) => findShopsByIds(context.db, ids)),
  fields: (t) => ({
    shopId: t.int({ description: 'The numeric shop id.', resolve: (shop) => shop.row.id }),
    name: t.string({
      ...columns('name'),
      description: 'The shop name.',
      resolve: (shop) => shop.row.name,
    }),
    url: t.string({
      ...columns('url'),
      description: 'The shop’s home page.',
      resolve: (shop) => shop.row.url,
    }),
    market: t.field({
      type: MarketEnum,
      description: 'The market the shop sells in.',
      resolve: (shop) => shop.scope.market,
    }),
    logo: t.field({
      type: ImageUrlsRef,
      description:
        'The shop’s logo, drawn and served by this service (SVG: its name on a colour of its own), on the base URL the client reached it under; one drawing serves both sizes.',
      resolve: (shop, _args, context) => shopLogoUrls(context.publicBase, shop.row.id),
    }),
    offers: t.field({
      type: OfferConnection,
      description: `The offers the shop serves (available ones: not withdrawn by a feed, purchasable, in stock or not saying), newest first: the last reported first (\`updatedAt\`), then the highest id. ${OFFER_PAGE_LIMITS.defaultSize} per page unless \`first\` says otherwise, at most ${OFFER_PAGE_LIMITS.maxSize}. What a feed run did shows here.`,
      complexity: (args) => pageCost(OFFER_PAGE_LIMITS, args),
      // New offers enter the list: its offers' products do not cover it.
      extensions: {
        ...pageArgumentBounds(OFFER_PAGE_LIMITS),
        ...cacheTags((shop: ShopParent) => shopTag(shop.row.id)),
      },
      args: t.arg.connectionArgs(),
      resolve: (shop, args, context, info) =>
        shopOfferPages(context, args).load({
          shop,
          columns: selectedColumns(info, OFFER_ROW, CONNECTION_ITEMS),
        }),
    }),
  }),
});

// A federation entity keyed by `id` (docs/federation.md): `_entities` loads it here.
builder.asEntity(ShopRef, entityByGlobalId(ShopRef));

builder.objectField(OfferRef, 'shop', (t) =>
  t.field({
    ...columns('shop_id'),
    type: ShopRef,
    description: 'The shop making the offer.',
    resolve: async (offer, _args, context, info) => {
      const id = offer.row.shop_id;
      const shop = await shopRows(context).load({ id, columns: selectedColumns(info, SHOP_ROW) });
      if (!shop) throw new Error(`shop ${id} of offer ${offer.row.id} is missing`);
      return { row: shop, scope: offer.scope };
    },
  }),
);

builder.queryField('shop', (t) =>
  t.field({
    type: ShopRef,
    nullable: true,
    description:
      'A shop by its numeric id; null when unknown. Its offers’ URLs are as stored (no `ref`).',
    args: { id: t.arg.int({ required: true, description: 'The numeric shop id.' }) },
    resolve: (_root, args) => String(args.id),
  }),
);
