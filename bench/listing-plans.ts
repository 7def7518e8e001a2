/**
 * `node --import tsx bench/listing-plans.ts [--scale bench|large]`: the plans and times of the
 * category listing's statements (docs/benchmarks.md, "Category listings on their index").
 *
 * Calls the repository as the API does (product-listing.ts), records the statement it runs,
 * and runs it again under EXPLAIN (ANALYZE, BUFFERS) on the scale's seeded catalogue, on a
 * connection set up as the app's: for every order, leaves from the top, middle and bottom of
 * the popularity range, a group, a root, ten leaves in one batch and the root with a
 * price-trend bound, then the root's count, in markets se and nz. Prints a markdown table: the
 * median execution time of five runs, whether the plan was JIT-compiled, the shared
 * buffers touched, and the scans of product_market_summaries, each with its index, how often
 * it ran, the rows its filter threw away and its heap fetches. Then the wall-clock time of a
 * few text searches within a category (product-search.ts), median of five.
 */
import { parseArgs } from 'node:util';
import type { LogEvent } from 'kysely';
import { openDatabase } from '../src/db/client.ts';
import {
  countProducts,
  listProductIds,
  listProductIdsInCategories,
  LISTING_ORDERS,
  type ListingFilter,
  type ListingOrder,
} from '../src/db/repositories/product-listing.ts';
import { searchProductIds, type SearchOrder } from '../src/db/repositories/product-search.ts';
import {
  searchTermOf,
  splitQuery,
  textSearchOf,
  type SearchTerm,
  type TextSearch,
} from '../src/search/text-search.ts';
import { readTypoVocabulary } from '../src/search/vocabularies.ts';
import type { MarketCode } from '../src/markets.ts';
import { catalogueUrl } from './catalogue.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'bench' },
    'server-url': { type: 'string' },
  },
});
if (values.scale !== 'bench' && values.scale !== 'large') throw new Error('--scale bench|large');
const serverUrl =
  values['server-url'] ??
  process.env.BENCH_SERVER_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';

/** Categories by slug: leaves of high, middle and low popularity, a group and a root. */
const CATEGORIES = [
  'mobile-phones',
  'vacuum-cleaners',
  'camera-lenses',
  'kitchen-appliances',
  'home-and-garden',
] as const;
const MARKETS: MarketCode[] = ['se', 'nz'];
const PAGE = { offset: 0, limit: 20 };
const RUNS = 5;
const TREND = { gte: 5 };
/** Text queries within a category: a broad one in a root, narrower ones in leaves. */
const SEARCHES = [
  ['samsung', 'home-and-garden'],
  ['pro', 'mobile-phones'],
  ['bosch', 'vacuum-cleaners'],
] as const;
/** Market se searches in Swedish (markets.search_config). */
const SWEDISH = async (terms: SearchTerm[]): Promise<TextSearch> =>
  textSearchOf('swedish', terms, await readTypoVocabulary(database.db, 'swedish'));

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  'Heap Fetches'?: number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}
interface Explained {
  Plan: PlanNode;
  'Execution Time': number;
  /** Present when the plan was compiled (its timing is only reported with per-node timing). */
  JIT?: unknown;
}

