/**
 * PriceTrend: how a product's current lowest price in a market compares with its 90-day
 * average (docs/api.md, "Price trend"). Read from product_market_summaries as stored: the rule that
 * computes it lives only in refreshProductMarketSummaries.
 */
import { findMarketPrices, type MarketPriceRow } from '../../db/repositories/market-prices.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { oneByKey } from '../grouping.ts';
import { marketKey, marketKeyOfRow, productMarketKey } from '../scope.ts';
import { MoneyRef, moneyIn } from './money.ts';
import { ProductRef, type ProductParent } from './product.ts';

/** Money is shown in cents; the stored mean keeps four decimals for the percentage. */
function roundToCents(value: number): number {
  return Math.round(value * 100) / 100;
}

export const PriceTrendRef = builder.objectRef<MarketPriceRow>('PriceTrend').implement({
  description:
    'The current lowest price against the mean of the daily lowest prices over the 90 days before the last price refresh, in one market.',
  fields: (t) => ({
    percentage: t.float({
      nullable: true,
      description:
        '(average − current) / average × 100, rounded to one decimal: positive means cheaper than usual. Null without price history.',
      resolve: (s) => s.price_trend_percentage,
    }),
    averagePrice90Days: t.field({
      type: MoneyRef,
      nullable: true,
      description:
        'Mean of the daily lowest prices over the 90 days, rounded to cents (the percentage uses the unrounded mean). Null without price history.',
      resolve: (s) =>
        s.average_price_90_days === null
          ? null
          : moneyIn(s.market, roundToCents(s.average_price_90_days)),
    }),
    currentPrice: t.field({
      type: MoneyRef,
      nullable: false,
      description: 'The lowest price among the available offers, the trend’s “current” price.',
      resolve: (s) => moneyIn(s.market, s.lowest_price),
    }),
  }),
});

builder.objectField(ProductRef, 'priceTrend', (t) =>
  t.loadable({
    type: PriceTrendRef,
    nullable: true,
    description:
      'The price trend in the product’s market; null when the product has no available offer there.',
    load: async (products: ProductParent[], context) => {
      const rows = await findMarketPrices(context.db, products.map(productMarketKey));
      return oneByKey(products.map(marketKey), rows, marketKeyOfRow);
    },
    loaderOptions: loaderOptions({ cacheKeyFn: marketKey }),
    resolve: (product) => product,
  }),
);
