/**
 * The typo rules (src/search/typo-tolerance.ts) and the search data (synonyms, category
 * translations) on their own: no database.
 */
import { describe, expect, it } from 'vitest';
import { SEARCH_WORD } from '../../src/search/words.ts';
import { SYNONYM_GROUPS } from '../../src/search/synonyms.ts';
import { CATEGORY_TRANSLATIONS } from '../../src/search/category-translations.ts';
import { relevanceQueries } from '../../src/search/relevance-queries.ts';
import { typosAllowed, TypoVocabulary } from '../../src/search/typo-tolerance.ts';
import { CATEGORY_TREE } from '../../seeds/vocabulary/index.ts';

const vocabulary = new TypoVocabulary([
  'samsung',
  'galaxy',
  'iphone',
  'phone',
  'moccamaster',
  'sony',
  'söny',
]);
const corrections = (term: string) =>
  vocabulary.matches(term, typosAllowed(term)).map((match) => `${match.word}:${match.typos}`);

describe('typo tolerance', () => {
  it('allows none below 5 characters, one from 5 to 8, two from 9', () => {
    expect([1, 4, 5, 8, 9, 20].map((length) => typosAllowed('x'.repeat(length)))).toEqual([
      0, 0, 1, 1, 2, 2,
    ]);
    expect(typosAllowed('hörlurar')).toBe(1); // characters, not bytes
  });

  it('forgives a deletion, an insertion, a substitution and a swap of neighbours', () => {
    expect(corrections('samsng')).toEqual(['samsung:1']);
    expect(corrections('samssung')).toEqual(['samsung:1']);
    expect(corrections('samsunf')).toEqual(['samsung:1']);
    expect(corrections('samsnug')).toEqual(['samsung:1']);
    expect(corrections('iphnoe')).toEqual(['iphone:1']);
  });

  it('forgives two typos from 9 characters only', () => {
    expect(corrections('mocamastr')).toEqual(['moccamaster:2']);
    expect(corrections('smasng')).toEqual([]);
    expect(corrections('sonu')).toEqual([]);
  });

  it('counts a typo in the first character twice', () => {
    expect(corrections('iphone')).toEqual([]); // not "phone"
    expect(corrections('xamsung')).toEqual([]);
    expect(corrections('xoccamaster')).toEqual(['moccamaster:2']);
  });

  it('never returns the term itself', () => {
    expect(corrections('samsung')).toEqual([]);
    expect(vocabulary.size).toBe(7);
  });
});

describe('relevance queries', () => {
  it('are tiers from names to typos, each holding the one before it', () => {
    const tv = "'tv' | 'tvs' | 'television' | 'televisions'";
    const exact = `('samsng') & (${tv})`;
    const tiers = relevanceQueries('english', ['samsng', 'tv'], vocabulary);
    expect(tiers.map(({ weights, query }) => ({ weights, query }))).toEqual([
      { weights: '{a,b}', query: exact },
      { weights: '{a,b,c}', query: exact },
      { weights: null, query: exact },
      { weights: null, query: `('samsng' | 'samsng':*) & (${tv} | 'tv':*)` },
      { weights: null, query: `('samsng' | 'samsng':* | 'samsung') & (${tv} | 'tv':*)` },
    ]);
    // What a category's names must match to hold a tier's matches: some term.
    expect(tiers[0]!.anyTerm).toBe(`('samsng') | (${tv})`);
  });

  it('leave out the typo tier when no term has a correction, and are empty without words', () => {
    expect(relevanceQueries('swedish', ['samsung'], vocabulary)).toHaveLength(4);
    expect(relevanceQueries('swedish', [], vocabulary)).toEqual([]);
  });
});

describe('search data', () => {
  const slugs = CATEGORY_TREE.flatMap((root) => [
    root.slug,
    ...root.groups.flatMap((group) => [group.slug, ...group.leaves.map((leaf) => leaf.slug)]),
  ]);

  it('translates every category of the seed, and nothing else', () => {
    expect(Object.keys(CATEGORY_TRANSLATIONS).sort()).toEqual([...slugs].sort());
  });

  it('keeps synonyms as lowercase single words', () => {
    for (const groups of Object.values(SYNONYM_GROUPS)) {
      for (const word of groups.flat()) {
        expect(word.match(SEARCH_WORD), word).toEqual([word]);
        expect(word, word).toBe(word.toLowerCase());
      }
    }
  });
});
