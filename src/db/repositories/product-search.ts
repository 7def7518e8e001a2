/**
 * Text search on product names (decisions section 8): a product matches when every term of
 * the query matches its name, either by the market language's stemming (full-text search,
 * each word as a prefix) or by trigram word similarity (typos). Both halves are written so
 * that the migration's indexes answer them:
 *
 *   to_tsvector('<language>'::regconfig, name)   one GIN index per language: the language
 *                                                 must be a constant in the SQL text, never a
 *                                                 parameter or a column
 *   lower(name) gin_trgm_ops                      the `lower(name) %> term` operator
 *
 * Relevance comes in tiers (relevanceTiers), each ordered by popularity, so the first page
 * of a broad query ("samsung") is its most popular exact matches, found without ranking the
 * hundred thousand others (searchProductIds).
 *
 * User input never reaches the SQL text: terms are reduced to their words (letters, marks
 * and digits), passed as parameters, and quoted inside the tsquery, so no input can make
 * to_tsquery fail.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from '../types.ts';
import {
  firstRowsPerCategory,
  LISTING_ORDERS,
  listingConditions,
  SORT_COLUMNS,
  type ListingFilter,
  type ListingOrder,
  type Page,
} from './product-listing.ts';

/** The text-search configurations the migration indexes (one per market language). */
export const TEXT_SEARCH_CONFIGS = [
  'swedish',
  'norwegian',
  'danish',
  'finnish',
  'french',
  'english',
] as const;
export type TextSearchConfig = (typeof TEXT_SEARCH_CONFIGS)[number];

export function isTextSearchConfig(value: string): value is TextSearchConfig {
  return (TEXT_SEARCH_CONFIGS as readonly string[]).includes(value);
}

/** One term of a query, reduced to what the database compares. */
export interface SearchTerm {
  /** The term's words, lowercased: runs of letters, combining marks and digits. */
  words: string[];
}

/** A search in one market's language: every term must match. */
export interface TextSearch {
  config: TextSearchConfig;
  /** Empty when the query had no letters or digits at all: nothing matches. */
  terms: SearchTerm[];
}

/** Bounds on a query (the suggestions endpoint allows eight terms, spec 4.3). */
export const MAX_QUERY_TERMS = 8;
export const MAX_QUERY_LENGTH = 200;

/** The query's terms as typed: separated by white space. */
export function splitQuery(query: string): string[] {
  return query.trim().split(/\s+/u).filter(Boolean);
}

const WORD = /[\p{L}\p{M}\p{N}]+/gu;

/**
 * A term's words. Everything else (tsquery operators, quotes, backslashes, LIKE wildcards)
 * separates words, as the full-text parser and pg_trgm would treat it anyway: "usb-c" is
 * "usb" and "c". Null for a term without words.
 */
export function searchTermOf(term: string): SearchTerm | null {
  const words = term.normalize('NFC').toLowerCase().match(WORD);
  return words ? { words } : null;
}

/** The language as a SQL constant, so the planner sees the indexed expression exactly. */
function configLiteral(config: TextSearchConfig): RawBuilder<unknown> {
  if (!isTextSearchConfig(config)) throw new Error(`unknown text-search config ${config}`);
  return sql`${sql.lit(config)}::regconfig`;
}

/**
 * How a statement reaches a product's name: the indexed expressions over `p.name`, or, for
 * the front rows, their summary row's stored vector and the name looked up where needed.
 */
export interface NameForms {
  /** to_tsvector in the market's language. */
  vector: RawBuilder<unknown>;
  /** lower(name), what the trigram index holds. */
  lowered: RawBuilder<unknown>;
}

/** The expressions the indexes are built on, over products aliased `p`. */
export function indexedNameForms(search: TextSearch): NameForms {
  return {
    vector: sql`to_tsvector(${configLiteral(search.config)}, p.name)`,
    lowered: sql`lower(p.name)`,
  };
}

/**
 * The tsquery text of a term: each word quoted (so nothing in it is tsquery syntax), all
 * required, each either a whole word or (`:*`) a word's beginning.
 */
