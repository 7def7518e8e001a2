/**
 * W3: GET /suggestions?market=…&product=<terms> (src/rest/routes/suggestions.ts, default
 * fields): the products matching every term, by relevance then popularity, each with its
 * cheapest available offer and price trend, in `{"data": [...]}`.
 *
 * The search is the gateway's own (src/db/repositories/product-search.ts, order RELEVANCE,
 * no filters), its SQL copied here clause for clause so that the two do the same work:
 * findFrontMatches's statement (the first FRONT_ROWS listed products, each given its
 * relevance tier, and whether the language's lexicon admits each tier), then, for a tier
 * whose front matches cannot fill its share of the page and that the lexicon admits,
 * listTierMatches's statement (the tier's matches through the search vectors' GIN index and
 * the heads of the categories whose names match).
 * The gateway decides in JavaScript between its statements; here the same decisions are
 * CTEs, and each fallback runs behind a one-time filter, so it is executed only when the
 * gateway would run it. Everything is one statement, ending in the response body. The
 * query's tier tsqueries are computed by the gateway's own code (src/search/, typo
 * corrections from the search vocabulary, read once per language): choosing the words to
 * look for is the search's logic, not the gateway's overhead this baseline measures.
 *
 * Parameters: $1 market, $2 front rows, $3 end of the page plus one (offset + limit + 1: the
 * gateway fetches one more row to learn whether a next page exists), $4 offset, $5 limit,
 * $6 the public base (pictures' URLs), then $7 … the relevance tiers' tsquery texts, best first (relevanceQueries), then as many
 * again: each tier's query with any term instead of every term (RelevanceTier anyTerm). A statement
 * is named by its language and number of tiers: only the last tier (typos) may be left out,
 * so the tiers' parts of the vector follow from their number.
 */
import type { TierWeights } from '../../../src/search/relevance-queries.ts';
import type { TextSearchConfig } from '../../../src/search/text-search-configs.ts';
import { integer, decimal, nullWhen, object, render, requiredString } from '../json-sql.ts';
import { logo, offerPrice, periodPrice } from './offers.ts';
import { productIdentity } from './product-identity.ts';

/** src/db/repositories/product-search.ts FRONT_ROWS. */
export const FRONT_ROWS = 1_000;

/** src/db/repositories/product-search.ts CATEGORY_HEAD_ROWS. */
const CATEGORY_HEAD_ROWS = 500;

/** src/search/text-search.ts MAX_QUERY_TERMS, MAX_QUERY_LENGTH. */
export const MAX_QUERY_TERMS = 8;
export const MAX_QUERY_LENGTH = 200;

/** The text-search configurations the migration indexes (one per market language). */
const TEXT_SEARCH_CONFIGS = ['swedish', 'norwegian', 'danish', 'finnish', 'french', 'english'];

const PUBLIC_BASE = '$6';
const FIRST_QUERY_PARAMETER = 7;

/** A term reduced to what the database compares (src/search/text-search.ts SearchTerm). */
export interface SearchTerm {
  words: string[];
}

