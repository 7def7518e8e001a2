import type { Kysely } from 'kysely';
import { MARKET_CODES, type MarketCode } from '../../markets.ts';
import type { Database, MarketsTable } from '../types.ts';

export type MarketRow = MarketsTable;

/** The markets in the documented order (docs/api.md, "Markets and scoping"), with configured site URLs overriding stored ones. */
export async function listMarkets(
  db: Kysely<Database>,
  siteUrls: Partial<Record<MarketCode, string>>,
): Promise<MarketRow[]> {
  const rows = await db.selectFrom('markets').selectAll().execute();
  rows.sort((a, b) => MARKET_CODES.indexOf(a.code) - MARKET_CODES.indexOf(b.code));
  return rows.map((row) => ({ ...row, site_base_url: siteUrls[row.code] ?? row.site_base_url }));
}

export interface MarketDirectory {
  list(): Promise<MarketRow[]>;
  get(market: MarketCode): Promise<MarketRow>;
}

/**
 * Markets are reference data that only a migration changes: read once per process, on first
 * use (a failed read is retried on the next use).
 */
export function createMarketDirectory(
  db: Kysely<Database>,
  siteUrls: Partial<Record<MarketCode, string>>,
): MarketDirectory {
  let loading: Promise<MarketRow[]> | undefined;
  const list = () => {
    loading ??= listMarkets(db, siteUrls).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
  return {
    list,
    async get(market) {
      const found = (await list()).find((row) => row.code === market);
      if (!found) throw new Error(`market ${market} is missing from the markets table`);
      return found;
    },
  };
}
