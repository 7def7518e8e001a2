/**
 * `node --import tsx bench/driver-costs.ts [--url URL | --embedded] [--calls N] [--rounds R]`:
 * what the driver costs Node per statement of the category page, one change at a time
 * (docs/benchmarks.md, "Driver costs").
 *
 * Runs the page's statements (a page of 10 offers for each of 20 products with every column,
 * seven timestamps per offer, and with the columns the category page reads now; 20 products by
 * id; one product's name) back to back on one connection, in three modes:
 *   date     timestamps parsed into Date by node-postgres and written back with toISOString,
 *            statements unnamed (as before);
 *   string   timestamps rewritten to ISO text (src/db/timestamps.ts), unnamed;
 *   prepared string timestamps, and the statements named prepared (src/db/prepared.ts).
 * Each mode runs `calls` times per round, rounds alternating the modes; prints the median
 * over rounds of wall time, of this process's CPU time (user + system) and, on a server on
 * this machine, of the server process's CPU time (/proc/PID/schedstat of the connection's
 * backend) per call.
 *
 * Against the bench catalogue on the server by default (catalogue_bench, seeded by
 * `npm run bench`); `--embedded` seeds a small catalogue into an in-memory PGlite instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import pg from 'pg';
import { DEFAULT_SEED, seedCatalogue, utcToday } from '../seeds/index.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { executePrepared } from '../src/db/prepared.ts';
import { timestamptzToIso } from '../src/db/timestamps.ts';

// client.ts installs the ISO rewriting when it loads: node-postgres' own Date parser is taken
// before, for the 'date' mode.
const parseTimestampToDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
const { createEmbeddedDatabase, openDatabase } = await import('../src/db/client.ts');

const { values: args } = parseArgs({
  options: {
    url: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/catalogue_bench' },
    embedded: { type: 'boolean', default: false },
    calls: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '5' },
  },
});
const calls = Number(args.calls);
const rounds = Number(args.rounds);

const MODES = ['date', 'string', 'prepared'] as const;
type Mode = (typeof MODES)[number];

const TIMESTAMP_COLUMNS = [
  'member_price_start',
  'member_price_end',
  'sales_price_start',
  'sales_price_end',
  'original_price_start',
  'original_price_end',
  'updated_at',
] as const;

/** What the DateTime scalar does with each timestamp it answers (src/graph/builder.ts). */
function serialiseTimestamps(rows: Record<string, unknown>[]): number {
  let written = 0;
  for (const row of rows) {
    for (const column of TIMESTAMP_COLUMNS) {
      const value = row[column];
      if (value instanceof Date) written += value.toISOString().length;
      else if (typeof value === 'string') written += value.length;
    }
  }
  return written;
}

const database = args.embedded
  ? await openDatabase({ pglite: await createEmbeddedDatabase('memory://'), poolSize: 1 })
  : await openDatabase({ url: args.url, poolSize: 1 });
if (args.embedded) {
  await migrateToLatest(database.db);
  await seedCatalogue(database, {
    scale: 'sample',
    seed: DEFAULT_SEED,
    products: 300,
    asOf: utcToday(),
    progress: false,
  });
}
const { db } = database;

// The category page's products: the 20 most popular in Sweden with offers there.
const { rows: listed } = await sql<{ product_id: number }>`
  select product_id from product_market_summaries
   where market = 'se' order by popularity desc, product_id limit 20`.execute(db);
const productIds = listed.map((row) => row.product_id);

/** A page of 10 offers for each product, cheapest first, of the given columns. */
const offersPage = (columns: RawBuilder<unknown>) => () =>
  sql<Record<string, unknown>>`
    select * from (
      select ${columns},
             (row_number() over (partition by o.product_id, o.market order by o.price, o.id) - 1)::int
               as position,
             (count(*) over (partition by o.product_id, o.market))::int as total
        from available_offers o
        join unnest(${productIds}::integer[], ${productIds.map(() => 'se')}::text[])
          as k(product_id, market) on o.product_id = k.product_id and o.market = k.market
    ) ranked
    where position >= ${0} and position < ${10}
    order by product_id, market, position`;

/**
 * The page's statements as they were before selecting columns (every column), and the offers
 * page as the category page now reads it (src/db/repositories/offers.ts: no timestamps).
 */
