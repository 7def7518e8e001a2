/**
 * A query as a text search: its terms as typed (separated by white space), each reduced to
 * its words (SEARCH_WORD), and the relevance tiers those words make in a language
 * (relevance-queries.ts). Only words reach the database, so no input can make to_tsquery
 * fail (src/db/repositories/text-match.ts writes the tiers into SQL).
 */
import { relevanceQueries, type RelevanceTier } from './relevance-queries.ts';
import type { TextSearchConfig } from './text-search-configs.ts';
import type { TypoVocabulary } from './typo-tolerance.ts';
import { SEARCH_WORD } from './words.ts';

/** One term of a query, reduced to what the database compares. */
export interface SearchTerm {
  /** The term's words, lowercased: runs of letters, combining marks and digits. */
  words: string[];
}

/** A search in one market's language: every term must match. */
export interface TextSearch {
  config: TextSearchConfig;
  /**
   * The relevance tiers, best first, each matching all the one before it matches
   * (relevanceQueries). Empty when the query had no letters or digits at all: nothing
   * matches.
   */
  tiers: RelevanceTier[];
}

/** Bounds on a query (the suggestions endpoint allows eight terms). */
export const MAX_QUERY_TERMS = 8;
export const MAX_QUERY_LENGTH = 200;

/** The query's terms as typed: separated by white space. */
export function splitQuery(query: string): string[] {
  return query.trim().split(/\s+/u).filter(Boolean);
}

/** A term's words (SEARCH_WORD); null for a term without words. */
export function searchTermOf(term: string): SearchTerm | null {
  const words = term.normalize('NFC').toLowerCase().match(SEARCH_WORD);
  return words ? { words } : null;
}

/** The search for a query's terms in a language, its typos corrected towards `vocabulary`. */
export function textSearchOf(
  config: TextSearchConfig,
  terms: readonly SearchTerm[],
  vocabulary: TypoVocabulary,
): TextSearch {
  return {
    config,
    tiers: relevanceQueries(
      config,
      terms.flatMap((term) => term.words),
      vocabulary,
    ),
  };
}
