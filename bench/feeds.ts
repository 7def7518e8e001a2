/**
 * `npm run bench:feeds [-- --quick --only full,http-full,push,reads,many,memory --rounds N
 * --concurrency C]`: feed ingestion against performance.md's feed targets, on the bench-scale
 * catalogue in a database of its own on the Postgres server (`catalogue_bench_feeds`, seeded
 * once and reused like `npm run bench`'s; the feeds write to it, so the reading benches keep
 * theirs as seeded). The HTTP parts (http-full, push, reads) start a gateway child process
 * on it. Prints the machine, each part's progress, and the table of measured vs target.
 */
import { readCommandLine, type CommandSpec, type OptionSpec } from '../src/cli/command-line.ts';
import { exitOnFailure } from '../src/cli/errors.ts';
import { benchServerUrl, SERVER_URL_ENVIRONMENT, SERVER_URL_OPTION } from './catalogue.ts';
import { feedTargetTable } from './feeds/report.ts';
import { FEED_BENCH_PARTS, FULL_SIZES, QUICK_SIZES, runFeedBench } from './feeds/run-bench.ts';
import { chosenParts, runPartsBench } from './parts-bench.ts';

const DATABASE = 'catalogue_bench_feeds';

const BENCH_FEEDS = {
  invocation: 'npm run bench:feeds --',
  summary:
    'Seeds (or reuses) the bench-scale catalogue in its own database on the PostgreSQL\n' +
    "server, then measures feed ingestion: one shop's full feed of 100,000 rows with 10 %\n" +
    'of prices changed (beside reading it alone and a COPY + UPDATE baseline), in process\n' +
    '(full) and through a gateway child process, PUT /feeds/shops/{id}?wait=true (http-full);\n' +
    'pushes of 1,000 items until GraphQL and REST answers show them, response cache on (push);\n' +
    'W1 and W4 p99 idle and while feeds are applied through HTTP (reads); 1,000,000 offer\n' +
    "changes across many shops' feeds side by side (many), and the feed command's memory\n" +
    'applying a 500 MB feed (memory); prints measured against targets (docs/benchmarks.md).',
  options: {
    quick: { type: 'boolean', description: 'small sizes: every part in seconds (a smoke test)' },
    only: {
      type: 'string',
      value: 'PARTS',
      description: `only these parts, comma-separated: ${FEED_BENCH_PARTS.join(', ')}`,
    },
    rounds: {
      type: 'string',
      value: 'N',
      description: `rounds of the full feed (default ${FULL_SIZES.rounds}, quick ${QUICK_SIZES.rounds})`,
      range: [1, 100],
    },
    concurrency: {
      type: 'string',
      value: 'C',
      default: String(FULL_SIZES.concurrency),
      description: "shops' feeds applied at a time",
      range: [1, 64],
    },
    'server-url': SERVER_URL_OPTION,
  },
  environment: [SERVER_URL_ENVIRONMENT],
} satisfies CommandSpec<Record<string, OptionSpec>>;

const values = readCommandLine(BENCH_FEEDS, process.argv.slice(2));
const serverUrl = benchServerUrl(values['server-url']);
const base = values.quick ? QUICK_SIZES : FULL_SIZES;
const sizes = {
  ...base,
  rounds: values.rounds ? Number(values.rounds) : base.rounds,
  concurrency: Number(values.concurrency),
};
const parts = chosenParts(values.only, FEED_BENCH_PARTS);

runPartsBench({
  name: 'bench:feeds',
  title: 'Feeds in',
  database: DATABASE,
  serverUrl,
  quick: values.quick === true,
  run: (databaseUrl, log) => runFeedBench({ databaseUrl, sizes, parts, log }),
  table: (results) => feedTargetTable(results, sizes),
}).catch(exitOnFailure);
