/**
 * A product's offers in one market: 1 to 15 shops with prices close to the product's market
 * price (seeds/economics.ts), about one in ten unavailable (out of stock or not purchasable),
 * mostly new goods, some on sale or with a member price, a few with alternative prices.
 */
import {
  PRODUCT_CONDITIONS,
  STOCK_STATUSES,
  type ProductCondition,
  type StockStatus,
} from '../../src/db/types.ts';
import type { TimestampTable } from '../calendar.ts';
import { OFFER_SPREAD, roundShopPrice } from '../economics.ts';
import type { MarketFrame } from '../frame.ts';
import { Random, STREAM, WeightedPicker } from '../random.ts';
import { MAX_OFFERS_PER_MARKET } from '../scales.ts';
import { encoded, type CopyBuffer } from '../load/copy-buffer.ts';
import type { ProductDraft } from './product.ts';

// Weights per value of the schema's closed sets (src/db/types.ts, decisions section 5). With
// 2.2 % of offers not purchasable, 8 % out of stock makes about 10 % unavailable.
const STOCK_WEIGHTS: Readonly<Record<StockStatus, number>> = {
  IN_STOCK: 0.6,
  LIMITED_STOCK: 0.12,
  PREORDER: 0.03,
  INCOMING: 0.05,
  UNKNOWN: 0.12,
  OUT_OF_STOCK: 0.08,
};
const STOCK_PICKER = new WeightedPicker(STOCK_STATUSES.map((status) => STOCK_WEIGHTS[status]));
const PURCHASABLE = 0.978;

/** Share of offers, price relative to new, and what the offer name says, per condition. */
const CONDITION_TRAITS: Readonly<
  Record<ProductCondition, { weight: number; price: readonly [number, number]; label: string }>
> = {
  CONDITION_NEW: { weight: 0.9, price: [1, 1], label: '' },
  CONDITION_USED: { weight: 0.04, price: [0.55, 0.8], label: ' (used)' },
  CONDITION_REFURBISHED: { weight: 0.04, price: [0.7, 0.88], label: ' (refurbished)' },
  CONDITION_DEMO: { weight: 0.02, price: [0.8, 0.92], label: ' (demo unit)' },
};
const CONDITION_PICKER = new WeightedPicker(
  PRODUCT_CONDITIONS.map((condition) => CONDITION_TRAITS[condition].weight),
);
const TAGLINES = [' - free delivery', ' - EU model', ' - 2-year warranty', ' - in stock now'];

const PRODUCT_PATH = encoded('/p/');

/** updated_at lies within the three days before the reference date. */
export const UPDATE_WINDOW_MINUTES = 3 * 24 * 60;
/** Price periods start and end within this many days of the reference date. */
export const PRICE_PERIOD_DAYS = 120;

export interface OfferState {
  nextOfferId: number;
}

export interface OfferSinks {
  offers: CopyBuffer;
  alternativePrices: CopyBuffer;
}

/**
 * How many offers: 1 + ⌊15 · draw^k⌋ (at most 15), skewed towards popular products: the draw
 * averages a uniform number with the product's popularity, which keeps its mean and narrows its
 * spread. The exponent k is solved for so that the mean is the scale's (6 or 8).
 */
function offerCount(random: Random, obscurity: number, exponent: number): number {
  const draw = 0.5 * random.next() + 0.5 * (1 - obscurity);
  return (
    1 + Math.min(MAX_OFFERS_PER_MARKET - 1, Math.floor(MAX_OFFERS_PER_MARKET * draw ** exponent))
  );
}

const exponents = new Map<number, number>();

