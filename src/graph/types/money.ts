/** Prices: an amount in its market's currency, with or without a validity period. */
import type { Currency } from '../../db/types.ts';
import { MARKET_CURRENCY, type MarketCode } from '../../markets.ts';
import { builder, type BuilderTypes } from '../builder.ts';

export const CurrencyEnum = builder.enumType('Currency', {
  description: 'ISO 4217 currency code; each market has exactly one.',
  values: {
    SEK: { description: 'Swedish krona (se).' },
    NOK: { description: 'Norwegian krone (no).' },
    DKK: { description: 'Danish krone (dk).' },
    EUR: { description: 'Euro (fi, fr).' },
    GBP: { description: 'Pound sterling (gb).' },
    NZD: { description: 'New Zealand dollar (nz).' },
  } satisfies Record<Currency, { description: string }>,
});

/**
 * A price as the Decimal scalar gives it: two decimals, exact. Prices are numeric(12,2)
 * (at most 9,999,999,999.99) read into doubles (src/db/client.ts); below 2^34 a double is
 * within 2^-19 of the decimal it was parsed from, far inside the half cent that rounding to
 * two decimals forgives, and toFixed rounds the double's exact value, so it gives back the
 * column's digits (test/graph/shapes.test.ts checks this over many values).
 */
export function decimalOfCents(value: number): string {
  return value.toFixed(2);
}

/** `amount` (exact) beside `value` (a Float): the fields every price type shares. */
function amountFields<Shape extends { value: number }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>,
) {
  return {
    amount: t.field({
      type: 'Decimal',
      description:
        'The amount, in `currency`, exact to the cent (e.g. "5899.00"; averages are rounded to the cent).',
      resolve: (price) => decimalOfCents(price.value),
    }),
    value: t.float({
      description: 'The amount, in `currency`, as a number (`amount` is exact).',
      resolve: (price) => price.value,
    }),
  };
}

export interface MoneyShape {
  value: number;
  currency: Currency;
  includingShipping: number | null;
}

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount in a market’s currency.',
  fields: (t) => ({
    ...amountFields(t),
    currency: t.expose('currency', { type: CurrencyEnum, description: 'The currency.' }),
    includingShipping: t.exposeFloat('includingShipping', {
      nullable: true,
      description:
        'The amount with shipping, or null when the shop states no shipping cost. Always null where the amount is not one offer’s price (averages, category and history lowest prices, price trends).',
    }),
  }),
});

/**
 * An amount in a market's currency, with the shipping of the offer it comes from where one
 * offer is known; aggregates over several offers and price history have none.
 */
export function moneyIn(
  market: MarketCode,
  value: number,
  includingShipping?: number | null,
): MoneyShape;
export function moneyIn(
  market: MarketCode,
  value: number | null,
  includingShipping?: number | null,
): MoneyShape | null;
export function moneyIn(
  market: MarketCode,
  value: number | null,
  includingShipping: number | null = null,
): MoneyShape | null {
  return value === null ? null : { value, currency: MARKET_CURRENCY[market], includingShipping };
}

export interface PeriodPriceShape {
  value: number;
  currency: Currency;
  /** ISO 8601, as timestamps come from the database (src/db/timestamps.ts). */
  start: string | null;
  end: string | null;
}

export const PeriodPriceRef = builder.objectRef<PeriodPriceShape>('PeriodPrice').implement({
  description: 'A price valid for a period (member, sales or original price).',
  fields: (t) => ({
    ...amountFields(t),
    currency: t.expose('currency', { type: CurrencyEnum, description: 'The currency.' }),
    start: t.expose('start', {
      type: 'DateTime',
      nullable: true,
      description: 'When the price starts to apply (null: already applies).',
    }),
    end: t.expose('end', {
      type: 'DateTime',
      nullable: true,
      description: 'When the price stops applying (null: open-ended).',
    }),
  }),
});

/** A period price from its three columns, or null when there is no such price. */
export function periodPrice(
  currency: Currency,
  value: number | null,
  start: string | null,
  end: string | null,
): PeriodPriceShape | null {
  return value === null ? null : { value, currency, start, end };
}
