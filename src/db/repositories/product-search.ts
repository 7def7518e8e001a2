/**
 * Text search (docs/api.md, "Text search"): a product matches when every
 * term of the query matches its summary's search vector (migration 0005: the product's name,
 * brand and category names in the market's language, stemmed), as a word, a synonym, a
 * word's beginning, or within its allowed typos of a word of the vocabulary. The query is
 * turned into one tsquery per relevance tier (src/search/relevance-queries.ts), each
 * answered by the summaries' one GIN index on search_vector.
 *
 * Relevance comes in tiers, each ordered by popularity, so the first page of a broad query
 * ("samsung") is its most popular best matches, found without ranking the hundred thousand
 * others (searchProductIds).
 *
 * User input never reaches the SQL text: terms are reduced to their words (letters, marks
 * and digits), quoted inside the tsquery texts, and passed as parameters, so no input can
 * make to_tsquery fail.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { RelevanceTier } from '../../search/relevance-queries.ts';
import type { TextSearch } from '../../search/text-search.ts';
import type { Database } from '../types.ts';
import {
  firstRowsPerCategory,
  LISTING_ORDERS,
  listingConditions,
  priceTrendConditions,
  SORT_COLUMNS,
  type ListingFilter,
  type ListingOrder,
  type Page,
} from './product-listing.ts';
import {
  configLiteral,
  relevanceTierOf,
  relevanceTiers,
  vectorMatches,
  vectorMatchesSearch,
} from './text-match.ts';

/** The listing orders, and RELEVANCE (relevanceTiers, then popularity). */
export type SearchOrder = ListingOrder | 'RELEVANCE';

export interface SearchFilter extends ListingFilter {
  text: TextSearch;
}

/** The tiers an order ranks by: RELEVANCE's, or a single one holding every match. */
function tiersOf(
  search: TextSearch,
  order: SearchOrder,
  vector: RawBuilder<unknown>,
): RawBuilder<boolean>[] {
  return order === 'RELEVANCE'
    ? relevanceTiers(search, vector)
    : [vectorMatchesSearch(search, vector)];
}

/** The listing order within each tier: RELEVANCE's tiers are in popularity order. */
function orderWithinTier(order: SearchOrder): ListingOrder {
  return order === 'RELEVANCE' ? 'POPULARITY' : order;
}

/**
 * How many listed products a search looks at first, in the list's order: a broad query
 * finds its page among them (one matching a listed product in 170 fills a page of six).
 * Reading and matching 1,000 stored search vectors takes about 2 ms at any scale; each
 * thousand more adds as much to every search, while a query too rare for them goes to the
 * text indexes either way (docs/benchmarks.md, "W3").
 */
export const FRONT_ROWS = 1_000;

interface Walk {
  /** At most frontRows listed products `s`, in the order, with their search vectors. */
  rows: RawBuilder<unknown>;
  /** The conditions on its rows `s` that the walk did not apply. */
  leftToFilter: RawBuilder<unknown>[];
}

/**
 * The walk along the order that a search's front rows come from, bounded: it never reads
 * more than frontRows index entries per category. A category's walk merges the first
 * frontRows of each category of its subtree (firstRowsPerCategory, on the per-category index
 * of the order); a price-trend filter is applied to the walked rows afterwards (a selective
 * filter applied during the walk would make it read the whole market, or category).
 */
function walkOf(filter: ListingFilter, order: ListingOrder, frontRows: number): Walk {
  const keys = LISTING_ORDERS[order];
  const leftToFilter = priceTrendConditions(filter.priceTrend);
  // The columns the order sorts on, those the filters left to apply read, the search vector.
  const trendToo = leftToFilter.length > 0 && order !== 'PRICE_TREND';
  const columns = sql`${SORT_COLUMNS[order]}${trendToo ? sql`, s.price_trend_percentage` : sql``}, s.search_vector`;
  if (filter.categoryId !== undefined) {
    const { market, categoryId } = filter;
    return {
      rows: sql`
        select s.* from (${firstRowsPerCategory([categoryId], { market }, order, frontRows, columns)}) as s
        order by ${keys} limit ${frontRows}`,
      leftToFilter,
    };
  }
  return {
    rows: sql`
      select ${columns} from product_market_summaries s
       where s.market = ${filter.market}
       order by ${keys} limit ${frontRows}`,
    leftToFilter,
  };
}

