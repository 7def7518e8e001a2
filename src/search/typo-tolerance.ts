/**
 * Typo tolerance as Algolia, Meilisearch and Typesense practise it, over a vocabulary (the
 * words the documents contain): a term of 5 to 8 characters forgives one typo, one of 9 or
 * more two, a shorter one none. A typo is a wrong, missing or extra character or two
 * neighbours swapped: optimal string alignment distance, the restricted Damerau-Levenshtein
 * distance. As in Meilisearch, a typo in the first character counts twice: people rarely
 * get it wrong, and forgiving it makes "iphone" match "phone". The vocabulary is a trie, walked once per term with one row of the distance
 * table per node, pruned where no row entry is within the allowance, so a term costs the
 * trie's few nodes near it rather than a comparison with every word.
 */

/** Typos a term forgives, by its length in characters (code points). */
export function typosAllowed(term: string): number {
  const length = [...term].length;
  if (length >= 9) return 2;
  if (length >= 5) return 1;
  return 0;
}

interface TrieNode {
  children: Map<string, TrieNode>;
  /** The vocabulary word ending here, if one does. */
  word: string | undefined;
}

const newNode = (): TrieNode => ({ children: new Map(), word: undefined });

export interface TypoMatch {
  word: string;
  typos: number;
}

/** The words documents contain, for finding those within a few typos of a term. */
export class TypoVocabulary {
  private readonly root = newNode();
  readonly size: number;

  constructor(words: Iterable<string>) {
    let size = 0;
    for (const word of words) {
      let node = this.root;
      for (const character of word) {
        let child = node.children.get(character);
        if (!child) node.children.set(character, (child = newNode()));
        node = child;
      }
      if (node.word === undefined) size++;
      node.word = word;
    }
    this.size = size;
  }

  /** The vocabulary's words within `maxTypos` of the term, nearest first; not the term itself. */
  matches(term: string, maxTypos: number): TypoMatch[] {
    if (maxTypos <= 0) return [];
    const target = [...term];
    const found: TypoMatch[] = [];
    const walk = (
      budget: number,
      node: TrieNode,
      character: string,
      parentCharacter: string | undefined,
      previousRow: readonly number[],
      rowBeforeThat: readonly number[] | undefined,
    ) => {
      // row[i]: the distance between the term's first i characters and the node's text.
      const row = [previousRow[0]! + 1];
      let smallest = row[0]!;
      for (let i = 1; i <= target.length; i++) {
        const substitution = previousRow[i - 1]! + (target[i - 1] === character ? 0 : 1);
        let distance = Math.min(row[i - 1]! + 1, previousRow[i]! + 1, substitution);
        if (
          rowBeforeThat !== undefined &&
          i > 1 &&
          target[i - 1] === parentCharacter &&
          target[i - 2] === character
        ) {
          distance = Math.min(distance, rowBeforeThat[i - 2]! + 1);
        }
        row.push(distance);
        smallest = Math.min(smallest, distance);
      }
      const typos = row[target.length]!;
      if (node.word !== undefined && node.word !== term && typos <= budget) {
        found.push({ word: node.word, typos: typos + maxTypos - budget });
      }
      // Below, every row entry only grows: no word down there is near enough.
      if (smallest > budget) return;
      for (const [next, child] of node.children) {
        walk(budget, child, next, character, row, previousRow);
      }
    };
    const emptyTextRow = Array.from({ length: target.length + 1 }, (_, index) => index);
    for (const [character, child] of this.root.children) {
      const budget = character === target[0] ? maxTypos : maxTypos - 1;
      if (budget >= 0) walk(budget, child, character, undefined, emptyTextRow, undefined);
    }
    return found.sort((a, b) => a.typos - b.typos || a.word.localeCompare(b.word));
  }
}
