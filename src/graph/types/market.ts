import { badUserInput } from '../../errors.ts';
import type { MarketRow } from '../../db/repositories/markets.ts';
import { MARKET_CODES, type MarketCode } from '../../markets.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum } from './money.ts';
import type { Scope } from '../scope.ts';

export const MarketEnum = builder.enumType('Market', {
  description: 'A country market. Every price belongs to exactly one, in its currency.',
  values: Object.fromEntries(
    MARKET_CODES.map((code) => [
      code.toUpperCase(),
      { value: code, description: `The ${code} market.` },
    ]),
  ) as Record<Uppercase<MarketCode>, { value: MarketCode; description: string }>,
});

const REF_PATTERN = /^[A-Za-z0-9._~-]{1,64}$/;

/**
 * The arguments that open a market scope on a root field: the market every nested price is
 * in, and the partner ref every nested offer URL carries.
 */
export const scopeArgs = builder.args((t) => ({
  market: t.field({
    type: MarketEnum,
    required: true,
    description: 'The market whose prices, offers and links every nested field shows.',
  }),
  ref: t.string({
    required: false,
    description:
      'Partner id added as the `ref` query parameter to every offer URL in the result (1–64 of A–Z a–z 0–9 . _ ~ -).',
  }),
}));

export function scopeFromArgs(args: { market: MarketCode; ref?: string | null }): Scope {
  const ref = args.ref ?? null;
  if (ref !== null && !REF_PATTERN.test(ref)) {
    throw badUserInput('ref must be 1–64 characters of A–Z a–z 0–9 . _ ~ -', 'ref', 'pattern');
  }
  return { market: args.market, ref };
}

const MarketInfo = builder.objectRef<MarketRow>('MarketInfo').implement({
  description: 'A market with its currency and the site its links point to.',
  fields: (t) => ({
    code: t.field({ type: MarketEnum, description: 'The market code.', resolve: (m) => m.code }),
    currency: t.expose('currency', {
      type: CurrencyEnum,
      description: 'The currency of every price here (the type `Money.currency` has).',
    }),
    siteBaseUrl: t.exposeString('site_base_url', {
      description: 'Base URL of the market site that product and category pages link to.',
    }),
  }),
});

builder.queryField('markets', (t) =>
  t.field({
    type: [MarketInfo],
    description: 'Every market the catalogue serves.',
    resolve: (_root, _args, context) => context.markets.list(),
  }),
);
