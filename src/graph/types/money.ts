/** Prices: an amount in its market's currency, with or without a validity period. */
import type { Currency } from '../../db/types.ts';
import { MARKET_CURRENCY, type MarketCode } from '../../markets.ts';
import { builder } from '../builder.ts';

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

export interface MoneyShape {
  value: number;
  currency: Currency;
  includingShipping: number | null;
}

export const MoneyRef = builder.objectRef<MoneyShape>('Money').implement({
  description: 'An amount in a market’s currency.',
  fields: (t) => ({
    value: t.exposeFloat('value', { description: 'The amount, in `currency`.' }),
    currency: t.expose('currency', { type: CurrencyEnum, description: 'The currency.' }),
    includingShipping: t.exposeFloat('includingShipping', {
      nullable: true,
      description: 'The amount with shipping, or null when the shop states no shipping cost.',
    }),
  }),
});

/** An amount in a market's currency, without shipping (aggregates and history have none). */
export function moneyIn(market: MarketCode, value: number): MoneyShape;
export function moneyIn(market: MarketCode, value: number | null): MoneyShape | null;
export function moneyIn(market: MarketCode, value: number | null): MoneyShape | null {
  return value === null
    ? null
    : { value, currency: MARKET_CURRENCY[market], includingShipping: null };
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
    value: t.exposeFloat('value', { description: 'The amount, in `currency`.' }),
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
