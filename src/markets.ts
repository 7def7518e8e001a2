/**
 * The markets the catalogue serves (docs/api.md, "Markets and scoping"). Their currencies, site URLs and
 * text-search languages live in the `markets` table; code only needs the closed set of codes.
 */
export const MARKET_CODES = ['se', 'no', 'dk', 'fi', 'fr', 'gb', 'nz'] as const;
export type MarketCode = (typeof MARKET_CODES)[number];

export function isMarketCode(value: string): value is MarketCode {
  return (MARKET_CODES as readonly string[]).includes(value);
}

/** Each market's currency (the markets table enforces the same pairs). */
export const MARKET_CURRENCY = {
  se: 'SEK',
  no: 'NOK',
  dk: 'DKK',
  fi: 'EUR',
  fr: 'EUR',
  gb: 'GBP',
  nz: 'NZD',
} as const satisfies Record<MarketCode, string>;
