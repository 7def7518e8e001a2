/**
 * `npm run bench:live [-- --quick --only latency,fan-out,stalled,restarts --rounds N
 * --subscribers N]`: live prices out against the issue's targets, on the bench-scale catalogue
 * in a database of its own on the Postgres server (`catalogue_bench_live`, seeded once and
 * reused like `npm run bench`'s; the pushes write to it). Gateways are child processes
 * (`serve` from the sources). The restarts part runs on a scratch PostgreSQL cluster and a
 * Redis of its own, which it stops and starts. Prints the machine, each part's progress, and
 * the table of measured vs target (docs/benchmarks.md, "Live prices out").
 */
import { readCommandLine, type CommandSpec, type OptionSpec } from '../src/cli/command-line.ts';
import { exitOnFailure } from '../src/cli/errors.ts';
import { benchServerUrl, SERVER_URL_ENVIRONMENT, SERVER_URL_OPTION } from './catalogue.ts';
import { liveTargetTable } from './live/report.ts';
import { FULL_SIZES, LIVE_BENCH_PARTS, QUICK_SIZES, runLiveBench } from './live/run-bench.ts';
import { chosenParts, runPartsBench } from './parts-bench.ts';

const DATABASE = 'catalogue_bench_live';

const BENCH_LIVE = {
  invocation: 'npm run bench:live --',
  summary:
    'Seeds (or reuses) the bench-scale catalogue in its own database on the PostgreSQL\n' +
    'server, then measures live prices out: feed commit → event at an SSE and a graphql-ws\n' +
    'subscriber, one gateway process and two (latency); one event fanned out to thousands of\n' +
    'SSE subscribers of one process, its time and resident set (fan-out); a subscriber that\n' +
    "stops reading beside others (stalled); events lost across Postgres's and Redis's\n" +
    'restarts, on a scratch cluster of its own (restarts); prints measured against targets\n' +
    '(docs/benchmarks.md).',
  options: {
    quick: { type: 'boolean', description: 'small sizes: every part in about a minute' },
    only: {
      type: 'string',
      value: 'PARTS',
      description: `only these parts, comma-separated: ${LIVE_BENCH_PARTS.join(', ')}`,
    },
    rounds: {
      type: 'string',
      value: 'N',
      description: `pushes measured for the latency (default ${FULL_SIZES.latencyRounds}, quick ${QUICK_SIZES.latencyRounds})`,
      range: [1, 10_000],
    },
    subscribers: {
      type: 'string',
      value: 'N',
      description: `SSE subscribers of the fan-out (default ${FULL_SIZES.fanOutSubscribers}, quick ${QUICK_SIZES.fanOutSubscribers})`,
      range: [1, 15_000],
    },
    'server-url': SERVER_URL_OPTION,
  },
  environment: [SERVER_URL_ENVIRONMENT],
} satisfies CommandSpec<Record<string, OptionSpec>>;

const values = readCommandLine(BENCH_LIVE, process.argv.slice(2));
const serverUrl = benchServerUrl(values['server-url']);
const base = values.quick ? QUICK_SIZES : FULL_SIZES;
const sizes = {
  ...base,
  latencyRounds: values.rounds ? Number(values.rounds) : base.latencyRounds,
  fanOutSubscribers: values.subscribers ? Number(values.subscribers) : base.fanOutSubscribers,
};
const parts = chosenParts(values.only, LIVE_BENCH_PARTS);

runPartsBench({
  name: 'bench:live',
  title: 'Live prices out',
  database: DATABASE,
  serverUrl,
  quick: values.quick === true,
  run: (databaseUrl, log) => runLiveBench({ databaseUrl, sizes, parts, log }),
  table: (results) => liveTargetTable(results),
}).catch(exitOnFailure);
