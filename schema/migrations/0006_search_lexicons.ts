/**
 * What a search needs to know of the catalogue's words before it reads a product
 * (src/db/repositories/search-vocabulary.ts):
 *
 *   search_lexicons          per market language, one stripped tsvector of the lexemes of
 *                            product and brand names, the part of the vector the first
 *                            relevance tier reads, and one adding every category's names. A
 *                            tier its lexicon does not match can match no product: a mistyped
 *                            name ("iphnoe") skips the exact and prefix tiers, each of which
 *                            was a statement that found nothing.
 *   category_search_vectors  per leaf category and language, the vectors of its names and of
 *                            those with its ancestors', which each statement looking for a
 *                            tier's matches by category built anew from category_search_texts
 *                            (about 2 ms of its planning and execution at any scale).
 */
import { sql, type Kysely } from 'kysely';
import {
  rebuildCategorySearchVectors,
  rebuildSearchLexicons,
} from '../../src/db/repositories/search-vocabulary.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table search_lexicons (
              search_config regconfig primary key,
              names tsvector not null,
              names_and_categories tsvector not null)`.execute(db);
  await rebuildSearchLexicons(db);
  // Derived data, rebuilt whole with the vocabulary: no foreign key, which would keep a seed
  // from truncating the categories.
  await sql`create table category_search_vectors (
              category_id integer not null,
              search_config regconfig not null,
              leaf_names tsvector not null,
              all_names tsvector not null,
              primary key (search_config, category_id))`.execute(db);
  await rebuildCategorySearchVectors(db);
}
