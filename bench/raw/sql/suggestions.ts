/**
 * W3: GET /suggestions?market=…&product=<terms> (src/rest/routes/suggestions.ts, default
 * fields): the products matching every term, by relevance then popularity, each with its
 * cheapest available offer and price trend, in `{"data": [...]}`.
 *
 * The search is the gateway's own (src/db/repositories/product-search.ts, order RELEVANCE,
 * no filters), its SQL copied here clause for clause so that the two do the same work:
 * findFrontMatches's statement (the first FRONT_ROWS listed products, each given its
 * relevance tier), then, for a tier whose front matches cannot fill its share of the page,
 * listTierMatches's statement (the tier's matches through the text indexes). The gateway
 * decides in JavaScript between its statements; here the same decisions are CTEs, and each
 * fallback runs behind a one-time filter, so it is executed only when the gateway would run
 * it. Everything is one statement, ending in the response body.
 *
 * Parameters: $1 market, $2 front rows, $3 end of the page plus one (offset + limit + 1: the
 * gateway fetches one more row to learn whether a next page exists), $4 offset, $5 limit,
 * then three per term: $6 + 3i its words as a tsquery of whole words, $7 + 3i the same with
 * each word a prefix, $8 + 3i its words for pg_trgm.
 */
import { integer, decimal, nullWhen, object, render, requiredString } from '../json-sql.ts';
import { logo, offerPrice, periodPrice } from './offers.ts';
import { productIdentity } from './product-identity.ts';

/** src/db/repositories/product-search.ts FRONT_ROWS. */
export const FRONT_ROWS = 2_000;

/** src/db/repositories/product-search.ts MAX_QUERY_TERMS, MAX_QUERY_LENGTH. */
export const MAX_QUERY_TERMS = 8;
export const MAX_QUERY_LENGTH = 200;

/** The text-search configurations the migration indexes (one per market language). */
const TEXT_SEARCH_CONFIGS = ['swedish', 'norwegian', 'danish', 'finnish', 'french', 'english'];

const FIRST_TERM_PARAMETER = 6;

/** A term reduced to what the database compares (product-search.ts SearchTerm). */
export interface SearchTerm {
  words: string[];
}