/** The scans of a plan, one per index or table read: "index ×loops −rows filtered". */
function scansOf(node: PlanNode): string[] {
  const below = (node.Plans ?? []).flatMap(scansOf);
  const target = node['Index Name'] ?? node['Relation Name'];
  if (target === undefined || target === 'categories') return below;
  const filtered = node['Rows Removed by Filter'] ? ` −${node['Rows Removed by Filter']}` : '';
  const fetched = node['Heap Fetches'] ? ` (${node['Heap Fetches']} heap fetches)` : '';
  const kind = node['Node Type'].replace(/ Scan$/, '');
  return [`${kind} ${target} ×${node['Actual Loops']}${filtered}${fetched}`, ...below];
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;

const recorded: LogEvent[] = [];
const database = await openDatabase({
  url: catalogueUrl(serverUrl, values.scale),
  poolSize: 1,
  onQuery: (event) => recorded.push(event),
});

/** The one statement `work` runs, again under EXPLAIN ANALYZE, as a row of the table. */
async function explainRow(label: string[], work: () => Promise<unknown>): Promise<string> {
  recorded.length = 0;
  await work();
  if (recorded.length !== 1)
    throw new Error(`${label.join(' ')} ran ${recorded.length} statements`);
  const { sql, parameters } = recorded[0]!.query;
  const runs: Explained[] = [];
  for (let run = 0; run < RUNS; run++) {
    // Per-node timing off: its clock reads would inflate a plan that visits many rows.
    const { rows } = await database.pool.query<{ 'QUERY PLAN': Explained[] }>(
      `explain (analyze, buffers, timing off, format json) ${sql}`,
      [...parameters],
    );
    runs.push(rows[0]!['QUERY PLAN'][0]!);
  }
  const { Plan: plan } = runs[0]!;
  const cells = [
    median(runs.map((run) => run['Execution Time'])).toFixed(2),
    runs[0]!.JIT ? 'yes' : 'no',
    plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
    [...new Set(scansOf(plan))].join(', '),
  ];
  return `| ${[...label, ...cells].join(' | ')} |`;
}

try {
  const { rows: categories } = await database.pool.query<{ id: number; slug: string }>(
    `select id, slug from categories where slug = any($1) or is_leaf order by id`,
    [CATEGORIES],
  );
  const idOf = (slug: string) => categories.find((c) => c.slug === slug)!.id;
  const root = idOf('home-and-garden');
  const tenLeaves = categories.filter((c) => !CATEGORIES.includes(c.slug as never)).slice(0, 10);
  const cases: Record<string, (filter: ListingFilter, order: ListingOrder) => Promise<unknown>> = {
    ...Object.fromEntries(
      CATEGORIES.map((slug) => [
        slug,
        (filter: ListingFilter, order: ListingOrder) =>
          listProductIds(database.db, { ...filter, categoryId: idOf(slug) }, order, PAGE),
      ]),
    ),
    [`ten leaves (${tenLeaves.map((c) => c.id).join(',')})`]: (filter, order) =>
      listProductIdsInCategories(
        database.db,
        tenLeaves.map((c) => c.id),
        filter,
        order,
        PAGE,
      ),
    'home-and-garden, trend ≥ 5 %': (filter, order) =>
      listProductIds(database.db, { ...filter, categoryId: root, priceTrend: TREND }, order, PAGE),
  };
  console.log(`catalogue_${values.scale}, first page of ${PAGE.limit}, median of ${RUNS} runs\n`);
  console.log('| market | order | category | ms | JIT | buffers | scans |');
  console.log('|---|---|---|---:|---:|---:|---|');
  for (const market of MARKETS) {
    for (const order of Object.keys(LISTING_ORDERS) as ListingOrder[]) {
      for (const [name, list] of Object.entries(cases)) {
        console.log(await explainRow([market, order, name], () => list({ market }, order)));
      }
    }
    for (const priceTrend of [undefined, TREND]) {
      const label = [market, 'count', `home-and-garden${priceTrend ? ', trend ≥ 5 %' : ''}`];
      const filter = { market, categoryId: root, priceTrend };
      console.log(await explainRow(label, () => countProducts(database.db, filter)));
    }
  }
  // A text query within a category: one statement, or up to three, timed as a whole.
  console.log(`\n| query (se) | category | order | ms |\n|---|---|---|---:|`);
  for (const [query, slug] of SEARCHES) {
    const terms = splitQuery(query).flatMap((term) => searchTermOf(term) ?? []);
    const filter = { market: 'se' as const, categoryId: idOf(slug), text: await SWEDISH(terms) };
    for (const order of ['RELEVANCE', ...Object.keys(LISTING_ORDERS)] as SearchOrder[]) {
      const times: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const start = performance.now();
        await searchProductIds(database.db, filter, order, PAGE);
        times.push(performance.now() - start);
      }
      console.log(`| ${query} | ${slug} | ${order} | ${median(times).toFixed(1)} |`);
    }
  }
} finally {
  await database.close();
}
