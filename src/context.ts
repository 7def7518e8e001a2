/**
 * What every resolver sees for one request. Created per request, so the DataLoaders the
 * schema attaches to it never share cached rows between requests.
 */
import { initContextCache } from '@pothos/core';
import type { Kysely } from 'kysely';
import type { MarketDirectory } from './db/repositories/markets.ts';
import type { Database } from './db/types.ts';
import type { MarketCode } from './markets.ts';

export interface RequestContext {
  db: Kysely<Database>;
  markets: MarketDirectory;
  siteBaseUrl(market: MarketCode): Promise<string>;
}

export function createRequestContext(
  db: Kysely<Database>,
  markets: MarketDirectory,
): RequestContext {
  return {
    ...initContextCache(),
    db,
    markets,
    siteBaseUrl: async (market) => (await markets.get(market)).site_base_url,
  };
}