function tsqueryText(term: SearchTerm, asPrefix: boolean): string {
  return term.words.map((word) => `'${word}'${asPrefix ? ':*' : ''}`).join(' & ');
}

/** The text pg_trgm compares: the words alone (it ignores everything else too). */
function trigramText(term: SearchTerm): string {
  return term.words.join(' ');
}

/** The term, stemmed in the market's language, is a word of the name (or starts one). */
function stemMatches(
  search: TextSearch,
  name: NameForms,
  term: SearchTerm,
  asPrefix: boolean,
): RawBuilder<boolean> {
  const language = configLiteral(search.config);
  return sql<boolean>`${name.vector} @@ to_tsquery(${language}, ${tsqueryText(term, asPrefix)})`;
}

/**
 * The term is similar to a part of the name (pg_trgm word similarity ≥ its threshold, 0.6 by
 * default): word prefixes, and one wrong, missing or extra letter in a word of about seven
 * letters or more (in shorter words only near its end: "galaxi"). Written
 * `lower(name) %> term`, the index's own form: the commuted `term <% lower(name)` would make
 * Postgres evaluate the condition twice per row (index recheck, then again as a filter).
 */
function trigramMatches(name: NameForms, term: SearchTerm): RawBuilder<boolean> {
  return sql<boolean>`${name.lowered} %> ${trigramText(term)}`;
}

function everyTerm(
  search: TextSearch,
  termMatches: (term: SearchTerm) => RawBuilder<boolean>,
): RawBuilder<boolean> {
  if (search.terms.length === 0) return sql<boolean>`false`;
  return sql<boolean>`(${sql.join(search.terms.map(termMatches), sql` and `)})`;
}

const everyTermIsAWord = (search: TextSearch, name: NameForms) =>
  everyTerm(search, (term) => stemMatches(search, name, term, false));

const everyTermStartsAWord = (search: TextSearch, name: NameForms) =>
  everyTerm(search, (term) => stemMatches(search, name, term, true));

/**
 * The name matches every term, by stemming as a word prefix or by similarity. Each term is
 * one OR of two index conditions, so the planner ANDs the terms' bitmap index scans.
 */
export function nameMatchesAllTerms(search: TextSearch, name: NameForms): RawBuilder<boolean> {
  return everyTerm(
    search,
    (term) =>
      sql<boolean>`(${stemMatches(search, name, term, true)} or ${trigramMatches(name, term)})`,
  );
}

/**
 * RELEVANCE as tiers, best first (each then ordered by popularity):
 *   1. every term is a word of the name, after stemming ("väskor" finds "Väska"),
 *   2. every term starts a word of the name ("sams" finds "Samsung"),
 *   3. some term is only similar to a word of the name (typos: "samsumg").
 * Together they are exactly nameMatchesAllTerms, and each is an index condition.
 */
export function relevanceTiers(search: TextSearch, name: NameForms): RawBuilder<boolean>[] {
  const words = everyTermIsAWord(search, name);
  const prefixes = everyTermStartsAWord(search, name);
  return [
    words,
    sql<boolean>`(${prefixes} and not ${words})`,
    sql<boolean>`(${nameMatchesAllTerms(search, name)} and not ${prefixes})`,
  ];
}

/** The listing orders, and RELEVANCE (relevanceTiers, then popularity). */
export type SearchOrder = ListingOrder | 'RELEVANCE';

export interface SearchFilter extends ListingFilter {
  text: TextSearch;
}

/** The tiers an order ranks by: RELEVANCE's, or a single one holding every match. */
function tiersOf(search: TextSearch, order: SearchOrder, name: NameForms): RawBuilder<boolean>[] {
  return order === 'RELEVANCE' ? relevanceTiers(search, name) : [nameMatchesAllTerms(search, name)];
}

/** The listing order within each tier: RELEVANCE's tiers are in popularity order. */
function orderWithinTier(order: SearchOrder): ListingOrder {
  return order === 'RELEVANCE' ? 'POPULARITY' : order;
}

/**
 * How many listed products a search looks at first, in the list's order: a broad query
 * finds its page among them. Matching 2,000 stored name vectors takes about 10 ms.
 */
