/**
 * The relevance test set (issue 13): what a shopper types, per market and in its language, and
 * what must come first or within the top five. Expectations name products by what the seeded
 * catalogue (test/helpers/templates.ts) sells in that market: a part of the product name, the
 * brand, or a category slug (the product's leaf category or one above it). relevance.test.ts
 * first checks that every expectation names something the market sells, so a changed seed
 * shows up as such, not as a relevance failure.
 *
 * Typo rules (per term, by its length as typed): 5–8 characters forgive one typo, 9 or more
 * two, shorter terms match exactly or as a prefix only; the last term also matches as a prefix.
 * A typo is an insertion, a deletion, a substitution or a transposition of neighbours.
 *
 * Local category words (hörlurar, hodetelefoner, …) are the obvious translations of the
 * vocabulary's English category names; the synonyms are the (tv ↔ television,
 * headphones ↔ headset) and smartphone for mobile phones.
 */
import type { MarketCode } from '../../src/markets.ts';

/** What a result must be: every given part must hold. */
export interface ExpectedProduct {
  /** A part of the product name, as written in the catalogue. */
  name?: string;
  /** The brand name, as written in the catalogue. */
  brand?: string;
  /** A category slug: the product's leaf category or one of its ancestors. */
  category?: string;
}

export type RelevanceCase = {
  market: MarketCode;
  query: string;
  /** What the query exercises. */
  rule: string;
} & (
  | { first: ExpectedProduct }
  | { topFive: ExpectedProduct }
  /** No result at all. */
  | { nothing: true }
);

