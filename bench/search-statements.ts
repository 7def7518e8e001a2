/**
 * `node --import tsx bench/search-statements.ts [--scale bench|large] [--runs N]`: where a
 * text search's time goes, statement by statement (docs/benchmarks.md, "W3").
 *
 * Runs W3's searches (bench/workloads.ts, market se) through the repository as the
 * suggestions route does (product-search.ts searchProductIds, the route's first page of five
 * plus the one more row it reads; `--front-rows` changes FRONT_ROWS, `--queries a,b` searches
 * those instead), on one connection set up as the app's, and prints per
 * search the median wall-clock time of `--runs` runs, how many statements it ran, and each
 * statement's median time as the driver saw it; then totalCount's statement
 * (countSearchMatches), which GraphQL runs when asked for it.
 */
import { parseArgs } from 'node:util';
import type { LogEvent } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../src/db/client.ts';
import {
  countSearchMatches,
  FRONT_ROWS,
  searchProductIds,
  type SearchFilter,
} from '../src/db/repositories/product-search.ts';
import { searchTermOf, splitQuery, textSearchOf } from '../src/search/text-search.ts';
import { readTypoVocabulary } from '../src/search/vocabularies.ts';
import { catalogueUrl } from './catalogue.ts';
import { MARKET, readWorkloadInputs } from './workloads.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'bench' },
    runs: { type: 'string', default: '9' },
    'front-rows': { type: 'string', default: String(FRONT_ROWS) },
    queries: { type: 'string' },
    'server-url': { type: 'string' },
  },
});
if (values.scale !== 'bench' && values.scale !== 'large') throw new Error('--scale bench|large');
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a positive integer');
const frontRows = Number(values['front-rows']);
const serverUrl =
  values['server-url'] ??
  process.env.BENCH_SERVER_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';
const url = catalogueUrl(serverUrl, values.scale);

/** The suggestions route's first page: five, and one more to learn whether a next exists. */
const PAGE = { offset: 0, limit: 6 };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const milliseconds = (value: number) => value.toFixed(1);

const client = new pg.Client({ connectionString: url });
await client.connect();
const searches = values.queries?.split(',') ?? (await readWorkloadInputs(client)).searches;
await client.end();

const recorded: LogEvent[] = [];
const database = await openDatabase({
  url,
  poolSize: 1,
  onQuery: (event) => recorded.push(event),
});

/** Median wall-clock time of `work`, and its statements' median times in the order run. */
async function timed(work: () => Promise<unknown>) {
  const walls: number[] = [];
  const statements: number[][] = [];
  for (let run = 0; run < runs; run++) {
    recorded.length = 0;
    const start = performance.now();
    await work();
    walls.push(performance.now() - start);
    recorded.forEach((event, index) => (statements[index] ??= []).push(event.queryDurationMillis));
  }
  return { wall: median(walls), statements: statements.map(median) };
}

try {
  const config = 'swedish';
  const vocabulary = await readTypoVocabulary(database.db, config);
  console.log(
    `catalogue_${values.scale}, market ${MARKET}, ${frontRows} front rows, median of ${runs} runs\n`,
  );
  console.log('| search | tiers | ms | statements | each, ms | totalCount ms |');
  console.log('|---|---:|---:|---:|---|---:|');
  const walls: number[] = [];
  for (const query of searches) {
    const terms = splitQuery(query).flatMap((term) => searchTermOf(term) ?? []);
    const filter: SearchFilter = { market: MARKET, text: textSearchOf(config, terms, vocabulary) };
    await searchProductIds(database.db, filter, 'RELEVANCE', PAGE, { frontRows }); // warm the cache
    const search = await timed(() =>
      searchProductIds(database.db, filter, 'RELEVANCE', PAGE, { frontRows }),
    );
    const count = await timed(() => countSearchMatches(database.db, filter));
    walls.push(search.wall);
    const each = search.statements.map(milliseconds).join(', ');
    console.log(
      `| ${query} | ${filter.text.tiers.length} | ${milliseconds(search.wall)} | ${search.statements.length} | ${each} | ${milliseconds(count.wall)} |`,
    );
  }
  const sorted = walls.sort((a, b) => a - b);
  console.log(
    `\nsearches' medians: p50 ${milliseconds(median(sorted))} ms, slowest ${milliseconds(sorted.at(-1)!)} ms`,
  );
} finally {
  await database.close();
}
