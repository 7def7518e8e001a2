/**
 * LowestPriceChange: a product's lowest available price, offer count or best offer changed in
 * a market, as a feed run committed it; and the subscriptions that deliver it
 * (`lowestPriceChanged` for watched products, `priceDropped` for falls in a category).
 */
import type { ProductChangeRow } from '../../db/repositories/catalogue-changes.ts';
import { findSubtreeIds } from '../../db/repositories/catalogue-changes.ts';
import type { ProductColumn } from '../../db/repositories/products.ts';
import type { RequestContext } from '../../context.ts';
import { badUserInput } from '../../errors.ts';
import { builder } from '../builder.ts';
import { dropPercent, liveEvent, liveEvents } from '../live.ts';
import type { Scope } from '../scope.ts';
import { selectedColumns } from '../selection.ts';
import { findCategoryByReference } from './category.ts';
import { scopeArgs, scopeFromArgs } from './market.ts';
import { moneyIn, MoneyRef } from './money.ts';
import { cheapestOfferOf, OfferRef } from './offer.ts';
import { PRODUCT_ROW, productRows, ProductRef, type ProductParent } from './product.ts';

/** How many products one `lowestPriceChanged` may watch. */
export const MAX_WATCHED_PRODUCTS = 100;

interface LowestPriceChangeShape {
  change: ProductChangeRow;
  scope: Scope;
}

/** The product of a change, in the subscription's scope, with the columns selected. */
async function productOf(
  { change, scope }: LowestPriceChangeShape,
  context: RequestContext,
  columns: readonly ProductColumn[],
): Promise<ProductParent> {
  const row = await productRows(context).load({ id: change.product_id, columns });
  if (!row) throw new Error(`product ${change.product_id} of a change is missing`);
  return { row, scope };
}

export const LowestPriceChangeRef = builder
  .objectRef<LowestPriceChangeShape>('LowestPriceChange')
  .implement({
    description:
      'A product’s lowest available price, offer count or best offer changed in a market, as a shop’s feed run committed it.',
    fields: (t) => ({
      product: t.field({
        type: ProductRef,
        description: 'The product, seen in the subscription’s market and scope (as it is now).',
        resolve: (event, _args, context, info) =>
          productOf(event, context, selectedColumns(info, PRODUCT_ROW)),
      }),
      lowestOffer: t.field({
        type: OfferRef,
        nullable: true,
        description:
          'The cheapest available offer now, with its shop (URL with the subscription’s `ref`); null without offers.',
        resolve: async (event, _args, context, info) =>
          cheapestOfferOf(context, await productOf(event, context, []), info),
      }),
      previous: t.field({
        type: MoneyRef,
        nullable: true,
        description: 'The lowest available price before the run; null when there was no offer.',
        resolve: ({ change, scope }) => moneyIn(scope.market, change.old_lowest_price),
      }),
      current: t.field({
        type: MoneyRef,
        nullable: true,
        description: 'The lowest available price after the run; null when no offer is left.',
        resolve: ({ change, scope }) => moneyIn(scope.market, change.new_lowest_price),
      }),
      dropPercent: t.float({
        nullable: true,
        description:
          'How far the lowest price fell, in percent of `previous` (two decimals); null unless it fell.',
        resolve: ({ change }) => priceFall(change),
      }),
      offerCount: t.int({
        description: 'How many offers are available after the run.',
        resolve: ({ change }) => change.new_offer_count,
      }),
      changedAt: t.field({
        type: 'DateTime',
        description: 'When the run committed the change.',
        resolve: ({ change }) => change.changed_at,
      }),
    }),
  });

/** The fall in percent, when the lowest price fell; else null. */
function priceFall(change: ProductChangeRow): number | null {
  const { old_lowest_price: previous, new_lowest_price: current } = change;
  if (previous === null || current === null || current >= previous) return null;
  return dropPercent(previous, current);
}

/**
 * Whether a client watching the product sees a change: its lowest price or offer count
 * moved, or its cheapest offer now is one the run added or updated.
 */
function isVisibleChange(change: ProductChangeRow): boolean {
  return (
    change.old_lowest_price !== change.new_lowest_price ||
    change.old_offer_count !== change.new_offer_count ||
    (change.best_offer_id !== null &&
      (change.added_offer_ids.includes(change.best_offer_id) ||
        change.updated_offer_ids.includes(change.best_offer_id)))
  );
}

builder.subscriptionField('lowestPriceChanged', (t) =>
  t.field({
    type: LowestPriceChangeRef,
    description: `Emits when a watched product’s lowest available price, offer count or best offer changes in the market (at most ${MAX_WATCHED_PRODUCTS} products).`,
    args: {
      ...scopeArgs,
      productIds: t.arg.intList({
        required: true,
        description: `The numeric ids of the products to watch (1 to ${MAX_WATCHED_PRODUCTS}).`,
      }),
    },
    subscribe: (_root, args, context) => {
      const scope = scopeFromArgs(args);
      if (args.productIds.length < 1 || args.productIds.length > MAX_WATCHED_PRODUCTS) {
        throw badUserInput(
          `watch 1 to ${MAX_WATCHED_PRODUCTS} products`,
          'productIds',
          'out_of_range',
        );
      }
      const watched = new Set(args.productIds);
      const key = JSON.stringify(['lowestPriceChanged', scope, [...watched].sort((a, b) => a - b)]);
      return liveEvents(context, scope.market, key, (rows) =>
        rows
          .filter((change) => watched.has(change.product_id) && isVisibleChange(change))
          .map((change) => ({ change, scope })),
      );
    },
    resolve: (item: LowestPriceChangeShape | symbol) => liveEvent(item as LowestPriceChangeShape),
  }),
);

builder.subscriptionField('priceDropped', (t) =>
  t.field({
    type: LowestPriceChangeRef,
    description:
      'Emits when a product’s lowest available price falls in the market, optionally only within a category (and those below it) and only by at least `minDropPercent`.',
    args: {
      ...scopeArgs,
      category: t.arg.string({
        description: 'A category id or slug: only products of that category and those below it.',
      }),
      minDropPercent: t.arg.float({
        description: 'Only falls of at least this many percent of the previous price (0–100).',
      }),
    },
    subscribe: async (_root, args, context) => {
      const scope = scopeFromArgs(args);
      const least = args.minDropPercent ?? 0;
      if (!(least >= 0 && least <= 100)) {
        throw badUserInput('minDropPercent must be 0 to 100', 'minDropPercent', 'out_of_range');
      }
      const categories = args.category == null ? null : await subtreeOf(context, args.category);
      const subtree = categories && [...categories].sort((a, b) => a - b);
      const key = JSON.stringify(['priceDropped', scope, least, subtree]);
      return liveEvents(context, scope.market, key, (rows) =>
        rows
          .filter((change) => {
            const fall = priceFall(change);
            return (
              fall !== null &&
              fall >= least &&
              (categories === null || categories.has(change.category_id))
            );
          })
          .map((change) => ({ change, scope })),
      );
    },
    resolve: (item: LowestPriceChangeShape | symbol) => liveEvent(item as LowestPriceChangeShape),
  }),
);

/** The ids of a category (by id or slug) and every one below it; unknown: BAD_USER_INPUT. */
async function subtreeOf(context: RequestContext, reference: string): Promise<Set<number>> {
  const row = /^\d+$/.test(reference)
    ? await findCategoryByReference(context, { id: Number(reference) })
    : await findCategoryByReference(context, { slug: reference });
  if (!row) throw badUserInput(`unknown category "${reference}"`, 'category', 'unknown');
  return new Set(await findSubtreeIds(context.db, [row.id]));
}