/** The exponent whose expected offer count is `mean`, by bisection over a grid of draws. */
export function offerCountExponent(mean: number): number {
  const known = exponents.get(mean);
  if (known !== undefined) return known;
  const steps = 200;
  const expected = (exponent: number) => {
    let sum = 0;
    for (let i = 0; i < steps; i++) {
      for (let j = 0; j < steps; j++) {
        const draw = 0.5 * ((i + 0.5) / steps) + 0.5 * ((j + 0.5) / steps);
        sum += Math.min(
          MAX_OFFERS_PER_MARKET - 1,
          Math.floor(MAX_OFFERS_PER_MARKET * draw ** exponent),
        );
      }
    }
    return 1 + sum / (steps * steps);
  };
  let low = 0.05;
  let high = 20;
  for (let round = 0; round < 40; round++) {
    const middle = (low + high) / 2;
    // A larger exponent pushes draws towards 0: fewer offers.
    if (expected(middle) > mean) low = middle;
    else high = middle;
  }
  const exponent = (low + high) / 2;
  exponents.set(mean, exponent);
  return exponent;
}

/**
 * Writes the product's offers in the market and returns today's lowest price in cents: the
 * cheapest available offer's, or the cheapest of all when none is available (the price the
 * history ends at).
 */
export function generateMarketOffers(
  draft: ProductDraft,
  market: MarketFrame,
  seed: number,
  countExponent: number,
  state: OfferState,
  timestamps: TimestampTable,
  sinks: OfferSinks,
): number {
  const random = new Random(seed, STREAM.offers, draft.id, market.index);
  const currency = market.currency;
  const marketCode = encoded(market.code);
  const currencyCode = encoded(currency);
  const { freeShippingFrom, shippingFees } = market.economics;
  // The market price (seeds/economics.ts): the product's base at the market's rate and level.
  const localCents =
    draft.basePriceEur *
    market.eurosToLocal *
    market.economics.priceLevel *
    100 *
    (draft.marketFactors[market.index] as number);
  const [spreadLow, spreadHigh] = OFFER_SPREAD;
  // The market price's own jitter was drawn here before families shared one: still drawn, so
  // that the shops, stock and sales after it stay those other tests and data were built on.
  random.next();

  // Only shops whose profile sells the product's category offer it (vocabulary/shops.ts).
  const carriers = draft.leaf.carriers[market.index]!;
  const count = Math.min(
    offerCount(random, draft.obscurity, countExponent),
    carriers.positions.length,
  );
  const shops: number[] = [];
  while (shops.length < count) {
    const shop = carriers.positions[carriers.picker.pick(random)]!;
    if (!shops.includes(shop)) shops.push(shop);
  }

  let lowestAvailable = Infinity;
  let lowest = Infinity;
  const offers = sinks.offers;
  for (const shop of shops) {
    const id = state.nextOfferId++;
    const condition = PRODUCT_CONDITIONS[CONDITION_PICKER.pick(random)] as ProductCondition;
    const [discountLow, discountHigh] = CONDITION_TRAITS[condition].price;
    // New offers bunch near the cheapest shops' price with a tail of dearer ones.
    const spread = spreadLow + (spreadHigh - spreadLow) * random.next() ** 2;
    const discount = random.between(discountLow, discountHigh);
    const priceCents = roundShopPrice(localCents * spread * discount, currency, random.next());
    const stock = STOCK_STATUSES[STOCK_PICKER.pick(random)] as StockStatus;
    const purchasable = random.chance(PURCHASABLE);
    const available = purchasable && stock !== 'OUT_OF_STOCK';
    if (available && priceCents < lowestAvailable) lowestAvailable = priceCents;
    if (priceCents < lowest) lowest = priceCents;

    // -1: no shipping stated.
    let shippingCents = -1;
    if (random.chance(0.8)) {
      const fee = priceCents >= freeShippingFrom * 100 ? 0 : random.pick(shippingFees);
      shippingCents = Math.round(fee * 100);
    }

    // Some offers are on sale: the current price is the sales price, and the original price
    // before the sale is higher. Periods are days from the reference date.
    let originalCents = -1;
    let saleStart = 0;
    let saleEnd = 0;
    let originalStart = 0;
    const promotion = random.next();
    const onSale = promotion < 0.12;
    if (onSale) {
      saleStart = -random.int(1, 21);
      saleEnd = random.int(3, 30);
      originalCents = Math.round(priceCents * random.between(1.1, 1.45));
      originalStart = saleStart - random.int(20, 90);
    } else if (promotion < 0.16) {
      // A "was" price without a stated period.
      originalCents = Math.round(priceCents * random.between(1.05, 1.3));
    }
    let memberCents = -1;
    let memberStart = 0;
    let memberEnd = 0;
    let memberPeriod = false;
    if (random.chance(0.07)) {
      memberCents = Math.round(priceCents * random.between(0.88, 0.97));
      memberPeriod = random.chance(0.7);
      if (memberPeriod) {
        memberStart = -random.int(0, 30);
        memberEnd = random.int(7, 60);
      }
    }

    const tagline = random.next();
    const taglinePick = tagline >= 0.9 ? random.pick(TAGLINES) : '';
    const updatedMinutesAgo = random.int(1, UPDATE_WINDOW_MINUTES);
    const shopUrl = encoded(market.shopUrls[shop] as string);

    // Columns in TABLE_COLUMNS.offers order.
    offers
      .int(id)
      .int(draft.id)
      .int(market.shopIds[shop] as number)
      .bytes(marketCode)
      .bytes(currencyCode);
    // offer_name, the shop's own title: the product name, shortened, with the brand in capitals
    // or with a tagline; a second-hand offer says what it is.
    if (condition !== 'CONDITION_NEW')
      offers.rawBytes(draft.nameBytes).str(CONDITION_TRAITS[condition].label);
    else if (tagline < 0.65) offers.bytes(draft.nameBytes);
    else if (tagline < 0.8) offers.str(draft.shortName);
    else if (tagline < 0.9)
      offers.raw(draft.brandUpper).str(draft.name.slice(draft.brandName.length));
    else offers.rawBytes(draft.nameBytes).str(taglinePick);
    // url: the product's page on the shop's own site.
    offers.rawBytes(shopUrl).rawBytes(PRODUCT_PATH).int(draft.id);
    offers.bytes(encoded(condition)).bytes(encoded(stock)).bool(purchasable);
    offers.cents(priceCents);
    if (shippingCents < 0) offers.null();
    else offers.cents(priceCents + shippingCents);
    if (memberCents < 0) offers.null().null().null();
    else if (!memberPeriod) offers.cents(memberCents).null().null();
    else
      offers
        .cents(memberCents)

        .bytes(timestamps.midnight(memberStart))

        .bytes(timestamps.midnight(memberEnd));
    if (onSale) {
      offers
        .cents(priceCents)

        .bytes(timestamps.midnight(saleStart))

        .bytes(timestamps.midnight(saleEnd));
      offers
        .cents(originalCents)

        .bytes(timestamps.midnight(originalStart))

        .bytes(timestamps.midnight(saleStart));
    } else if (originalCents >= 0) {
      offers.null().null().null().cents(originalCents).null().null();
    } else {
      offers.null().null().null().null().null().null();
    }
    offers.bytes(timestamps.minutesAgo(updatedMinutesAgo));
    // item_id: the shop's id for the item, as its page's URL shows it.
    offers.int(draft.id);
    offers.end();

    // Bundles or payment plans at another price, each with its own link.
    if (random.chance(0.03)) {
      const alternatives = random.int(1, 2);
      for (let position = 0; position < alternatives; position++) {
        const altCents = Math.round(priceCents * random.between(1.02, 1.2));
        sinks.alternativePrices
          .int(id)
          .int(position)
          .cents(altCents)
          .rawBytes(shopUrl)
          .rawBytes(PRODUCT_PATH)
          .rawInt(draft.id)
          .raw('?variant=')
          .int(position + 2)
          .end();
      }
    }
  }
  return lowestAvailable === Infinity ? lowest : lowestAvailable;
}
