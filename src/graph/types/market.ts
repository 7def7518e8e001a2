import type { MarketRow } from '../../db/repositories/markets.ts';
import { MARKET_CODES, type MarketCode } from '../../markets.ts';
import { builder } from '../builder.ts';
import { CurrencyEnum } from './money.ts';
import { checkedRef, type Scope } from '../scope.ts';

export const MarketEnum = builder.enumType('Market', {
  description: 'A country market. Every price belongs to exactly one, in its currency.',
  values: Object.fromEntries(
    MARKET_CODES.map((code) => [
      code.toUpperCase(),
      { value: code, description: `The ${code} market.` },
    ]),
  ) as Record<Uppercase<MarketCode>, { value: MarketCode; description: string }>,
});

/**
 * The arguments that open a market scope on a root field: the market every nested price is
 * in, and the deprecated partner ref (./scope.ts says what it still does).
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
      'Deprecated: give the ref to `url(ref:)` instead. Here (1–64 of A–Z a–z 0–9 . _ ~ -) it is the default of every `url(ref:)` below, and the objects below are seen under it: their ids name the ref, so they are not the objects of the same ids without it.',
    deprecationReason:
      'Give the ref to `url(ref:)` on Offer and AlternativePrice, which keeps every object’s id and URLs apart from any argument above it.',
  }),
}));

export function scopeFromArgs(args: { market: MarketCode; ref?: string | null }): Scope {
  return { market: args.market, ref: checkedRef(args.ref) };
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
