/**
 * A query's relevance tiers as tsquery texts over a product's search vector (migration 0005:
 * name weight A, brand B, the category's names C, its ancestors' D), best tier first:
 *
 *   0. every term is a word of the name or brand, after stemming, or a synonym of one
 *   1. every term is a word of the name, brand or category's names (or a synonym): "sony
 *      headphones" finds Sony's headphones here
 *   2. every term is a word of any of them, the ancestor categories' names included ("tv"
 *      finds the TVs above, and here the rest of "TV & audio")
 *   3. … or begins one (typing ahead: "sams" finds "Samsung")
 *   4. … or is within its allowed typos of a vocabulary word (typo-tolerance.ts)
 *
 * Each tier's query matches everything the tier before it matches, so a product's tier is the
 * first query it matches and the last query is the whole search. A tier that would add
 * nothing (no term has a typo match) is left out.
 *
 * Terms are words of letters, marks and digits only (SEARCH_WORD), as are the vocabulary and
 * the synonyms, so quoting each in '…' is all the escaping a tsquery needs.
 */
import type { TextSearchConfig } from './text-search-configs.ts';
import { synonymsOf } from './synonyms.ts';
import { typosAllowed, type TypoVocabulary } from './typo-tolerance.ts';

/** The most typo corrections a term expands to, nearest first. */
export const MAX_TYPO_MATCHES = 20;

const HAS_DIGIT = /\p{N}/u;

interface TermAlternatives {
  /** The word and its synonyms. */
  exact: string[];
  /** The word as a word's beginning. */
  prefix: string;
  /** The vocabulary's words within the term's typos, and their synonyms. */
  typos: string[];
}

const quoted = (word: string) => `'${word}'`;

function alternativesOf(
  config: TextSearchConfig,
  word: string,
  vocabulary: TypoVocabulary,
): TermAlternatives {
  const exact = [word, ...synonymsOf(config, word)];
  // Digits name a model ("s24", "128gb"): a different digit is another product, not a typo.
  const corrections = HAS_DIGIT.test(word)
    ? []
    : vocabulary.matches(word, typosAllowed(word)).slice(0, MAX_TYPO_MATCHES);
  const typos = new Set(
    corrections.flatMap(({ word: corrected }) => [corrected, ...synonymsOf(config, corrected)]),
  );
  for (const same of exact) typos.delete(same);
  return { exact, prefix: `${quoted(word)}:*`, typos: [...typos] };
}

/**
 * The weights of the search vector a tier reads (ts_filter): name and brand, those and the
 * category's own names, or (null) the whole vector. A tier's matches are found by name
 * through the name and brand part's GIN index (migration 0005) and by category along each
 * matching category's own index (product-search.ts listTierMatches), never through every row
 * that has the word somewhere else: "tv" is in the name of few products but in the category
 * above thousands.
 */
export type TierWeights = '{a,b}' | '{a,b,c}' | null;

export interface RelevanceTier {
  weights: TierWeights;
  /** The tsquery text the tier's part of the vector matches. */
  query: string;
  /** The same with any term instead of every term: what a category name must match. */
  anyTerm: string;
}

/** The relevance tiers of the words of a query (none without words: nothing matches). */
export function relevanceQueries(
  config: TextSearchConfig,
  words: readonly string[],
  vocabulary: TypoVocabulary,
): RelevanceTier[] {
  if (words.length === 0) return [];
  const terms = words.map((word) => alternativesOf(config, word, vocabulary));
  const tier = (weights: TierWeights, items: (term: TermAlternatives) => string[]) => {
    const alternatives = terms.map((term) => `(${items(term).join(' | ')})`);
    return { weights, query: alternatives.join(' & '), anyTerm: alternatives.join(' | ') };
  };
  const exact = (term: TermAlternatives) => term.exact.map(quoted);
  const prefixed = (term: TermAlternatives) => [...exact(term), term.prefix];
  const tiers: RelevanceTier[] = [
    tier('{a,b}', exact),
    tier('{a,b,c}', exact),
    tier(null, exact),
    tier(null, prefixed),
    tier(null, (term) => [...prefixed(term), ...term.typos.map(quoted)]),
  ];
  return tiers.filter(
    (tier, index) =>
      index === 0 ||
      tier.query !== tiers[index - 1]!.query ||
      tier.weights !== tiers[index - 1]!.weights,
  );
}
