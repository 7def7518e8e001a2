/**
 * The search vocabulary (migration 0005): per market language, the words of product names,
 * brand names and category names in that language, as typed (lowercased, not stemmed), the
 * words a mistyped query term is corrected towards (src/search/). Derived data: rebuilt by
 * the migration and after every seed; the process reads a language's words once.
 */
import { sql, type Kysely } from 'kysely';
import { SEARCH_WORD } from '../../search/words.ts';
import type { Database } from '../types.ts';

/** Only words of letters are corrected: a typo in "s24" or "128gb" is another model. */
const LETTERS_ONLY = /^[\p{L}\p{M}]+$/u;

/**
 * Replaces the vocabulary with the words the catalogue's search vectors hold now. The
 * database splits names at white space (its distinct tokens are a few thousand even for a
 * million products); the words within them are taken here by the same rule as a query's.
 */
export async function rebuildSearchVocabulary(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ search_config: string | null; token: string }>`
    select null as search_config, token
      from (select regexp_split_to_table(lower(name), '\\s+') as token from products
            union
            select regexp_split_to_table(lower(name), '\\s+') from brands) as names
    union all
    select distinct t.search_config::text,
           regexp_split_to_table(lower(t.leaf_names || ' ' || t.ancestor_names), '\\s+')
      from category_search_texts t`.execute(db);
  const { rows: configs } = await sql<{ search_config: string }>`
    select distinct search_config::text as search_config from markets`.execute(db);
  const shared = new Set<string>();
  const perConfig = new Map(configs.map((row) => [row.search_config, new Set<string>()]));
  for (const { search_config: config, token } of rows) {
    const words = (token.match(SEARCH_WORD) ?? []).filter((word) => LETTERS_ONLY.test(word));
    const target = config === null ? shared : perConfig.get(config);
    for (const word of words) target?.add(word);
  }
  const configColumn: string[] = [];
  const wordColumn: string[] = [];
  for (const [config, words] of perConfig) {
    for (const word of new Set([...shared, ...words])) {
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

/** A language's vocabulary. */
export async function listSearchVocabulary(
  db: Kysely<Database>,
  config: string,
): Promise<string[]> {
  const { rows } = await sql<{ word: string }>`
    select word from search_vocabulary where search_config = ${config}::regconfig`.execute(db);
  return rows.map((row) => row.word);
}
