/**
 * `node --import tsx bench/compiled-plans.ts [--url postgres://…/catalogue_sample]`: the plans
 * of the compiled root fields' statements (docs/benchmarks.md, "Compiled root fields: their
 * plans") beside the statements the resolvers run for the same documents.
 *
 * Sends the benchmark's P1 (a leaf category's page), P3 (20 products by id) and P4 (one
 * product's name) documents, and a root category's page (its subtree's listing), to an app
 * on the catalogue, once with the compiled path and once without (COMPILED_SELECTIONS=false),
 * records the statements each runs and runs them again under EXPLAIN (ANALYZE, BUFFERS): the
 * median execution time of five runs, the shared buffers, and for the compiled statement its
 * plan. Per-node timing off, as in listing-plans.ts.
 */
import { parseArgs } from 'node:util';
import type { LogEvent } from 'kysely';
import { pino } from 'pino';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { P1_DOCUMENT, P3_DOCUMENT, P4_DOCUMENT } from './workloads.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/catalogue_sample' },
  },
});
const RUNS = 5;
const recorded: LogEvent[] = [];
const database = await openDatabase({
  url: values.url,
  poolSize: 1,
  onQuery: (event) => recorded.push(event),
});

interface Explained {
  Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };
  'Execution Time': number;
  'Planning Time': number;
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(RUNS / 2)]!;

async function explain(statement: LogEvent['query']) {
  const runs: Explained[] = [];
  for (let run = 0; run < RUNS; run++) {
    const { rows } = await database.pool.query<{ 'QUERY PLAN': Explained[] }>(
      `explain (analyze, buffers, timing off, format json) ${statement.sql}`,
      [...statement.parameters],
    );
    runs.push(rows[0]!['QUERY PLAN'][0]!);
  }
  const { rows } = await database.pool.query<{ 'QUERY PLAN': string }>(
    `explain (analyze, buffers, timing off, costs off) ${statement.sql}`,
    [...statement.parameters],
  );
  const plan = runs[0]!.Plan;
  return {
    ms: median(runs.map((run) => run['Execution Time'])),
    planning: median(runs.map((run) => run['Planning Time'])),
    buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'],
    text: rows.map((row) => row['QUERY PLAN']).join('\n'),
  };
}

/** The statements a document runs on an app, each explained. */
async function statementsOf(compiled: boolean, query: string, variables: object) {
  const app = createApp({
    config: loadConfig({
      RESPONSE_CACHE_TTL_SECONDS: '0',
      COMPILED_SELECTIONS: String(compiled),
    }),
    database,
    logger: pino({ level: 'silent' }),
  });
  try {
    const ask = () =>
      app.fetch(
        new Request('http://bench/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query, variables }),
        }),
      );
    await (await ask()).json(); // the market directory is read once per process
    recorded.length = 0;
    const body = (await (await ask()).json()) as { errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
    const statements = recorded.map((event) => event.query);
    const explained = [];
    for (const statement of statements) explained.push(await explain(statement));
    return explained;
  } finally {
    await app.dispose();
  }
}

try {
  const { rows: categories } = await database.pool.query<{ id: number; slug: string }>(
    `select id, slug from categories where slug = any($1)`,
    [['mobile-phones', 'home-and-garden']],
  );
  const idOf = (slug: string) => categories.find((c) => c.slug === slug)!.id;
  const { rows: products } = await database.pool.query<{ product_id: number }>(
    `select product_id from product_market_summaries where market = 'se'
      order by popularity desc, product_id offset 20 limit 20`,
  );
  const ids = products.map((row) => row.product_id);
  const cases: [string, string, object][] = [
    ['P1 leaf category page', P1_DOCUMENT, { market: 'SE', category: idOf('mobile-phones') }],
    ['P1 root category page', P1_DOCUMENT, { market: 'SE', category: idOf('home-and-garden') }],
    ['P3 20 products by id', P3_DOCUMENT, { market: 'SE', ids }],
    ['P4 one product name', P4_DOCUMENT, { market: 'SE', id: ids[0] }],
  ];
  console.log(`${new URL(values.url).pathname.slice(1)}, median of ${RUNS} runs\n`);
  console.log('| case | path | statements | execution ms | planning ms | buffers |');
  console.log('|---|---|---:|---:|---:|---:|');
  const plans: string[] = [];
  for (const [name, query, variables] of cases) {
    for (const compiled of [true, false]) {
      const explained = await statementsOf(compiled, query, variables);
      const sum = (pick: (e: (typeof explained)[number]) => number) =>
        explained.reduce((total, e) => total + pick(e), 0);
      const path = compiled ? 'compiled' : 'resolvers';
      console.log(
        `| ${name} | ${path} | ${explained.length} | ${sum((e) => e.ms).toFixed(2)} | ${sum((e) => e.planning).toFixed(2)} | ${sum((e) => e.buffers)} |`,
      );
      if (compiled) plans.push(`${name}:\n\n${explained[0]!.text}`);
    }
  }
  console.log(`\n${plans.join('\n\n')}`);
} finally {
  await database.close();
}
