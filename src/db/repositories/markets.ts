import type { Kysely } from 'kysely';
import { MARKET_CODES, type MarketCode } from '../../markets.ts';
import type { Database, MarketsTable } from '../types.ts';

export type MarketRow = MarketsTable;

/** The markets, with site URLs from the configuration taking precedence over stored ones. */
export async function listMarkets(
  db: Kysely<Database>,
  siteUrls: Partial<Record<MarketCode, string>>,
): Promise<MarketRow[]> {
  const rows = await db.selectFrom('markets').selectAll().execute();
  rows.sort((a, b) => MARKET_CODES.indexOf(a.code) - MARKET_CODES.indexOf(b.code));
  return rows.map((row) => ({ ...row, site_base_url: siteUrls[row.code] ?? row.site_base_url }));
}
