/**
 * What the catalogue's search vectors are made of, per market language, kept beside them as
 * derived data (rebuilt by the migrations that add it and after every seed; a change to
 * names needs rebuildSearchWords as it needs a summary refresh):
 *
 *   search_vocabulary  (0005) the words of product names, brand names and category names in
 *                      that language, as typed (lowercased, not stemmed): what a mistyped
 *                      query term is corrected towards (src/search/). The process reads a
 *                      language's words once.
 *   search_lexicons    (0006) the same texts' lexemes (stemmed, as the vectors hold them):
 *                      one stripped tsvector of names and brands, the part of the vector the
 *                      first relevance tier reads, and one adding every category's names,
 *                      which every other tier's part can hold. A tier whose query the lexicon
 *                      does not match can match no product, so a search skips it without
 *                      reading a product (product-search.ts).
 *   category_search_vectors (0006) per leaf category and language, the vectors of its own
 *                      names and of those with its ancestors': the categories a tier's
 *                      category words find, without building the texts per statement.
 */
import { sql, type Kysely } from 'kysely';
import { SEARCH_WORD } from '../../search/words.ts';
import type { Database } from '../types.ts';

/** Only words of letters are corrected: a typo in "s24" or "128gb" is another model. */
const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;

/** The distinct white-space-separated tokens of the texts the search vectors are made of. */
export interface CatalogueTokens {
  /** Of product and brand names: the same in every language. */
  names: Set<string>;
  /**
   * Per language, of every category's own names (translated and English): a vector's
   * category part holds its category's and its ancestors', each some category's own.
   */
  categories: Map<string, Set<string>>;
}

/**
 * The tokens, split by the database at white space: the distinct tokens are a few thousand
 * even for a million products. Splitting keeps each token whole, so the full-text parser
 * reads a token list as it reads the names (it never joins across white space).
 */
async function readCatalogueTokens(db: Kysely<any>): Promise<CatalogueTokens> {
  const { rows } = await sql<{ config: string | null; token: string }>`
    select null as config, token
      from (select regexp_split_to_table(lower(name), '\\s+') as token from products
            union
            select regexp_split_to_table(lower(name), '\\s+') from brands) as names
    union all
    select distinct t.search_config::text, regexp_split_to_table(lower(t.leaf_names), '\\s+')
      from category_search_texts t`.execute(db);
  const { rows: configs } = await sql<{ search_config: string }>`
    select distinct search_config::text as search_config from markets`.execute(db);
  const tokens: CatalogueTokens = {
    names: new Set(),
    categories: new Map(configs.map((row) => [row.search_config, new Set<string>()])),
  };
  for (const { config, token } of rows) {
    if (token === '') continue;
    if (config === null) tokens.names.add(token);
    else tokens.categories.get(config)?.add(token);
  }
  return tokens;
}

/** Replaces the vocabulary with the words the catalogue's search vectors hold now. */
export async function rebuildSearchVocabulary(
  db: Kysely<any>,
  tokens?: CatalogueTokens,
): Promise<number> {
  const { names, categories } = tokens ?? (await readCatalogueTokens(db));
  const wordsOf = (texts: Iterable<string>) =>
    [...texts]
      .flatMap((token) => token.match(SEARCH_WORD) ?? [])
      .filter((word) => LETTERS_ONLY.test(word));
  const shared = wordsOf(names);
  const configColumn: string[] = [];
  const wordColumn: string[] = [];
  for (const [config, categoryTokens] of categories) {
    for (const word of new Set([...shared, ...wordsOf(categoryTokens)])) {
      configColumn.push(config);
      wordColumn.push(word);
    }
  }
  await sql`delete from search_vocabulary`.execute(db);
  await sql`insert into search_vocabulary (search_config, word)
            select config::regconfig, word
              from unnest(${configColumn}::text[], ${wordColumn}::text[]) as v(config, word)`.execute(
    db,
  );
  return wordColumn.length;
}

/**
 * The most characters of names a lexicon is built from. A tsvector holds at most 1 MB of
 * lexemes and their entries (4 bytes each, and a token like "wh-1000xm5" gives three), so a
 * catalogue whose names hold more distinct tokens than this gets no lexicon, and its
 * searches rule no tier out, rather than a seed that fails. The large scale's names hold
 * about 7,800 characters.
 */
export const MAX_LEXICON_TEXT = 300_000;

/** Replaces the lexicons with the lexemes of the texts the search vectors are made of now. */
export async function rebuildSearchLexicons(
  db: Kysely<any>,
  tokens?: CatalogueTokens,
): Promise<void> {
  const { names, categories } = tokens ?? (await readCatalogueTokens(db));
  const namesText = [...names].join(' ');
  const fitting = [...categories]
    .map(([config, categoryTokens]) => ({ config, categories: [...categoryTokens].join(' ') }))
    .filter((t) => namesText.length + t.categories.length <= MAX_LEXICON_TEXT);
  await sql`delete from search_lexicons`.execute(db);
  await sql`
    insert into search_lexicons (search_config, names, names_and_categories)
    select t.config::regconfig, strip(to_tsvector(c.search, n.names)),
           strip(to_tsvector(c.search, n.names || ' ' || t.categories))
      from unnest(${fitting.map((t) => t.config)}::text[],
                  ${fitting.map((t) => t.categories)}::text[]) as t(config, categories)
     cross join (select ${namesText}::text as names) as n
     cross join lateral (select search_config_of(t.config::regconfig) as search) as c`.execute(db);
}

/** Replaces the leaf categories' vectors with those of their names now. */
export async function rebuildCategorySearchVectors(db: Kysely<any>): Promise<void> {
  await sql`delete from category_search_vectors`.execute(db);
  await sql`
    insert into category_search_vectors (category_id, search_config, leaf_names, all_names)
    select t.category_id, t.search_config,
           to_tsvector(search_config_of(t.search_config), t.leaf_names),
           to_tsvector(search_config_of(t.search_config), t.leaf_names || ' ' || t.ancestor_names)
      from category_search_texts t
      join categories c on c.id = t.category_id and c.is_leaf`.execute(db);
}

/**
 * Rebuilds the vocabulary, the lexicons and the categories' vectors, the vocabulary and the
 * lexicons from one reading of the catalogue's names.
 */
export async function rebuildSearchWords(db: Kysely<any>): Promise<number> {
  const tokens = await readCatalogueTokens(db);
  await rebuildSearchLexicons(db, tokens);
  await rebuildCategorySearchVectors(db);
  return rebuildSearchVocabulary(db, tokens);
}

/** A language's vocabulary. */
export async function listSearchVocabulary(
  db: Kysely<Database>,
  config: string,
): Promise<string[]> {
  const { rows } = await sql<{ word: string }>`
    select word from search_vocabulary where search_config = ${config}::regconfig`.execute(db);
  return rows.map((row) => row.word);
}
