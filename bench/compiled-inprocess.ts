/**
 * `node --import tsx bench/compiled-inprocess.ts [--url postgres://…/catalogue_sample]`: requests
 * per second of the P documents on two apps in one process over one pool, one with the
 * compiled root fields and one with COMPILED_SELECTIONS=false (docs/benchmarks.md, "Compiled
 * root fields: their plans"). No HTTP, no PostGraphile: an indication between `npm run bench`
 * runs, not a replacement. Each case: 20 requests of warm-up per app, then 6 rounds of 80
 * requests 8 at a time, the apps alternating; the median round of each.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { P1_DOCUMENT, P3_DOCUMENT, P4_DOCUMENT } from './workloads.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/catalogue_sample' },
  },
});
const ROUNDS = 6;
const REQUESTS = 80;
const IN_FLIGHT = 8;
/** P2's leaf categories. */
const LEAVES = [3, 12, 13, 21, 9, 28, 37, 10, 18, 16];
const PAGE = `categoryId products(first: 10) { edges { node { productId name
  offers(first: 5) { edges { node { offerId price { value } shop { shopId name } } } } } } }`;
const P2 = `query Tree($market: Market!) {
  ${LEAVES.map((id, i) => `c${i}: category(id: ${id}, market: $market) { ${PAGE} }`).join('\n')}
}`;
const LIST = `query ListTree($market: Market!) {
  categories(market: $market, first: 37) { edges { node { ${PAGE} } } }
}`;

const database = await openDatabase({ url: values.url, poolSize: 10 });
const apps = [true, false].map((compiled) =>
  createApp({
    config: loadConfig({
      RESPONSE_CACHE_TTL_SECONDS: '0',
      COMPILED_SELECTIONS: String(compiled),
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    }),
    database,
    logger: pino({ level: 'silent' }),
  }),
);

async function ask(app: App, query: string, variables: object): Promise<void> {
  const response = await app.fetch(
    new Request('http://bench/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
  );
  const body = (await response.json()) as { errors?: unknown };
  if (body.errors) throw new Error(JSON.stringify(body.errors));
}

/** Milliseconds per request of one round. */
async function round(app: App, query: string, variables: object): Promise<number> {
  const start = performance.now();
  let sent = 0;
  const worker = async () => {
    while (sent++ < REQUESTS) await ask(app, query, variables);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return (performance.now() - start) / REQUESTS;
}

try {
  const { rows } = await database.pool.query<{ product_id: number }>(
    `select product_id from product_market_summaries where market = 'se'
      order by popularity desc, product_id offset 20 limit 20`,
  );
  const ids = rows.map((row) => row.product_id);
  const cases: [string, string, object][] = [
    ['P1 category page', P1_DOCUMENT, { market: 'SE', category: 3 }],
    ['P2 ten aliased categories', P2, { market: 'SE' }],
    ['the tree as a list (37 categories)', LIST, { market: 'SE' }],
    ['P3 20 products by id', P3_DOCUMENT, { market: 'SE', ids }],
    ['P4 one product name', P4_DOCUMENT, { market: 'SE', id: ids[0] }],
  ];
  console.log('| case | compiled req/s | resolvers req/s | ratio |\n|---|---:|---:|---:|');
  for (const [name, query, variables] of cases) {
    for (const app of apps) for (let i = 0; i < 20; i++) await ask(app, query, variables);
    const times = apps.map((): number[] => []);
    for (let r = 0; r < ROUNDS; r++) {
      for (const [index, app] of apps.entries())
        times[index]!.push(await round(app, query, variables));
    }
    const [compiled, resolvers] = times.map((t) => t.sort((a, b) => a - b)[ROUNDS / 2]!);
    const rate = (ms: number) => (1000 / ms).toFixed(0);
    console.log(
      `| ${name} | ${rate(compiled!)} | ${rate(resolvers!)} | ${(resolvers! / compiled!).toFixed(2)} |`,
    );
  }
} finally {
  for (const app of apps) await app.dispose();
  await database.close();
}