export interface FrontMatches {
  /** How many rows the walk read: fewer than asked means every listed product. */
  frontSize: number;
  /** Per tier, its matches among the front rows, in order, at most `perTier` of them. */
  tiers: number[][];
  /** Per tier, whether its language's lexicon lets it match at all (lexiconAdmits). */
  possible: boolean[];
}

/** The tiers an order ranks by, as defined (tiersOf's). */
function tierDefinitionsOf(search: TextSearch, order: SearchOrder): RelevanceTier[] {
  return order === 'RELEVANCE' ? search.tiers : search.tiers.slice(-1);
}

/**
 * Whether some product could match the tier: every one of its terms is, in one of its
 * alternatives, a lexeme of the part of the language's vectors the tier reads (the first
 * tier names and brands, the others categories' names too). One that is not can match
 * nothing (a mistyped word is no lexeme, nor any lexeme's beginning), so the tier needs no
 * statement of its own. A language without a lexicon excludes nothing.
 */
export function lexiconAdmits(search: TextSearch, tier: RelevanceTier): RawBuilder<boolean> {
  const part = tier.weights === '{a,b}' ? sql`l.names` : sql`l.names_and_categories`;
  return sql<boolean>`coalesce((select ${part} @@ to_tsquery(${configLiteral(search.config)}, ${tier.query})
                                  from search_lexicons l
                                 where l.search_config = ${sql.lit(search.config)}::regconfig), true)`;
}

/**
 * The matches among the front rows, tier by tier: the first `frontRows` products listed in
 * the market in the order, those of them that pass the filters. Their search vectors are
 * stored with them and no text index is involved, so the cost is about the same whatever
 * the query and the filters. Each row's tier is computed as it is read, so the rows kept for
 * ranking hold ids and order keys, not vectors (keeping the vectors cost more than matching
 * them). With them, whether each tier can match at all (lexiconAdmits).
 */
export async function findFrontMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  { frontRows, perTier }: { frontRows: number; perTier: number },
): Promise<FrontMatches> {
  const listingOrder = orderWithinTier(order);
  const walk = walkOf(filter, listingOrder, frontRows);
  const search = filter.text;
  const vector = sql`s.search_vector`;
  const tier = order === 'RELEVANCE' ? relevanceTierOf(search, vector) : sql`0`;
  const kept = sql.join([...walk.leftToFilter, vectorMatchesSearch(search, vector)], sql` and `);
  const definitions = tierDefinitionsOf(search, order);
  const { rows } = await sql<{
    front_size: number;
    possible: boolean[];
    product_id: number | null;
    tier: number;
  }>`
    with front as materialized (
      select ${SORT_COLUMNS[listingOrder]}, case when ${kept} then ${tier} end as tier
        from (${walk.rows}) as s),
    tiered as (
      select s.product_id, s.tier,
             row_number() over (partition by s.tier order by ${LISTING_ORDERS[listingOrder]}) as position
        from front s
       where s.tier is not null)
    select walked.size::int as front_size, walked.possible, t.product_id, t.tier
      from (select count(*) as size,
                   array[${sql.join(definitions.map((definition) => lexiconAdmits(search, definition)))}]
                     as possible
              from front) as walked
      left join tiered t on t.position <= ${perTier}
     order by t.tier, t.position`.execute(db);
  const byTier = definitions.map((): number[] => []);
  for (const row of rows) if (row.product_id !== null) byTier[row.tier]!.push(row.product_id);
  return {
    frontSize: rows[0]?.front_size ?? 0,
    tiers: byTier,
    possible: rows[0]?.possible ?? definitions.map(() => true),
  };
}

/**
 * How many products of a category its tier matches are first looked for among, in the
 * order: reading their stored vectors costs a few milliseconds.
 */
export const CATEGORY_HEAD_ROWS = 500;

/**
 * The first `limit` matches of a tier in the category `t.category_id`, in order. A category
 * word matches every product of its category, so its matches are usually near the head of
 * the category's index in the order: they are looked for among its first CATEGORY_HEAD_ROWS,
 * and only a category whose head holds too few is searched whole. Left to itself, Postgres
 * estimates the text condition far too selective, reads the whole category (70,000 products
 * at the large scale, 0.3 s) and sorts it. The head keeps whether each row matches, not its
 * vector (copying 500 vectors costs more than matching them). The whole category's matches
 * include the head's: `union` lists each once.
 */