/** product-search.ts splitQuery. */
export function splitQuery(query: string): string[] {
  return query.trim().split(/\s+/u).filter(Boolean);
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/** product-search.ts searchTermOf. */
export function searchTermOf(term: string): SearchTerm | null {
  const words = term.normalize('NFC').toLowerCase().match(WORD);
  return words ? { words } : null;
}

/** The parameters of one term, in the order the statement numbers them. */
export function termParameters(term: SearchTerm): string[] {
  return [
    term.words.map((word) => `'${word}'`).join(' & '),
    term.words.map((word) => `'${word}':*`).join(' & '),
    term.words.join(' '),
  ];
}

interface NameForms {
  vector: string;
  lowered: string;
}

/** The statement's pieces for one market language and a number of terms. */
function searchSql(config: string, terms: number) {
  if (!TEXT_SEARCH_CONFIGS.includes(config)) throw new Error(`unindexed text search ${config}`);
  const language = `'${config}'::regconfig`;
  const term = (index: number, which: 0 | 1 | 2) => `$${FIRST_TERM_PARAMETER + 3 * index + which}`;
  const indices = Array.from({ length: terms }, (_, index) => index);
  const stem = (name: NameForms, index: number, asPrefix: boolean) =>
    `${name.vector} @@ to_tsquery(${language}, ${term(index, asPrefix ? 1 : 0)})`;
  const trigram = (name: NameForms, index: number) => `${name.lowered} %> ${term(index, 2)}`;
  const every = (matches: (index: number) => string) =>
    terms === 0 ? 'false' : `(${indices.map(matches).join(' and ')})`;
  const words = (name: NameForms) => every((i) => stem(name, i, false));
  const prefixes = (name: NameForms) => every((i) => stem(name, i, true));
  const all = (name: NameForms) => every((i) => `(${stem(name, i, true)} or ${trigram(name, i)})`);
  // product-search.ts relevanceTiers.
  const tiers = (name: NameForms) => [
    words(name),
    `(${prefixes(name)} and not ${words(name)})`,
    `(${all(name)} and not ${prefixes(name)})`,
  ];
  const front: NameForms = {
    vector: 'f.name_vector',
    lowered: '(select lower(p.name) from products p where p.id = f.product_id)',
  };
  const computed = tiers(front);
  const indexed = tiers({ vector: `to_tsvector(${language}, p.name)`, lowered: 'lower(p.name)' });
  return { computed, indexed, frontForms: [words(front), prefixes(front)] };
}

/** The item of src/rest/routes/suggestions.ts suggestionItem, its standard fields. */
const suggestion = object({
  ...productIdentity,
  lowestPrice: nullWhen(
    'o.id is null',
    object({
      price: offerPrice('o', { withShipping: true }),
      memberPrice: periodPrice('o', 'member'),
      salesPrice: periodPrice('o', 'sales'),
      originalPrice: periodPrice('o', 'original'),
      shop: object({ id: integer('sh.id'), name: requiredString('sh.name'), logo: logo('sh') }),
      priceTrend: object({ percentage: decimal('s.price_trend_percentage') }),
    }),
  ),
});

const statements = new Map<string, { name: string; text: string }>();

/** The statement for a market language and a number of terms (1 to MAX_QUERY_TERMS), built once. */
export function suggestionsStatement(config: string, terms: number) {
  const name = `raw_w3_suggestions_${config}_${terms}`;
  let statement = statements.get(name);
  if (!statement) statements.set(name, (statement = { name, text: statementText(config, terms) }));
  return statement;
}

function statementText(config: string, terms: number): string {
  const { computed, indexed, frontForms } = searchSql(config, terms);
  const [words, prefixes] = frontForms;
  const tierCounts = computed.map(
    (_, tier) => `count(*) filter (where tier = ${tier}) as n${tier}`,
  );
  const chosen = computed.map(
    (_, tier) => `select product_id, ${tier} as tier, position from chosen${tier}`,
  );

  // Per tier: how many rows it may still add (`wanted`), whether its front matches fall short
  // so that its indexed matches are read (`fallback`), and the rows it adds (`chosen`):
  // product-search.ts searchProductIds's loop.
  const tierCtes = computed.map((_, tier) => {
    const wanted =
      tier === 0 ? '$3::bigint' : `d${tier - 1}.wanted - (select count(*) from chosen${tier - 1})`;
    return `
  d${tier} as (
    select w.wanted, st.front_size >= $2 and st.n${tier} < w.wanted as fallback
      from front_stats st, (select ${wanted} as wanted
                              ${tier === 0 ? '' : `from d${tier - 1}`}) as w),
  fallback${tier} as materialized (
    select x.product_id, row_number() over (order by x.popularity desc, x.product_id) as position
      from (
        with matches as materialized (
          select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
            from product_market_summaries s join products p on p.id = s.product_id
           where (select fallback from d${tier}) and s.market = $1 and ${indexed[tier]})
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
  walk as materialized (
    select s.product_id, s.name_vector,
           row_number() over (order by s.popularity desc, s.product_id) as ordinal
      from (select s.product_id, s.popularity, s.name_vector from product_market_summaries s
             where s.market = $1
             order by s.popularity desc, s.product_id limit $2) as s),
  front as materialized (select w.product_id, w.ordinal, w.name_vector from walk w),
  -- product-search.ts frontTiers: the typo tier only when the others fall short.
  prefixed as materialized (
    select f.product_id, f.ordinal, case when ${words} then 0 else 1 end as tier
      from front f
     where ${prefixes}),
  tiers as (
    select * from prefixed
    union all
    select f.product_id, f.ordinal, 2 from front f
     where (select count(*) from prefixed) < $3 and ${computed[2]}),
  tiered as (
    select t.product_id, t.tier,
           row_number() over (partition by t.tier order by t.ordinal) as position
      from tiers t),
  front_matches as materialized (
    select walked.size::int as front_size, t.product_id, t.tier, t.position
      from (select count(*) as size from walk) as walked
      left join tiered t on t.position <= $3),
  front_stats as (
    select max(front_size) as front_size,
           ${tierCounts.join(', ')}
      from front_matches),
  ${tierCtes.join('').trim()}
  ranked as (
    select r.product_id, row_number() over (order by r.tier, r.position) as n
      from (${chosen.join(' union all ')}) as r),
  page as (select r.product_id, r.n from ranked r where r.n > $4 and r.n <= $4 + $5)
select concat('{"data":[',
  (select string_agg(${render(suggestion)}, ',' order by pg.n)
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
