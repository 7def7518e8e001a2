/**
 * What every resolver sees for one request. Created per request so loaders never share
 * cached rows between callers.
 */
import type { Kysely } from 'kysely';
import type { Database } from './db/types.ts';
import type { MarketCode } from './markets.ts';

export interface RequestContext {
  db: Kysely<Database>;
  siteUrls: Partial<Record<MarketCode, string>>;
}
