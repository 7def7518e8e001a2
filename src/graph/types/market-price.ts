/**
 * MarketPrice and Product.marketPrices: the product's prices in every market side by side.
 * The one deliberate exception to market scoping: every other price on a product is in the
 * market it is seen in.
 */
import {
  findMarketPricesInAllMarkets,
  type MarketPriceWithShippingRow,
} from '../../db/repositories/market-prices.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { groupByKey } from '../grouping.ts';
import { MarketEnum } from './market.ts';
import { MoneyRef, moneyIn } from './money.ts';
import { PriceTrendRef } from './price-trend.ts';
import { ProductRef } from './product.ts';

const MarketPriceRef = builder.objectRef<MarketPriceWithShippingRow>('MarketPrice').implement({
  description: 'A product’s lowest price, offer count and price trend in one market.',
  fields: (t) => ({
    market: t.field({
      type: MarketEnum,
      nullable: false,
      description: 'The market these prices are in.',
      resolve: (m) => m.market,
    }),
    lowestPrice: t.field({
      type: MoneyRef,
      nullable: false,
      description:
        'The lowest available price in this market, in its currency, with the shipping its offer states.',
      resolve: (m) => moneyIn(m.market, m.lowest_price, m.lowest_price_including_shipping),
    }),
    offerCount: t.int({
      nullable: false,
      description: 'How many offers are available in this market.',
      resolve: (m) => m.available_offer_count,
    }),
    priceTrend: t.field({
      type: PriceTrendRef,
      nullable: false,
      description: 'The price trend in this market.',
      resolve: (m) => m,
    }),
  }),
});

builder.objectField(ProductRef, 'marketPrices', (t) =>
  t.loadableList({
    type: MarketPriceRef,
    nullable: false,
    description:
      'Cross-market comparison: the product’s prices in EVERY market where it has an available offer (in the order of `markets`), each in that market’s currency. Unlike every other price field, not limited to the market the product is seen in.',
    load: async (productIds: number[], context) => {
      const rows = await findMarketPricesInAllMarkets(context.db, productIds);
      return groupByKey(productIds, rows, (row) => row.product_id);
    },
    loaderOptions: loaderOptions(),
    // Independent of the product's market and ref: one load per product and request.
    resolve: (product) => product.row.id,
  }),
);