const statements: Record<string, () => RawBuilder<Record<string, unknown>>> = {
  'offers page, every column': offersPage(sql`o.*`),
  "offers page, the category page's columns": offersPage(
    sql.join(
      [
        'id',
        'product_id',
        'market',
        'currency',
        'price',
        'price_including_shipping',
        'shop_id',
        'url',
      ].map((column) => sql.ref(`o.${column}`)),
    ),
  ),
  'products by id (20), every column': () =>
    sql`select * from products where id = any(${productIds})`,
  // The one-product floor (a name): the statement where parsing and planning weigh most.
  "one product's name": () =>
    sql`select id, name from products where id = any(${productIds.slice(0, 1)})`,
};

// The pool's one connection serves every statement: its backend's CPU time is the server's
// share (readable when the server runs on this machine).
const { rows: backend } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db);
const schedstat = database.kind === 'postgres' ? `/proc/${backend[0]!.pid}/schedstat` : '';
const serverCpuNs = existsSync(schedstat)
  ? () => Number(readFileSync(schedstat, 'utf8').split(' ')[0])
  : undefined;

/**
 * The statement under a text of its own, which `executePrepared` never names: the client names
 * every run of a text once it has a name, whichever way the text is sent.
 */
function unnamed(query: CompiledQuery<Record<string, unknown>>) {
  return CompiledQuery.raw(`/* unnamed */ ${query.sql}`, [...query.parameters]);
}

async function run(mode: Mode, statement: () => RawBuilder<Record<string, unknown>>) {
  pg.types.setTypeParser(
    pg.types.builtins.TIMESTAMPTZ,
    mode === 'date' ? parseTimestampToDate : timestamptzToIso,
  );
  const serverBefore = serverCpuNs?.();
  const cpuBefore = process.cpuUsage();
  const wallBefore = process.hrtime.bigint();
  let rows = 0;
  for (let call = 0; call < calls; call++) {
    const query = statement();
    const result =
      mode === 'prepared'
        ? await executePrepared(db, query)
        : (await db.executeQuery<Record<string, unknown>>(unnamed(query.compile(db)))).rows;
    serialiseTimestamps(result);
    rows += result.length;
  }
  const wallUs = Number(process.hrtime.bigint() - wallBefore) / 1000 / calls;
  const cpu = process.cpuUsage(cpuBefore);
  const serverUs =
    serverBefore === undefined ? NaN : (serverCpuNs!() - serverBefore) / 1000 / calls;
  return { wallUs, cpuUs: (cpu.user + cpu.system) / calls, serverUs, rows: rows / calls };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

console.log(
  `${database.kind}${args.embedded ? '' : ` ${args.url}`}: ${calls} calls x ${rounds} rounds, ` +
    'median over rounds, per call',
);
console.log('| statement | mode | rows | wall µs | Node CPU µs | Postgres CPU µs |');
console.log('|---|---|---|---|---|---|');
for (const [label, statement] of Object.entries(statements)) {
  const measured = new Map<
    Mode,
    { wallUs: number[]; cpuUs: number[]; serverUs: number[]; rows: number }
  >();
  // A warm-up call of every mode first: the connection, the JIT and the prepared statement.
  for (const mode of MODES) await run(mode, statement);
  for (let round = 0; round < rounds; round++) {
    // Rotating the order spreads drift of a shared machine over all modes alike.
    for (let index = 0; index < MODES.length; index++) {
      const mode = MODES[(index + round) % MODES.length] as Mode;
      const result = await run(mode, statement);
      const entry = measured.get(mode) ?? {
        wallUs: [],
        cpuUs: [],
        serverUs: [],
        rows: result.rows,
      };
      entry.wallUs.push(result.wallUs);
      entry.cpuUs.push(result.cpuUs);
      entry.serverUs.push(result.serverUs);
      measured.set(mode, entry);
    }
  }
  for (const mode of MODES) {
    const entry = measured.get(mode)!;
    console.log(
      `| ${label} | ${mode} | ${entry.rows} | ${median(entry.wallUs).toFixed(0)} | ` +
        `${median(entry.cpuUs).toFixed(0)} | ${serverCpuNs ? median(entry.serverUs).toFixed(0) : 'n/a'} |`,
    );
  }
}

if (database.kind === 'postgres') {
  // Which plans the named statements settled on (plan_cache_mode = auto): see prepared.ts.
  const { rows: plans } = await sql<{
    statement: string;
    generic_plans: number;
    custom_plans: number;
  }>`
    select statement, generic_plans, custom_plans from pg_prepared_statements`.execute(db);
  for (const [label, statement] of Object.entries(statements)) {
    const text = statement().compile(db).sql;
    const plan = plans.find((row) => row.statement === text);
    if (plan)
      console.log(`${label}: ${plan.generic_plans} generic, ${plan.custom_plans} custom plans`);
  }
}
await database.close();
