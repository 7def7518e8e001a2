/** Shop: a store selling in one market. */
import { findShopsByIds, type ShopColumn, type ShopRow } from '../../db/repositories/shops.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { oneByKey } from '../grouping.ts';
import { rowLoader } from '../row-loader.ts';
import { columns, selectedColumns, type RowType } from '../selection.ts';
import { ImageUrlsRef } from './image-urls.ts';
import { MarketEnum } from './market.ts';
import { OfferRef } from './offer.ts';

/** The shops table behind Shop: its fields declare the columns they read. */
const SHOP_ROW: RowType<ShopColumn> = { typeName: 'Shop' };

/** Shop rows with only the columns a selection needs (selection.ts). */
const shopRows = rowLoader((context, ids, columns: readonly ShopColumn[]) =>
  findShopsByIds(context.db, ids, columns),
);

export const ShopRef = builder.loadableNode('Shop', {
  description: 'A shop selling in one market.',
  id: { resolve: (shop: ShopRow) => String(shop.id) },
  loaderOptions: loaderOptions(),
  load: async (keys: string[], context) => {
    const ids = keys.filter((key) => /^[1-9]\d{0,9}$/.test(key)).map(Number);
    const rows = ids.length > 0 ? await findShopsByIds(context.db, ids) : [];
    return oneByKey(keys, rows, (row) => String(row.id));
  },
  fields: (t) => ({
    shopId: t.exposeInt('id', { description: 'The numeric shop id.' }),
    name: t.exposeString('name', { ...columns('name'), description: 'The shop name.' }),
    url: t.exposeString('url', { ...columns('url'), description: 'The shop’s home page.' }),
    market: t.expose('market', {
      ...columns('market'),
      type: MarketEnum,
      description: 'The market the shop sells in.',
    }),
    logo: t.field({
      ...columns('logo_small_url', 'logo_large_url'),
      type: ImageUrlsRef,
      description: 'The shop logo; both URLs null when there is none.',
      resolve: (shop) => ({ small: shop.logo_small_url, large: shop.logo_large_url }),
    }),
  }),
});

builder.objectField(OfferRef, 'shop', (t) =>
  t.field({
    ...columns('shop_id'),
    type: ShopRef,
    description: 'The shop making the offer.',
    resolve: async (offer, _args, context, info) => {
      const id = offer.row.shop_id;
      const shop = await shopRows(context).load({ id, columns: selectedColumns(info, SHOP_ROW) });
      if (!shop) throw new Error(`shop ${id} of offer ${offer.row.id} is missing`);
      return shop;
    },
  }),
);

builder.queryField('shop', (t) =>
  t.field({
    type: ShopRef,
    nullable: true,
    description: 'A shop by its numeric id; null when unknown.',
    args: { id: t.arg.int({ required: true, description: 'The numeric shop id.' }) },
    resolve: (_root, args) => String(args.id),
  }),
);