function categoryTierMatches(
  filter: SearchFilter,
  keys: RawBuilder<unknown>,
  columns: RawBuilder<unknown>,
  matches: RawBuilder<boolean>,
  { limit, headRows }: { limit: number; headRows: number },
): RawBuilder<unknown> {
  const inCategory = sql`s.category_id = t.category_id and ${listingConditions(filter)}`;
  return sql`
    with head as materialized (
      select ${columns}, ${matches} as matches from product_market_summaries s
       where ${inCategory}
       order by ${keys} limit ${headRows}),
    head_matches as materialized (
      select ${columns} from head s where s.matches order by ${keys} limit ${limit})
    select * from head_matches
    union
    (select ${columns} from product_market_summaries s
      where (select count(*) from head) = ${headRows}
        and (select count(*) from head_matches) < ${limit}
        and ${inCategory} and ${matches}
      order by ${keys} limit ${limit})`;
}

/**
 * The filter on rows a text index finds. Without a category, the market is compared on each
 * row: `is true` keeps that comparison from being an index condition, which Postgres,
 * misjudging how many rows a text query finds, would answer by ANDing the market's 860,000
 * entries of an order index into the bitmap (116 ms at the large scale) to spare itself a
 * few thousand rows of other markets (about 3 ms). A category's entries of the (market,
 * category_id, …) indexes are few enough to AND, and may be the better way in.
 */
function textMatchConditions(filter: ListingFilter): RawBuilder<unknown> {
  if (filter.categoryId !== undefined) return listingConditions(filter);
  return sql.join(
    [sql`(s.market = ${filter.market}) is true`, ...priceTrendConditions(filter.priceTrend)],
    sql` and `,
  );
}

/**
 * The first `limit` matches of one tier, in order, through the indexes. A match has every
 * term in its name or brand, or it is in a leaf category whose names (its own and its
 * ancestors') hold some term. So the tier's matches are looked for in two places, each
 * bounded: the name and brand part's GIN index (names rarely hold a category word: "tv"),
 * and each such category's first `limit` matches in the order (categoryTierMatches). The
 * name matches are materialized, deliberately: otherwise Postgres may walk the order's index
 * and test every vector on the way, which takes seconds when the tier is rare.
 */
export async function listTierMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  tier: number,
  limit: number,
  categoryHeadRows = CATEGORY_HEAD_ROWS,
): Promise<number[]> {
  const search = filter.text;
  const matches = tiersOf(search, order, sql`s.search_vector`)[tier];
  const definitions = tierDefinitionsOf(search, order);
  const definition = definitions[tier];
  if (matches === undefined || definition === undefined) {
    throw new Error(`order ${order} has no tier ${tier}`);
  }
  const keys = LISTING_ORDERS[orderWithinTier(order)];
  const columns = sql`s.product_id, s.popularity, s.lowest_price, s.price_trend_percentage`;
  const byName = vectorMatches(search, sql`s.search_vector`, {
    ...definition,
    weights: '{a,b}',
  });
  // Matching the tier by name implies matching its query; only a later tier of RELEVANCE
  // must also miss the tier before it. A tier with its predecessor's query (tiers 1 and 2
  // read more of the vector with the same words) has no name matches of its own: they all
  // matched the predecessor, whose part of the vector holds the names.
  const previous = tier > 0 ? definitions[tier - 1] : undefined;
  const nameCondition = previous === undefined ? byName : sql`${byName} and ${matches}`;
  const byNameToo = previous?.query !== definition.query;
  // Only the first `limit` name matches take part in the union: a common word's thousand
  // would otherwise all be compared for duplicates.
  const parts = byNameToo
    ? [sql`(select * from name_matches s order by ${keys} limit ${limit})`]
    : [];
  // A tier of names and brands only has no matches by category: not even planned.
  if (definition.weights !== '{a,b}') {
    // The names the tier reads: a leaf's own for name, brand and category ({a,b,c}).
    const categoryNames = definition.weights === null ? sql`t.all_names` : sql`t.leaf_names`;
    parts.push(sql`
      select w.* from category_search_vectors t
       cross join lateral (${categoryTierMatches(filter, keys, columns, matches, {
         limit,
         headRows: categoryHeadRows,
       })}) as w
       where t.search_config = ${sql.lit(search.config)}::regconfig
         and ${categoryNames} @@ to_tsquery(${configLiteral(search.config)}, ${definition.anyTerm})`);
  }
  const { rows } = await sql<{ product_id: number }>`
    with ${
      byNameToo
        ? sql`name_matches as materialized (
                select ${columns} from product_market_summaries s
                 where ${textMatchConditions(filter)} and ${nameCondition}),`
        : sql``
    }
    matches as (${sql.join(parts, sql` union `)})
    select s.product_id from matches s
     order by ${keys}
     limit ${limit}`.execute(db);
  return rows.map((row) => row.product_id);
}