// prettier-ignore
export const RELEVANCE_CASES: readonly RelevanceCase[] = [
  // Sweden (Swedish)
  { market: 'se', query: 'Samsung Galaxy Z Flip7', rule: 'exact name', first: { name: 'Galaxy Z Flip7' } },
  { market: 'se', query: 'samsng', rule: 'typo, 6 chars: deletion', first: { brand: 'Samsung' } },
  { market: 'se', query: 'samsnug', rule: 'typo, 7 chars: transposition', first: { brand: 'Samsung' } },
  { market: 'se', query: 'iphnoe', rule: 'typo, 6 chars: transposition', first: { name: 'iPhone' } },
  { market: 'se', query: 'mocamastr', rule: 'two typos, 9 chars: deletions', first: { brand: 'Moccamaster' } },
  { market: 'se', query: 'playst', rule: 'prefix', first: { name: 'PlayStation' } },
  { market: 'se', query: 'hörlurar', rule: 'category word, plural', first: { category: 'headphones' } },
  { market: 'se', query: 'hörlur', rule: 'category word, singular', first: { category: 'headphones' } },
  { market: 'se', query: 'sony hörlurar', rule: 'brand + category word', first: { brand: 'Sony', category: 'headphones' } },
  { market: 'se', query: 'dammsugare', rule: 'category word', first: { category: 'household-appliances' } },
  { market: 'se', query: 'mobiltelefon', rule: 'category word, singular', first: { category: 'mobile-phones' } },
  { market: 'se', query: 'sonu', rule: 'typo, 4 chars: substitution (not forgiven)', nothing: true },
  { market: 'se', query: 'smasng', rule: 'two typos, 6 chars (one forgiven)', nothing: true },
  { market: 'se', query: 'qwxzv', rule: 'nonsense', nothing: true },

  // Norway (Norwegian)
  { market: 'no', query: 'Nintendo Switch Lite', rule: 'exact name', first: { name: 'Switch Lite' } },
  { market: 'no', query: 'philipps', rule: 'typo, 8 chars: insertion', first: { brand: 'Philips' } },
  { market: 'no', query: 'marshell', rule: 'typo, 8 chars: substitution', first: { brand: 'Marshall' } },
  { market: 'no', query: 'hodetelefoner', rule: 'category word, plural', first: { category: 'headphones' } },
  { market: 'no', query: 'hodetelefon', rule: 'category word, singular', first: { category: 'headphones' } },
  { market: 'no', query: 'hodetelef', rule: 'prefix of a category word', first: { category: 'headphones' } },
  { market: 'no', query: 'bose hodetelefoner', rule: 'brand + category word', first: { brand: 'Bose', category: 'headphones' } },
  { market: 'no', query: 'philips tv', rule: 'brand + category word', first: { brand: 'Philips', category: 'tvs' } },
  { market: 'no', query: 'sykler', rule: 'category word, plural', first: { category: 'bicycles' } },
  { market: 'no', query: 'bsoe', rule: 'typo, 4 chars: transposition (not forgiven)', nothing: true },
  { market: 'no', query: 'samsung qzxwv', rule: 'every term must match', nothing: true },
  { market: 'no', query: 'xyzzy plugh', rule: 'nonsense', nothing: true },

  // Denmark (Danish)
  { market: 'dk', query: 'Xbox Series X', rule: 'exact name', first: { name: 'Xbox Series X' } },
  { market: 'dk', query: 'ecovacs deebot', rule: 'exact name', first: { name: 'Ecovacs Deebot' } },
  { market: 'dk', query: 'lego technic', rule: 'exact name', first: { name: 'LEGO Technic' } },
  { market: 'dk', query: 'robor', rule: 'prefix ranks above a typo (robot)', first: { brand: 'Roborock' } },
  { market: 'dk', query: 'sennhaisar', rule: 'two typos, 10 chars: substitutions', first: { brand: 'Sennheiser' } },
  { market: 'dk', query: 'hovedtelefoner', rule: 'category word, plural', first: { category: 'headphones' } },
  { market: 'dk', query: 'jabra hovedtelefon', rule: 'brand + category word, singular', first: { brand: 'Jabra', category: 'headphones' } },
  { market: 'dk', query: 'støvsugere', rule: 'category word, plural', first: { category: 'household-appliances' } },
  { market: 'dk', query: 'tv', rule: 'category word', first: { category: 'tvs' } },
  { market: 'dk', query: 'lgo', rule: 'typo, 3 chars: deletion (not forgiven)', nothing: true },
  { market: 'dk', query: 'zennhaisar', rule: 'three typos, 10 chars (two forgiven)', nothing: true },

  // Finland (Finnish)
  { market: 'fi', query: 'Suunto Race', rule: 'exact name', first: { name: 'Suunto Race' } },
  { market: 'fi', query: 'PKS 55', rule: 'exact model', first: { name: 'PKS 55' } },
  { market: 'fi', query: 'nokja', rule: 'typo, 5 chars: substitution', first: { brand: 'Nokia' } },
  { market: 'fi', query: 'fiarphoen', rule: 'two typos, 9 chars: transpositions', first: { brand: 'Fairphone' } },
  { market: 'fi', query: 'moccam', rule: 'prefix', first: { brand: 'Moccamaster' } },
  { market: 'fi', query: 'kuulokkeet', rule: 'category word, plural', first: { category: 'headphones' } },
  { market: 'fi', query: 'kuuloke', rule: 'category word, singular', first: { category: 'headphones' } },
  { market: 'fi', query: 'sony kuulokkeet', rule: 'brand + category word', first: { brand: 'Sony', category: 'headphones' } },
  { market: 'fi', query: 'polkupyörät', rule: 'category word, plural', first: { category: 'bicycles' } },
  { market: 'fi', query: 'televisiot', rule: 'category word, plural', first: { category: 'tvs' } },
  { market: 'fi', query: 'tcxl', rule: 'typo, 4 chars: insertion (not forgiven)', nothing: true },
  { market: 'fi', query: 'asdfghjkl', rule: 'nonsense', nothing: true },

  // France (French)
  { market: 'fr', query: 'iPhone 15 Pro', rule: 'exact name', first: { name: 'iPhone 15 Pro' } },
  { market: 'fr', query: 'Bose Smart Ultra Soundbar', rule: 'exact name', first: { name: 'Bose Smart Ultra Soundbar' } },
  { market: 'fr', query: 'trivvial pursuit', rule: 'typo, 8 chars: insertion', first: { name: 'Trivial Pursuit' } },
  { market: 'fr', query: 'nespreso', rule: 'typo, 8 chars: deletion', first: { brand: 'Nespresso' } },
  { market: 'fr', query: 'nesp', rule: 'prefix', first: { brand: 'Nespresso' } },
  { market: 'fr', query: 'casques', rule: 'category word, plural', first: { category: 'headphones' } },
  { market: 'fr', query: 'sony casque', rule: 'brand + category word, singular', first: { brand: 'Sony', category: 'headphones' } },
  { market: 'fr', query: 'téléviseurs', rule: 'category word, plural', first: { category: 'tvs' } },
  { market: 'fr', query: 'téléviseur', rule: 'category word, singular', first: { category: 'tvs' } },
  { market: 'fr', query: 'aspirateurs', rule: 'category word, plural', first: { category: 'household-appliances' } },
  { market: 'fr', query: 'vélos', rule: 'category word, plural', first: { category: 'bicycles' } },
  { market: 'fr', query: 'smartphone', rule: 'synonym (mobile phones)', topFive: { category: 'mobile-phones' } },
  { market: 'fr', query: 'zzzzzzzz', rule: 'nonsense', nothing: true },

  // Great Britain (English)
  { market: 'gb', query: 'Ticket to Ride', rule: 'exact name', first: { name: 'Ticket to Ride' } },
  { market: 'gb', query: 'WH-1000XM5', rule: 'exact model, punctuation splits', first: { name: 'WH-1000XM5' } },
  { market: 'gb', query: 'plaaystatiion', rule: 'two typos, 13 chars: insertions', first: { name: 'PlayStation' } },
  { market: 'gb', query: 'blendr', rule: 'typo in a category word, 6 chars: deletion', first: { category: 'blenders' } },
  { market: 'gb', query: 'macbook ai', rule: 'prefix on the last term', first: { name: 'MacBook Air' } },
  { market: 'gb', query: 'sony headphones', rule: 'brand + category word', first: { brand: 'Sony', category: 'headphones' } },
  { market: 'gb', query: 'samsung phone', rule: 'brand + category word, singular', first: { brand: 'Samsung', category: 'mobile-phones' } },
  { market: 'gb', query: 'tv', rule: 'category word', first: { category: 'tvs' } },
  { market: 'gb', query: 'television', rule: 'synonym (tv)', first: { category: 'tvs' } },
  { market: 'gb', query: 'televisions', rule: 'synonym (tv), plural', first: { category: 'tvs' } },
  { market: 'gb', query: 'headset', rule: 'synonym (headphones)', first: { category: 'headphones' } },

  // New Zealand (English)
  { market: 'nz', query: 'Sony Bravia 9', rule: 'exact name', first: { name: 'Sony Bravia 9' } },
  { market: 'nz', query: 'Galaxy Tab', rule: 'exact name', first: { name: 'Galaxy Tab' } },
  { market: 'nz', query: 'ultimate ears wonderbom', rule: 'typo, 9 chars: deletion', first: { name: 'WONDERBOOM' } },
  { market: 'nz', query: 'jabra ev', rule: 'prefix on the last term', first: { name: 'Jabra Evolve2' } },
  { market: 'nz', query: 'bosch vacuum', rule: 'brand + category word', first: { brand: 'Bosch', category: 'vacuum-cleaners' } },
  { market: 'nz', query: 'headphone', rule: 'category word, singular', first: { category: 'headphones' } },
  { market: 'nz', query: 'headsets', rule: 'synonym (headphones), plural', topFive: { category: 'headphones' } },
  { market: 'nz', query: 'xbxo', rule: 'typo, 4 chars: transposition (not forgiven)', nothing: true },
  { market: 'nz', query: 'sumsang', rule: 'two typos, 7 chars (one forgiven)', nothing: true },
];