/** src/search/text-search.ts splitQuery. */
export function splitQuery(query: string): string[] {
  return query.trim().split(/\s+/u).filter(Boolean);
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** src/search/text-search.ts searchTermOf. */
export function searchTermOf(term: string): SearchTerm | null {
  const words = term.normalize('NFC').toLowerCase().match(WORD);
  return words ? { words } : null;
}

/**
 * The statement's pieces for one market language and its relevance tiers' parts of the
 * vector (relevance-queries.ts RelevanceTier weights).
 */
function searchSql(config: string, weights: readonly TierWeights[]) {
  if (!TEXT_SEARCH_CONFIGS.includes(config)) throw new Error(`unindexed text search ${config}`);
  const language = `'search_${config}'::regconfig`;
  // text-match.ts vectorMatches.
  const matches = (vector: string, tier: number) => {
    const part =
      weights[tier] === null ? vector : `ts_filter(${vector}, '${weights[tier]}'::"char"[])`;
    return `${part} @@ to_tsquery(${language}, $${FIRST_QUERY_PARAMETER + tier})`;
  };
  // text-match.ts relevanceTiers and relevanceTierOf.
  const tierCondition = (vector: string, tier: number) =>
    tier === 0
      ? matches(vector, 0)
      : `(${matches(vector, tier)} and not ${matches(vector, tier - 1)})`;
  const last = weights.length - 1;
  const better = Array.from({ length: last }, (_, tier) => tier);
  const tierOf = (vector: string) =>
    last < 1
      ? '0'
      : `case ${better.map((tier) => `when ${matches(vector, tier)} then ${tier}`).join(' ')} else ${last} end`;
  // product-search.ts listTierMatches's two places: names and brands, and categories.
  const search = `'search_${config}'::regconfig`;
  const query = (tier: number) => `$${FIRST_QUERY_PARAMETER + tier}`;
  const anyTerm = (tier: number) => `$${FIRST_QUERY_PARAMETER + weights.length + tier}`;
  const byCategory = weights.map((tierWeights, tier) => {
    // Names and brands only: no category holds its matches (false, typing the parameter).
    if (tierWeights === '{a,b}') return `${anyTerm(tier)}::text is null`;
    const names = tierWeights === null ? 't.all_names' : 't.leaf_names';
    return `t.search_config = '${config}'::regconfig
             and ${names} @@ to_tsquery(${search}, ${anyTerm(tier)})`;
  });
  // product-search.ts lexiconAdmits.
  const admitted = weights.map(
    (tierWeights, tier) =>
      `coalesce((select l.${tierWeights === '{a,b}' ? 'names' : 'names_and_categories'}
                        @@ to_tsquery(${search}, ${query(tier)})
                   from search_lexicons l where l.search_config = '${config}'::regconfig), true)`,
  );
  const byName = (tier: number) =>
    `ts_filter(s.search_vector, '{a,b}'::"char"[]) @@ to_tsquery(${search}, ${query(tier)})`;
  return {
    tierOf: tierOf('s.search_vector'),
    frontMatches: matches('s.search_vector', last),
    indexed: weights.map((_, tier) => tierCondition('s.search_vector', tier)),
    // Tier 0's name condition is its query; a later tier must also miss the one before, and
    // has no name matches of its own when its query is its predecessor's.
    byName: weights.map((_, tier) =>
      tier === 0
        ? byName(0)
        : `${query(tier)} <> ${query(tier - 1)} and ${byName(tier)} and ${tierCondition('s.search_vector', tier)}`,
    ),
    byCategory,
    admitted,
  };
}

/** The item of src/rest/routes/suggestions.ts suggestionItem, its standard fields. */
const suggestionIn = (config: TextSearchConfig) =>
  object({
    ...productIdentity(PUBLIC_BASE, config),
    lowestPrice: nullWhen(
      'o.id is null',
      object({
        price: offerPrice('o', { withShipping: true }),
        memberPrice: periodPrice('o', 'member'),
        salesPrice: periodPrice('o', 'sales'),
        originalPrice: periodPrice('o', 'original'),
        shop: object({
          id: integer('sh.id'),
          name: requiredString('sh.name'),
          logo: logo('sh', PUBLIC_BASE),
        }),
        priceTrend: object({ percentage: decimal('s.price_trend_percentage') }),
      }),
    ),
  });

const statements = new Map<string, { name: string; text: string }>();

/** The statement for a market language and its tiers' parts of the vector, built once. */
export function suggestionsStatement(config: TextSearchConfig, weights: readonly TierWeights[]) {
  const name = `raw_w3_suggestions_${config}_${weights.length}`;
  let statement = statements.get(name);
  if (!statement)
    statements.set(name, (statement = { name, text: statementText(config, weights) }));
  return statement;
}

function statementText(config: TextSearchConfig, weights: readonly TierWeights[]): string {
  const { tierOf, frontMatches, indexed, byName, byCategory, admitted } = searchSql(
    config,
    weights,
  );
  const tierCounts = indexed.map((_, tier) => `count(*) filter (where tier = ${tier}) as n${tier}`);
  const chosen = indexed.map(
    (_, tier) => `select product_id, ${tier} as tier, position from chosen${tier}`,
  );

  // Per tier: how many rows it may still add (`wanted`), whether its front matches fall short
  // so that its indexed matches are read (`fallback`), and the rows it adds (`chosen`):
  // product-search.ts searchProductIds's loop.
  const tierCtes = indexed.map((_, tier) => {
    const wanted =
      tier === 0 ? '$3::bigint' : `d${tier - 1}.wanted - (select count(*) from chosen${tier - 1})`;
    return `
  d${tier} as (
    select w.wanted,
           st.front_size >= $2 and st.n${tier} < w.wanted and (st.admitted)[${tier + 1}]
             as fallback
      from front_stats st, (select ${wanted} as wanted
                              ${tier === 0 ? '' : `from d${tier - 1}`}) as w),
  fallback${tier} as materialized (
    select x.product_id, row_number() over (order by x.popularity desc, x.product_id) as position
      from (
        -- product-search.ts listTierMatches: by name and brand, and by category.
        with name_matches as materialized (
          select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
            from product_market_summaries s
           where (select fallback from d${tier}) and (s.market = $1) is true
             and ${byName[tier]}),
        by_name as (
          select * from name_matches s order by s.popularity desc, s.product_id
           limit (select greatest(wanted, 0) from d${tier})),
        by_category as (
          select w.* from category_search_vectors t
           cross join lateral (
             -- product-search.ts categoryTierMatches: the category's head, or all of it.
             with head as materialized (
               select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage,
                      ${indexed[tier]} as matches
                 from product_market_summaries s
                where s.category_id = t.category_id and s.market = $1
                order by s.popularity desc, s.product_id limit ${CATEGORY_HEAD_ROWS}),
             head_matches as materialized (
               select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
                 from head s where s.matches
                order by s.popularity desc, s.product_id
                limit (select greatest(wanted, 0) from d${tier}))
             select * from head_matches
             union
             (select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
                from product_market_summaries s
               where (select count(*) from head) = ${CATEGORY_HEAD_ROWS}
                 and (select count(*) from head_matches) < (select wanted from d${tier})
                 and s.category_id = t.category_id and s.market = $1 and ${indexed[tier]}
               order by s.popularity desc, s.product_id
               limit (select greatest(wanted, 0) from d${tier}))) as w
           where (select fallback from d${tier}) and ${byCategory[tier]}),
        matches as (select * from by_name union select * from by_category)
        select s.product_id, s.popularity from matches s
         order by s.popularity desc, s.product_id
         limit (select greatest(wanted, 0) from d${tier})) as x),
  chosen${tier} as (
    select f.product_id, f.position from front_matches f, d${tier} d
     where not d.fallback and f.tier = ${tier} and f.position <= d.wanted
    union all
    select product_id, position from fallback${tier}),`;
  });

  return `
with
  -- product-search.ts findFrontMatches: each row's tier computed as it is read.
  front as materialized (
    select s.product_id, s.popularity,
           case when ${frontMatches} then ${tierOf} end as tier
      from (select s.product_id, s.popularity, s.search_vector from product_market_summaries s
             where s.market = $1
             order by s.popularity desc, s.product_id limit $2) as s),
  tiered as (
    select s.product_id, s.tier,
           row_number() over (partition by s.tier order by s.popularity desc, s.product_id)
             as position
      from front s
     where s.tier is not null),
  front_matches as materialized (
    select walked.size::int as front_size, walked.admitted, t.product_id, t.tier, t.position
      from (select count(*) as size, array[${admitted.join(', ')}] as admitted from front)
             as walked
      left join tiered t on t.position <= $3),
  front_stats as (
    select max(front_size) as front_size, max(admitted) as admitted,
           ${tierCounts.join(', ')}
      from front_matches),
  ${tierCtes.join('').trim()}
  ranked as (
    select r.product_id, row_number() over (order by r.tier, r.position) as n
      from (${chosen.join(' union all ')}) as r),
  page as (select r.product_id, r.n from ranked r where r.n > $4 and r.n <= $4 + $5)
select concat('{"data":[',
  (select string_agg(${render(suggestionIn(config))}, ',' order by pg.n)
     from page pg
     join products p on p.id = pg.product_id
     join categories c on c.id = p.category_id
     left join brands b on b.id = p.brand_id
     left join product_market_summaries s on s.product_id = p.id and s.market = $1
     -- The cheapest available offer (offers.ts findCheapestOffers: price, then id).
     left join lateral (
       select o.* from available_offers o
        where o.product_id = p.id and o.market = $1
        order by o.price, o.id limit 1) as o on true
     left join shops sh on sh.id = o.shop_id),
  ']}') as body`;
}