export const FRONT_ROWS = 2_000;

interface Walk {
  /** At most frontRows listed products, in the order. */
  rows: RawBuilder<unknown>;
  /** The filters the walk did not apply, to apply to its rows; undefined when none. */
  leftToFilter: ListingFilter | undefined;
}

/**
 * The walk along the order that a search's front rows come from, bounded: it never reads
 * more than frontRows index entries per category. A category's walk merges the first
 * frontRows of each category of its subtree (firstRowsPerCategory, on the per-category index
 * of the order); any other filter is applied to the walked rows afterwards (a selective
 * filter applied during the walk would make it read the whole market, or category).
 */
function walkOf(filter: ListingFilter, order: ListingOrder, frontRows: number): Walk {
  const keys = LISTING_ORDERS[order];
  // The columns the order sorts on, and the name's stored text-search vector.
  const columns = sql`${SORT_COLUMNS[order]}, s.name_vector`;
  const hasPriceTrend = filter.priceTrend?.gte != null || filter.priceTrend?.lte != null;
  if (filter.categoryId !== undefined) {
    const { market, categoryId } = filter;
    return {
      rows: sql`
        select s.* from (${firstRowsPerCategory([categoryId], { market }, order, frontRows, columns)}) as s
        order by ${keys} limit ${frontRows}`,
      leftToFilter: hasPriceTrend ? { ...filter, categoryId: undefined } : undefined,
    };
  }
  return {
    rows: sql`
      select ${columns} from product_market_summaries s
       where s.market = ${filter.market}
       order by ${keys} limit ${frontRows}`,
    leftToFilter: hasPriceTrend ? filter : undefined,
  };
}

export interface FrontMatches {
  /** How many rows the walk read: fewer than asked means every listed product. */
  frontSize: number;
  /** Per tier, its matches among the front rows, in order, at most `perTier` of them. */
  tiers: number[][];
}

/**
 * The rows of `front` (aliased `f`) in each tier, as (product_id, ordinal, tier). For
 * RELEVANCE, the names every term starts a word of are found first and split into tiers 0 and
 * 1; tier 2 (typos) costs a trigram comparison per remaining row, the most expensive part of
 * the statement (about 13 ms per term over 2,000 names), so it is looked for only when tiers
 * 0 and 1 have fewer than `perTier` matches in the front together. Otherwise searchProductIds
 * never reaches tier 2: tiers 0 and 1 fill the page, from the front or, beyond it, from the
 * text indexes.
 */
function frontTiers(search: TextSearch, order: SearchOrder, perTier: number): RawBuilder<unknown> {
  // The name itself is read only for the rows a trigram comparison reaches.
  const name: NameForms = {
    vector: sql`f.name_vector`,
    lowered: sql`(select lower(p.name) from products p where p.id = f.product_id)`,
  };
  if (order !== 'RELEVANCE') {
    return sql`
      tiers as (
        select f.product_id, f.ordinal, 0 as tier from front f
         where ${nameMatchesAllTerms(search, name)})`;
  }
  const [, , typos] = relevanceTiers(search, name);
  return sql`
    prefixed as materialized (
      select f.product_id, f.ordinal,
             case when ${everyTermIsAWord(search, name)} then 0 else 1 end as tier
        from front f
       where ${everyTermStartsAWord(search, name)}),
    tiers as (
      select * from prefixed
      union all
      select f.product_id, f.ordinal, 2 from front f
       where (select count(*) from prefixed) < ${perTier} and ${typos})`;
}

/**
 * The matches among the front rows, tier by tier: the first `frontRows` products listed in
 * the market in the order, those of them that pass the filters. Their names' text-search
 * vectors are stored with them (the summaries' name_vector), the lowered name is read only
 * where a trigram comparison needs it, and no text index is involved, so the cost is about the
 * same whatever the query and the filters.
 */
