/**
 * The language a market's shoppers read, which is also the one its text search stems in:
 * the markets table's text-search configuration (Swedish in se, … English in gb and nz).
 */
import type { RequestContext } from '../context.ts';
import type { MarketCode } from '../markets.ts';
import { isTextSearchConfig, type TextSearchConfig } from '../search/text-search-configs.ts';

/**
 * Checked against the indexed configurations, because search writes it into SQL as a constant
 * and names are translated into it.
 */
export async function marketLanguage(
  context: RequestContext,
  market: MarketCode,
): Promise<TextSearchConfig> {
  const config = String((await context.markets.get(market)).search_config);
  if (!isTextSearchConfig(config)) {
    throw new Error(`market ${market} has text-search config ${config}, which has no index`);
  }
  return config;
}
