/**
 * Search over what people type (docs/api.md, "Text search"):
 *
 *   search_<language>       each market language's text-search configuration without its
 *                           stop words (their stemming kept): a query of "the" or the French
 *                           "c" (typing "casque") is a word like any other
 *   category_translations   category names in each market language, by slug (data:
 *                           src/search/category-translations.ts)
 *   category_search_texts   per category and language, the names of the category and of its
 *                           ancestors, translated and in English
 *   product_search_vector   a product's name (weight A), brand (B), category's names (C) and
 *                           its ancestors' (D), stemmed in a market language's
 *                           search_<language>
 *   search_vector           0003's name_vector renamed, now product_search_vector in the
 *                           summary's market language, under a GIN index for every market,
 *                           and one more on its name and brand part (ts_filter): a tier's
 *                           matches by name (product-search.ts listTierMatches; those by
 *                           category are walked along the category's own index)
 *   search_vocabulary       per language, the words those vectors are made of, as typed:
 *                           what typo tolerance corrects a term towards (src/search/)
 *
 * The indexes on products' names (0001: trigram and one per language) served only the old
 * search and go.
 */
import { sql, type Kysely } from 'kysely';
import { rebuildSearchVocabulary } from '../../src/db/repositories/search-vocabulary.ts';
import { CATEGORY_TRANSLATIONS } from '../../src/search/category-translations.ts';

const LANGUAGES = ['swedish', 'norwegian', 'danish', 'finnish', 'french', 'english'];

export async function up(db: Kysely<any>): Promise<void> {
  for (const language of LANGUAGES) {
    const stemmer = sql.id(`search_${language}_stem`);
    await sql`create text search dictionary ${stemmer}
                (template = snowball, language = ${sql.raw(language)})`.execute(db);
    await sql`create text search configuration ${sql.id(`search_${language}`)}
                (copy = ${sql.raw(language)})`.execute(db);
    await sql`alter text search configuration ${sql.id(`search_${language}`)}
                alter mapping replace ${sql.id(`${language}_stem`)} with ${stemmer}`.execute(db);
  }
  await sql`create function search_config_of(language regconfig) returns regconfig
              language sql stable parallel safe
              return ('search_' || language::text)::regconfig`.execute(db);

  await sql`create table category_translations (
              slug text not null,
              search_config regconfig not null,
              name text not null,
              primary key (slug, search_config))`.execute(db);
  const translations = Object.entries(CATEGORY_TRANSLATIONS).flatMap(([slug, names]) =>
    Object.entries(names).map(([config, name]) => ({ slug, config, name })),
  );
  await sql`insert into category_translations (slug, search_config, name)
            select slug, config::regconfig, name
              from unnest(${translations.map((t) => t.slug)}::text[],
                          ${translations.map((t) => t.config)}::text[],
                          ${translations.map((t) => t.name)}::text[]) as t(slug, config, name)`.execute(
    db,
  );

  await sql`create view category_search_texts as
              with recursive lineage (category_id, ancestor_id, depth) as (
                select id, id, 0 from categories
                union all
                select l.category_id, c.parent_id, l.depth + 1
                  from lineage l join categories c on c.id = l.ancestor_id
                 where c.parent_id is not null)
              select l.category_id, configs.search_config,
                     string_agg(coalesce(t.name || ' ', '') || a.name, ' ')
                       filter (where l.depth = 0) as leaf_names,
                     coalesce(string_agg(coalesce(t.name || ' ', '') || a.name, ' '
                                         order by l.depth) filter (where l.depth > 0), '')
                       as ancestor_names
                from lineage l
                join categories a on a.id = l.ancestor_id
               cross join (select distinct search_config from markets) as configs
                left join category_translations t
                       on t.slug = a.slug and t.search_config = configs.search_config
               group by l.category_id, configs.search_config`.execute(db);

  await sql`create function product_search_vector(language regconfig, product_name text,
                                                  brand_name text, category_names text,
                                                  ancestor_names text)
              returns tsvector language sql stable parallel safe
              return setweight(to_tsvector(search_config_of(language), product_name), 'A')
                  || setweight(to_tsvector(search_config_of(language), coalesce(brand_name, '')), 'B')
                  || setweight(to_tsvector(search_config_of(language), coalesce(category_names, '')),
                               'C')
                  || setweight(to_tsvector(search_config_of(language), coalesce(ancestor_names, '')),
                               'D')`.execute(db);

  await sql`alter table product_market_summaries rename column name_vector to search_vector`.execute(
    db,
  );
  await sql`update product_market_summaries s
               set search_vector = product_search_vector(m.search_config, p.name, b.name,
                                                         t.leaf_names, t.ancestor_names)
              from products p
              join markets m on true
              left join brands b on b.id = p.brand_id
              left join category_search_texts t
                     on t.category_id = p.category_id and t.search_config = m.search_config
             where p.id = s.product_id and m.code = s.market`.execute(db);
  // The whole vector (counting a search's matches) and its name and brand part (a tier's
  // matches by name: without it, 0.7 s at the large scale).
  await sql`create index summaries_search_vector_idx on product_market_summaries
              using gin (search_vector)`.execute(db);
  await sql`create index summaries_search_name_idx on product_market_summaries
              using gin (ts_filter(search_vector, '{a,b}'::"char"[]))`.execute(db);

  await sql`drop index if exists products_name_trgm_idx`.execute(db);
  for (const language of LANGUAGES) {
    await sql`drop index if exists ${sql.id(`products_name_${language}_fts_idx`)}`.execute(db);
  }

  await sql`create table search_vocabulary (
              search_config regconfig not null,
              word text not null,
              primary key (search_config, word))`.execute(db);
  await rebuildSearchVocabulary(db);
}