export async function findFrontMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  { frontRows, perTier }: { frontRows: number; perTier: number },
): Promise<FrontMatches> {
  const walk = walkOf(filter, orderWithinTier(order), frontRows);
  const { rows } = await sql<{ front_size: number; product_id: number | null; tier: number }>`
    with walk as materialized (
      select s.product_id, s.name_vector,
             row_number() over (order by ${LISTING_ORDERS[orderWithinTier(order)]}) as ordinal
        from (${walk.rows}) as s),
    front as materialized (
      select w.product_id, w.ordinal, w.name_vector
        from walk w
        ${
          walk.leftToFilter === undefined
            ? sql``
            : sql`join product_market_summaries s
                    on s.product_id = w.product_id and ${listingConditions(walk.leftToFilter)}`
        }),
    ${frontTiers(filter.text, order, perTier)},
    tiered as (
      select t.product_id, t.tier,
             row_number() over (partition by t.tier order by t.ordinal) as position
        from tiers t)
    select walked.size::int as front_size, t.product_id, t.tier
      from (select count(*) as size from walk) as walked
      left join tiered t on t.position <= ${perTier}
     order by t.tier, t.position`.execute(db);
  const byTier = tiersOf(filter.text, order, indexedNameForms(filter.text)).map((): number[] => []);
  for (const row of rows) if (row.product_id !== null) byTier[row.tier]!.push(row.product_id);
  return { frontSize: rows[0]?.front_size ?? 0, tiers: byTier };
}

/**
 * The first `limit` matches of one tier, in order, through the text indexes. All the tier's
 * matches are materialized first, deliberately: otherwise Postgres may walk the order's
 * index and test every name on the way, which takes seconds when the tier is rare.
 */
export async function listTierMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  tier: number,
  limit: number,
): Promise<number[]> {
  const matches = tiersOf(filter.text, order, indexedNameForms(filter.text))[tier];
  if (matches === undefined) throw new Error(`order ${order} has no tier ${tier}`);
  const { rows } = await sql<{ product_id: number }>`
    with matches as materialized (
      select s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage
        from product_market_summaries s join products p on p.id = s.product_id
       where ${listingConditions(filter)} and ${matches})
    select s.product_id from matches s
     order by ${LISTING_ORDERS[orderWithinTier(order)]}
     limit ${limit}`.execute(db);
  return rows.map((row) => row.product_id);
}

export interface SearchOptions {
  /** FRONT_ROWS by default; tests shrink it to take the index path on small data. */
  frontRows?: number;
}

/**
 * One page of the listed products matching a text search. Its cost must grow neither with
 * the number of matches ("samsung" matches a tenth of the catalogue) nor with the catalogue
 * (a rare word), and Postgres's own choice between the two plans, made on estimates, can be
 * seconds off either way. So: one statement finds the matches among the front rows; a
 * tier's front matches are its head (every other match of the tier comes after the front
 * rows in the order), so when they fill the tier's share of the page they are used, and
 * only a tier they cannot fill is asked of the text indexes (one more statement each).
 */
export async function searchProductIds(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  page: Page,
  { frontRows = FRONT_ROWS }: SearchOptions = {},
): Promise<number[]> {
  if (filter.text.terms.length === 0) return [];
  const end = page.offset + page.limit;
  const front = await findFrontMatches(db, filter, order, { frontRows, perTier: end });
  const frontIsEverything = front.frontSize < frontRows;
  const ranked: number[] = [];
  for (const [tier, inFront] of front.tiers.entries()) {
    const wanted = end - ranked.length;
    if (wanted <= 0) break;
    ranked.push(
      ...(frontIsEverything || inFront.length >= wanted
        ? inFront.slice(0, wanted)
        : await listTierMatches(db, filter, order, tier, wanted)),
    );
  }
  return ranked.slice(page.offset, end);
}

/** How many listed products match the search (every match: costs as much as there are). */
export async function countSearchMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
): Promise<number> {
  if (filter.text.terms.length === 0) return 0;
  const { rows } = await sql<{ total: number }>`
    select count(*)::int as total
      from product_market_summaries s join products p on p.id = s.product_id
     where ${listingConditions(filter)}
       and ${nameMatchesAllTerms(filter.text, indexedNameForms(filter.text))}`.execute(db);
  return rows[0]?.total ?? 0;
}
