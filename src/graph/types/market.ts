import { MARKET_CODES } from '../../markets.ts';
import { listMarkets, type MarketRow } from '../../db/repositories/markets.ts';
import { builder } from '../builder.ts';

export const MarketEnum = builder.enumType('Market', {
  description: 'A country market; every price belongs to exactly one.',
  values: Object.fromEntries(
    MARKET_CODES.map((code) => [
      code.toUpperCase(),
      { value: code, description: `Market ${code}` },
    ]),
  ),
});

const MarketInfo = builder.objectRef<MarketRow>('MarketInfo').implement({
  description: 'A market with its currency and the site its links point to.',
  fields: (t) => ({
    code: t.field({ type: MarketEnum, description: 'The market code.', resolve: (m) => m.code }),
    currency: t.exposeString('currency', { description: 'ISO 4217 code of every price here.' }),
    siteBaseUrl: t.exposeString('site_base_url', {
      description: 'Base URL of the market site used for product and category pages.',
    }),
  }),
});

builder.queryField('markets', (t) =>
  t.field({
    type: [MarketInfo],
    description: 'Every market the catalogue serves.',
    resolve: (_root, _args, context) => listMarkets(context.db, context.siteUrls),
  }),
);
