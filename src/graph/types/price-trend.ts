/**
 * PriceTrend: how a product's current lowest price in a market compares with its 90-day
 * average (decisions section 7). Read from product_market_summaries as stored: the rule that
 * computes it lives only in refreshProductMarketSummaries.
 */
import { findMarketPrices, type MarketPriceRow } from '../../db/repositories/market-prices.ts';
import type { ProductMarketKey } from '../../db/repositories/offers.ts';
import { MARKET_CURRENCY, type MarketCode } from '../../markets.ts';
import { builder } from '../builder.ts';
import { oneByKey } from '../grouping.ts';
import { MoneyRef, type MoneyShape } from './money.ts';
import { ProductRef, type ProductParent } from './product.ts';

/** An amount in the market's currency, with no shipping (aggregates have none). */
export function moneyIn(market: MarketCode, value: number): MoneyShape {
  return { value, currency: MARKET_CURRENCY[market], includingShipping: null };
}

/** The (product, market) a market-scoped product is seen in. */
export function productMarketKey(product: ProductParent): ProductMarketKey {
  return { productId: product.row.id, market: product.scope.market };
}

/**
 * Loader key of a product in its market. The partner ref is left out on purpose: these
 * fields carry no URL, so the same product seen with two refs shares one load.
 */
export function marketKeyOf(product: ProductParent): string {
  return `${product.scope.market}:${product.row.id}`;
}

export function marketKeyOfRow(row: { product_id: number; market: MarketCode }): string {
  return `${row.market}:${row.product_id}`;
}

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
      return oneByKey(products.map(marketKeyOf), rows, marketKeyOfRow);
    },
    loaderOptions: { cacheKeyFn: marketKeyOf },
    resolve: (product) => product,
  }),
);