export interface SearchOptions {
  /** FRONT_ROWS by default; tests shrink it to take the index path on small data. */
  frontRows?: number;
  /** CATEGORY_HEAD_ROWS by default; tests shrink it to search whole categories on small data. */
  categoryHeadRows?: number;
}

/**
 * One page of the listed products matching a text search. Its cost must grow neither with
 * the number of matches ("samsung" matches a tenth of the catalogue) nor with the catalogue
 * (a rare word), and Postgres's own choice between the two plans, made on estimates, can be
 * seconds off either way. So: one statement finds the matches among the front rows; a
 * tier's front matches are its head (every other match of the tier comes after the front
 * rows in the order), so when they fill the tier's share of the page they are used, and
 * only a tier they cannot fill, and that its lexicon admits, is asked of the text indexes
 * (one more statement each).
 */
export async function searchProductIds(
  db: Kysely<Database>,
  filter: SearchFilter,
  order: SearchOrder,
  page: Page,
  { frontRows = FRONT_ROWS, categoryHeadRows = CATEGORY_HEAD_ROWS }: SearchOptions = {},
): Promise<number[]> {
  if (filter.text.tiers.length === 0) return [];
  const end = page.offset + page.limit;
  const front = await findFrontMatches(db, filter, order, { frontRows, perTier: end });
  const frontIsEverything = front.frontSize < frontRows;
  const ranked: number[] = [];
  for (const [tier, inFront] of front.tiers.entries()) {
    const wanted = end - ranked.length;
    if (wanted <= 0) break;
    ranked.push(
      ...(frontIsEverything || inFront.length >= wanted || !front.possible[tier]
        ? inFront.slice(0, wanted)
        : await listTierMatches(db, filter, order, tier, wanted, categoryHeadRows)),
    );
  }
  return ranked.slice(page.offset, end);
}

/**
 * The most matches a search counts: a broad query ("samsung") matches a tenth of a large
 * catalogue, and counting them all would cost more than finding the page. A count that
 * reaches the cap is reported as the cap ("this many or more"), as totalCount says.
 */
export const SEARCH_COUNT_CAP = 1_000;

/** How many listed products match the search, counted up to SEARCH_COUNT_CAP. */
export async function countSearchMatches(
  db: Kysely<Database>,
  filter: SearchFilter,
): Promise<number> {
  const whole = filter.text.tiers.at(-1);
  if (whole === undefined) return 0;
  // The matches are planned as if all of them were read (a CTE), and read only until the cap
  // (a CTE's rows are produced as they are asked for). Planned under the cap, Postgres expects
  // to stop early and scans the table: every row of it when fewer than the cap match (0.3 s
  // for "sony hörlurar" at the large scale). So a rare search's matches come from the text
  // index, a broad one's from a scan that meets the cap soon. The lexicon's verdict is a
  // one-time filter: a search it rules out reads no product.
  const { rows } = await sql<{ total: number }>`
    with matches as materialized (
      select from product_market_summaries s
       where ${lexiconAdmits(filter.text, whole)}
         and ${textMatchConditions(filter)}
         and ${vectorMatchesSearch(filter.text, sql`s.search_vector`)})
    select count(*)::int as total
      from (select from matches limit ${SEARCH_COUNT_CAP}) as counted`.execute(db);
  return rows[0]?.total ?? 0;
}
