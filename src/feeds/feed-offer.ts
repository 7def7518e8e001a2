/**
 * What a checked feed row says an offer is, in the offers table's terms (docs/api.md, "Feeds"):
 * the served price, the sale and the price before it, stock and condition.
 */
import type { FeedOfferValues } from '../db/repositories/feed-staging.ts';
import type { ProductCondition, StockStatus } from '../db/types.ts';
import type { FeedAvailability, FeedCondition, FeedItem } from './feed-item.ts';

const STOCK_STATUS: Readonly<Record<FeedAvailability, StockStatus>> = {
  in_stock: 'IN_STOCK',
  out_of_stock: 'OUT_OF_STOCK',
  preorder: 'PREORDER',
  // Ordered now, shipped once the shop's stock comes in.
  backorder: 'INCOMING',
};

const CONDITION: Readonly<Record<FeedCondition, ProductCondition>> = {
  new: 'CONDITION_NEW',
  refurbished: 'CONDITION_REFURBISHED',
  used: 'CONDITION_USED',
};

/** Two decimals, as numeric(12, 2) stores it: a sum of prices in binary floating point is not. */
function cents(amount: number): number {
  return Math.round(amount * 100) / 100;
}

/** A sale holds from its start (inclusive) to its end (exclusive, as the clock ends it). */
function saleIsOn(sale: NonNullable<FeedItem['sale']>, now: Date): boolean {
  const at = now.getTime();
  return (
    (sale.start === null || Date.parse(sale.start) <= at) &&
    (sale.end === null || at < Date.parse(sale.end))
  );
}

/**
 * The served price is the sale price while the sale is on, else the regular price; during a
 * sale the regular price is the original price, which held until the sale began. A sale not
 * on at `now` is not stored: the catalogue's clock ends sales but starts none, and the
 * shop's next feed states it again.
 */
export function feedOfferValues(item: FeedItem, now: Date): FeedOfferValues {
  const sale = item.sale !== null && saleIsOn(item.sale, now) ? item.sale : null;
  const price = sale?.price ?? item.price;
  return {
    offer_name: item.title,
    url: item.link,
    condition: CONDITION[item.condition],
    stock_status: STOCK_STATUS[item.availability],
    purchasable: item.availability !== 'out_of_stock',
    price,
    price_including_shipping:
      item.shippingPrice === null ? null : cents(price + item.shippingPrice),
    sales_price: sale?.price ?? null,
    sales_price_start: sale?.start ?? null,
    sales_price_end: sale?.end ?? null,
    original_price: sale === null ? null : item.price,
    original_price_start: null,
    original_price_end: sale?.start ?? null,
  };
}
