/**
 * What makes prices look local: fixed exchange rates, price levels, the share of products each
 * market sells, shipping fees and how shops round their prices. Currencies themselves come from
 * the `markets` table; only their rates are known here.
 *
 * A product's price in a market is its base price in euros (its model family's, times its
 * traits' steps: seeds/generate/product.ts) × the market's rate (EUROS_TO) × its price level
 * (MARKET_ECONOMICS) × a market factor within ±MARKET_PRICE_JITTER that the whole model family
 * shares. Each new offer is that market price × a factor in OFFER_SPREAD, so every new offer
 * lies within ±NEW_OFFER_BAND of base × rate × level, give or take the shop's rounding
 * (roundShopPrice). Fixed rates, so one product's prices agree across markets; one factor per
 * family and market, so within a family a trait step (storage: at least +12 % a step) always
 * shows.
 */
import type { MarketCode } from '../src/markets.ts';
import type { Currency } from '../src/db/types.ts';

/** Units of each currency per euro, roughly the rates of 2026, fixed. */
export const EUROS_TO: Readonly<Record<Currency, number>> = {
  SEK: 11.4,
  NOK: 11.7,
  DKK: 7.46,
  EUR: 1,
  GBP: 0.85,
  NZD: 1.9,
};

export interface MarketEconomics {
  /**
   * Probability that a product is sold in this market. The shares add up to about 3.5 markets
   * per product: every product in every market would make the large scale 56 million offers,
   * too many to load in minutes (docs/benchmarks.md).
   */
  share: number;
  /** Price level relative to the euro-area average. */
  priceLevel: number;
  /** Shipping fees in whole currency units, and the order value from which shipping is free. */
  shippingFees: readonly number[];
  freeShippingFrom: number;
}

export const MARKET_ECONOMICS: Readonly<Record<MarketCode, MarketEconomics>> = {
  se: { share: 0.86, priceLevel: 1.02, shippingFees: [0, 29, 49, 79, 99], freeShippingFrom: 500 },
  no: { share: 0.5, priceLevel: 1.1, shippingFees: [0, 49, 79, 99, 149], freeShippingFrom: 800 },
  dk: { share: 0.5, priceLevel: 1.04, shippingFees: [0, 29, 39, 49, 69], freeShippingFrom: 400 },
  fi: { share: 0.48, priceLevel: 1.03, shippingFees: [0, 4.9, 6.9, 9.9], freeShippingFrom: 50 },
  fr: { share: 0.46, priceLevel: 0.99, shippingFees: [0, 3.99, 5.99, 7.99], freeShippingFrom: 35 },
  gb: { share: 0.44, priceLevel: 0.97, shippingFees: [0, 2.99, 3.95, 4.99], freeShippingFrom: 40 },
  nz: { share: 0.22, priceLevel: 1.12, shippingFees: [0, 6.5, 9.9, 14.9], freeShippingFrom: 100 },
};

/** The market factor a model family shares in one market: 1 ± this. */
export const MARKET_PRICE_JITTER = 0.03;
/** A new offer's price relative to its market price, cheapest shops most common. */
export const OFFER_SPREAD: readonly [low: number, high: number] = [0.97, 1.06];
/** Every new offer lies within base × rate × price level × (1 ± this), before rounding. */
export const NEW_OFFER_BAND = 0.1;

/** Kronor prices are whole and end in 9 from 100 up; euro, pound and dollar prices end in .99
 * or .95 or .00, the way shops price them. Works in cents. */
export function roundShopPrice(cents: number, currency: Currency, ending: number): number {
  const units = cents / 100;
  if (currency === 'SEK' || currency === 'NOK' || currency === 'DKK') {
    if (units < 100) return Math.max(1, Math.round(units)) * 100;
    return (Math.floor(units / 10) * 10 + 9) * 100;
  }
  if (units < 5) return Math.max(1, Math.round(cents));
  const whole = Math.floor(units);
  // ending picks among .99, .95 and .00 (0 ≤ ending < 1).
  if (ending < 0.6) return whole * 100 + 99;
  if (ending < 0.85) return whole * 100 + 95;
  return (whole + 1) * 100;
}

/** Cents as a numeric literal: 12345 → '123.45'. */
export function formatCents(cents: number): string {
  const whole = Math.floor(cents / 100);
  const rest = cents - whole * 100;
  return rest < 10 ? `${whole}.0${rest}` : `${whole}.${rest}`;
}

/**
 * Where a model family's price falls in its category's range. A draw u in [0, 1) places it
 * log-uniformly; each premium mark (a premium brand, a flagship word in the model: "iPhone 15
 * Pro") halves the distance to the top, each budget word ("Galaxy A35", "Nord CE4 Lite")
 * halves the distance to the bottom, so an iPhone never costs what a budget phone does.
 */
const PREMIUM_BRANDS = new Set([
  'Apple',
  'Bose',
  'Dyson',
  'Festool',
  'Hilti',
  'Jura',
  'Miele',
  'Sonos',
  'Specialized',
  'Vitamix',
]);
const PREMIUM_WORDS = new Set(['Pro', 'Ultra', 'Max', 'Plus', 'Fold', 'Flip', 'Elite', 'Premium']);
const BUDGET_WORDS = new Set([
  'Lite',
  'FE',
  'SE',
  'Mini',
  'Go',
  'Neo',
  'Nord',
  'Redmi',
  'Poco',
  'A15',
  'A25',
]);

export function familyPricePosition(brand: string, model: string, u: number): number {
  const words = model.split(/[\s()]+/u);
  const marks =
    (PREMIUM_BRANDS.has(brand) ? 1 : 0) +
    words.filter((word) => PREMIUM_WORDS.has(word) || word.endsWith('+')).length -
    words.filter((word) => BUDGET_WORDS.has(word)).length;
  if (marks === 0) return u;
  return marks > 0 ? 1 - (1 - u) / 2 ** marks : u / 2 ** -marks;
}
