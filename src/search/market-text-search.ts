/**
 * A query argument as the text search of a market: checked against the bounds (a bad one is
 * the client's BAD_USER_INPUT), in the market's language, its typos corrected towards the
 * language's vocabulary. `products(query:)` and `categories(query:)` both take it.
 */
import type { RequestContext } from '../context.ts';
import { badUserInput } from '../errors.ts';
import { marketLanguage } from '../localisation/market-language.ts';
import type { MarketCode } from '../markets.ts';
import {
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  searchTermOf,
  splitQuery,
  textSearchOf,
  type TextSearch,
} from './text-search.ts';
import { searchVocabulary } from './vocabularies.ts';

/**
 * The text search a `query` asks for in the market's language, or undefined for a blank
 * query (no text filter).
 */
export async function marketTextSearch(
  context: RequestContext,
  market: MarketCode,
  query: string | null | undefined,
): Promise<TextSearch | undefined> {
  if (query == null || query.trim() === '') return undefined;
  if ([...query.trim()].length > MAX_QUERY_LENGTH) {
    throw badUserInput(`query must be at most ${MAX_QUERY_LENGTH} characters`, 'query', 'too_long');
  }
  const typed = splitQuery(query);
  if (typed.length > MAX_QUERY_TERMS) {
    throw badUserInput(
      `query must have at most ${MAX_QUERY_TERMS} space-separated terms, not ${typed.length}`,
      'query',
      'too_many_terms',
    );
  }
  const config = await marketLanguage(context, market);
  const terms = typed.flatMap((term) => searchTermOf(term) ?? []);
  return textSearchOf(config, terms, await searchVocabulary(context, config));
}
