/**
 * The lexemes of each market language's search vectors (src/db/repositories/
 * search-vocabulary.ts): per language, one stripped tsvector of the lexemes of product and
 * brand names, one adding leaf category names, one adding every category name, the parts of
 * the vector a relevance tier reads. A tier its lexicon does not match can match no product:
 * a mistyped name ("iphnoe") skips the exact and prefix tiers, each of which was a statement
 * that found nothing (product-search.ts).
 */
import { sql, type Kysely } from 'kysely';
import { rebuildSearchLexicons } from '../../src/db/repositories/search-vocabulary.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table search_lexicons (
              search_config regconfig primary key,
              names tsvector not null,
              names_and_leaves tsvector not null,
              everything tsvector not null)`.execute(db);
  await rebuildSearchLexicons(db);
}
