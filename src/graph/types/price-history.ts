/**
 * PriceHistoryPoint: a product's lowest available price on one day in its market, from the
 * stored daily history (price_history).
 */
import {
  findRecentPriceHistory,
  type PriceHistoryPointRow,
} from '../../db/repositories/price-history.ts';
import { boundedArguments, checkBound } from '../argument-bounds.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { groupByKey } from '../grouping.ts';
import { MoneyRef, moneyIn } from './money.ts';
import { marketKey, marketKeyOfRow, productMarketKey } from '../scope.ts';
import { ProductRef, type ProductParent } from './product.ts';

export const PRICE_HISTORY_DAYS = { default: 90, min: 1, max: 365 } as const;

const PriceHistoryPointRef = builder
  .objectRef<PriceHistoryPointRow>('PriceHistoryPoint')
  .implement({
    description: 'The lowest available price of a product on one day, in its market.',
    fields: (t) => ({
      date: t.field({
        type: 'Date',
        nullable: false,
        description: 'The day.',
        resolve: (point) => point.day,
      }),
      lowestPrice: t.field({
        type: MoneyRef,
        nullable: true,
        description: 'The lowest available price that day; null when no offer was available.',
        resolve: (point) => moneyIn(point.market, point.lowest_price),
      }),
    }),
  });

/** The days asked for; an explicit null means the default, as an omitted argument does. */
function daysAskedFor(days: number | null | undefined): number {
  const value = days ?? PRICE_HISTORY_DAYS.default;
  checkBound('days', value, PRICE_HISTORY_DAYS);
  return value;
}

builder.objectField(ProductRef, 'priceHistory', (t) =>
  t.loadableList({
    type: PriceHistoryPointRef,
    nullable: false,
    description:
      'The daily lowest prices in the product’s market over the most recent `days` days of its stored history, oldest first (fewer points when less is stored, none without history).',
    args: {
      days: t.arg.int({
        defaultValue: PRICE_HISTORY_DAYS.default,
        description: `How many of the most recent stored days (${PRICE_HISTORY_DAYS.min}–${PRICE_HISTORY_DAYS.max}; null means ${PRICE_HISTORY_DAYS.default}).`,
      }),
    },
    // One loader per field path: aliases asking for different `days` never share a batch.
    byPath: true,
    extensions: boundedArguments({ days: PRICE_HISTORY_DAYS }),
    complexity: ({ days }) => ({
      field: 1,
      multiplier: Math.min(days ?? PRICE_HISTORY_DAYS.default, PRICE_HISTORY_DAYS.max),
    }),
    load: async (products: ProductParent[], context, args) => {
      const rows = await findRecentPriceHistory(
        context.db,
        products.map(productMarketKey),
        daysAskedFor(args.days),
      );
      return groupByKey(products.map(marketKey), rows, marketKeyOfRow);
    },
    loaderOptions: loaderOptions({ cacheKeyFn: marketKey }),
    resolve: (product, args) => {
      // Checked here, not in the batch, so the error sits on this field's path.
      daysAskedFor(args.days);
      return product;
    },
  }),
);
