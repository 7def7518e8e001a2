/**
 * `npm run bench [-- --scale bench|large --rounds N --duration S --connections C --only W1,P
 * --profile]`: the gateway against the raw-SQL ceiling and the naive floor (performance.md),
 * and beside PostGraphile v5 (issue 12).
 *
 * Seeds (or reuses) the scale's catalogue on the Postgres server, starts every system in its
 * own process, checks that they answer byte for byte alike (PostGraphile, another schema:
 * row for row), then measures the workloads round after round, rotating the order of systems
 * so that drift of this shared machine falls on all of them alike, and prints medians,
 * ratios, Postgres time per request and the targets met.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import pg from 'pg';
import { readCommandLine, type CommandSpec, type OptionSpec } from '../src/cli/command-line.ts';
import { exitOnFailure } from '../src/cli/errors.ts';
import { productsRoute } from '../src/rest/routes/products.ts';
import {
  benchServerUrl,
  prepareCatalogue,
  SERVER_URL_ENVIRONMENT,
  SERVER_URL_OPTION,
} from './catalogue.ts';
import { runLoad } from './load.ts';
import { millisecondsBetween, openPostgresTime, type PostgresTime } from './postgres-time.ts';
import {
  markdownTable,
  peerTable,
  summarise,
  summaryTable,
  type Measurement,
  type Summary,
} from './report.ts';
import { restOperation } from './rest-document.ts';
import {
  clientToken,
  GATEWAY_ENTRY,
  GATEWAY_ENV,
  GATEWAY_PORT,
  machineCpuTicks,
  sampleResidentSet,
  startSystem,
  statementsSoFar,
  type RunningSystem,
  type SystemId,
  type SystemSpec,
} from './systems.ts';
import { checkTargets } from './targets.ts';
import { verifySameResponses, verifySameRows } from './verify.ts';
import {
  MARKET,
  P4_DOCUMENT,
  P4_DOCUMENT_HASH,
  PARTNER,
  readWorkloadInputs,
  workloads,
  type Workload,
} from './workloads.ts';

const BENCH = {
  invocation: 'npm run bench --',
  summary:
    "Seeds (or reuses) the scale's catalogue on the PostgreSQL server, starts the gateway, the\n" +
    'raw-SQL baseline, the naive variant, the cached gateway and PostGraphile v5, checks that\n' +
    'they answer alike, measures the workloads and prints the tables of docs/benchmarks.md.\n' +
    'W1-W6 (performance.md): REST /products, a GraphQL category page, suggestions, point\n' +
    'lookups, REST against GraphQL, partner search. P1-P4 (market se, response cache off),\n' +
    'the gateway beside PostGraphile, each checked row by row: P1 a category page (20\n' +
    'products, 10 offers each, shops) for the leaf categories ranked first, middle and last\n' +
    'by listed products, in turn; P2 ten leaf categories, 10 products, 5 offers, shops;\n' +
    'P3 20 products by id with category and offers; P4 one product name; P4-id the same\n' +
    "document sent as a trusted document's id.",
  options: {
    scale: {
      type: 'string',
      value: 'SCALE',
      default: 'bench',
      description: 'catalogue size: bench or large',
      choices: ['bench', 'large'],
    },
    rounds: {
      type: 'string',
      value: 'N',
      default: '3',
      description: 'rounds of every workload',
      range: [1, 1000],
    },
    duration: {
      type: 'string',
      value: 'S',
      default: '5',
      description: 'seconds each measurement runs',
      range: [1, 3600],
    },
    connections: {
      type: 'string',
      value: 'C',
      default: '8',
      description: "the load generator's concurrent connections",
      range: [1, 10_000],
    },
    only: {
      type: 'string',
      value: 'W1,P',
      description: 'only the workloads whose ids start with one of these (P: P1-P4)',
    },
    profile: {
      type: 'boolean',
      description: "write the gateway's CPU profiles to bench/profiles/",
    },
    'server-url': SERVER_URL_OPTION,
  },
  environment: [SERVER_URL_ENVIRONMENT],
} satisfies CommandSpec<Record<string, OptionSpec>>;

const values = readCommandLine(BENCH, process.argv.slice(2));
const scale = values.scale as 'bench' | 'large';
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const only = values.only?.split(',');
const serverUrl = benchServerUrl(values['server-url']);

const log = (line: string) => process.stderr.write(`bench  ${line}\n`);

const SYSTEMS: SystemSpec[] = [
  {
    id: 'gateway',
    port: GATEWAY_PORT,
    entry: GATEWAY_ENTRY,
    env: GATEWAY_ENV,
    nodeFlags: values.profile ? ['--cpu-prof', '--cpu-prof-dir=bench/profiles'] : [],
  },
  { id: 'raw', port: 4102, entry: 'bench/raw/main.ts', env: {} },
  {
    id: 'naive',
    port: 4103,
    entry: GATEWAY_ENTRY,
    env: { ...GATEWAY_ENV, DATALOADER_BATCHING: 'false' },
  },
  {
    id: 'cached',
    port: 4104,
    entry: GATEWAY_ENTRY,
    env: { ...GATEWAY_ENV, RESPONSE_CACHE_TTL_SECONDS: '3600' },
  },
  // As deployed: GRAPHILE_ENV=production turns grafast's development checks off.
  {
    id: 'postgraphile',
    port: 4105,
    entry: 'bench/postgraphile/main.ts',
    env: { GRAPHILE_ENV: 'production', NODE_ENV: 'production' },
  },
];

function partnerToken(gateway: RunningSystem): Promise<string> {
  return clientToken(gateway.baseUrl, PARTNER.clientId, PARTNER.secret);
}

/** SQL statements one request runs on a system (read from its /metrics around the request). */
async function statementsOf(
  system: RunningSystem,
  request: Workload['requests'][number],
  token: string,
) {
  const before = await statementsSoFar(system);
  const headers: Record<string, string> = { ...request.headers };
  if (request.partner) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${system.baseUrl}${request.path}`, {
    method: request.method,
    headers,
    body: request.body,
  });
  if (!response.ok) throw new Error(`${request.path}: ${response.status} ${await response.text()}`);
  await response.arrayBuffer();
  return (await statementsSoFar(system)) - before;
}

/**
 * The median of three counts: /metrics counts every statement the process runs, so one that
 * belongs to something else finishing in the window (seen once: 6 instead of 5) is outvoted.
 */
async function typicalStatementsOf(
  system: RunningSystem,
  request: Workload['requests'][number],
  token: string,
) {
  const counts: number[] = [];
  for (let i = 0; i < 3; i += 1) counts.push(await statementsOf(system, request, token));
  return counts.sort((a, b) => a - b)[1]!;
}

/** performance.md: W1, W2 and W6 at page size 1 and at the maximum run as many statements. */
async function pageSizeConstancy(systems: RunningSystem[], all: Workload[], token: string) {
  const byId = new Map(all.map((w) => [w.id, w.requests[0]!]));
  const w1 = byId.get('W1')!;
  const w2 = byId.get('W2')!;
  const w6 = byId.get('W6')!;
  const smallest = {
    W1: { ...w1, path: w1.path.replace('limit=15', 'limit=1') },
    W2: { ...w2, body: w2.body!.replace('products(first: 20)', 'products(first: 1)') },
    W6: { ...w6, path: w6.path.replace(/productIds=(\d+)[\d,]*/, 'productIds=$1') },
  };
  const rows: string[][] = [];
  for (const system of systems) {
    for (const [id, small] of Object.entries(smallest)) {
      const large = byId.get(id as 'W1')!;
      rows.push([
        id,
        system.spec.id,
        String(await typicalStatementsOf(system, small, token)),
        String(await typicalStatementsOf(system, large, token)),
      ]);
    }
  }
  return rows;
}

/** Rotates the systems' order every round, so none is always measured first or last. */
function rotated<T>(items: T[], round: number): T[] {
  const shift = round % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/**
 * The systems a workload is measured on. W5 compares the gateway with itself; the
 * comparison with PostGraphile is with the response cache off, so its workloads skip the
 * cached gateway.
 */
function systemIdsFor(workload: Workload): SystemId[] {
  if (workload.id.startsWith('W5')) return ['gateway'];
  return [
    'gateway',
    ...(workload.raw ? (['raw'] as const) : []),
    ...(workload.peer ? (['postgraphile'] as const) : []),
    'naive',
    ...(workload.peer ? [] : (['cached'] as const)),
  ];
}

function systemsFor(workload: Workload, running: Map<SystemId, RunningSystem>): RunningSystem[] {
  return systemIdsFor(workload).map((id) => running.get(id)!);
}

/** PostGraphile answers its own documents; every other system the workload's requests. */
const requestsFor = (system: RunningSystem, workload: Workload) =>
  system.spec.id === 'postgraphile' ? workload.peer!.requests : workload.requests;

/** W3's target is a single client's latency; everything else is measured under load. */
const connectionsFor = (workload: Workload) => (workload.id === 'W3' ? 1 : connections);

async function measure(
  system: RunningSystem,
  workload: Workload,
  token: string,
  round: number,
  seconds: number,
  postgresTime: PostgresTime | undefined,
): Promise<Measurement> {
  const before = await statementsSoFar(system);
  const backendsBefore = await postgresTime?.sample(system.spec.id);
  const memory = sampleResidentSet(system.process.pid!);
  const result = await runLoad({
    baseUrl: system.baseUrl,
    requests: requestsFor(system, workload),
    token,
    connections: connectionsFor(workload),
    durationSeconds: seconds,
  });
  const peakResidentBytes = await memory.stop();
  const statements = (await statementsSoFar(system)) - before;
  const backendsAfter = await postgresTime?.sample(system.spec.id);
  const postgresMs =
    backendsBefore && backendsAfter
      ? millisecondsBetween(backendsBefore, backendsAfter)
      : Number.NaN;
  return {
    ...result,
    round,
    workload: workload.id,
    system: system.spec.id,
    connections: connectionsFor(workload),
    statementsPerRequest: result.requests > 0 ? statements / result.requests : Number.NaN,
    postgresMsPerRequest: result.requests > 0 ? postgresMs / result.requests : Number.NaN,
    peakResidentBytes,
  };
}

async function main() {
  log(
    `${os.cpus().length} cores, ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average ` +
      `${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}, Node ${process.version}`,
  );
  log(`building ${GATEWAY_ENTRY} (npm run build)`);
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  const databaseUrl = await prepareCatalogue(serverUrl, scale, log);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const inputs = await readWorkloadInputs(client);
  // P4-id's document, as `npm run documents -- add` would store it.
  await client.query(
    `insert into trusted_documents (hash, document, source) values ($1, $2, 'bench')
       on conflict (hash) do nothing`,
    [P4_DOCUMENT_HASH, P4_DOCUMENT],
  );
  const postgres = (await client.query<{ server_version: string }>('show server_version')).rows[0]!;
  await client.end();

  const all = workloads(
    inputs,
    restOperation(productsRoute, `/products?market=${MARKET}&limit=15`),
  );
  const chosen = only ? all.filter((w) => only.some((id) => w.id.startsWith(id))) : all;

  const running = new Map<SystemId, RunningSystem>();
  const timing = await openPostgresTime(databaseUrl);
  const postgresTime = 'unavailable' in timing ? undefined : timing;
  if ('unavailable' in timing) log(`no Postgres time per request: ${timing.unavailable}`);
  try {
    for (const spec of SYSTEMS) {
      const system = await startSystem(spec, databaseUrl);
      running.set(spec.id, system);
      log(`${spec.id} ready in ${system.readyMs.toFixed(0)} ms on :${spec.port}`);
    }
    const gateway = running.get('gateway')!;
    const token = await partnerToken(gateway);

    for (const other of ['raw', 'naive', 'cached'] as const) {
      const comparable = chosen.filter((w) => systemIdsFor(w).includes(other));
      const system = running.get(other)!;
      await verifySameResponses(gateway.baseUrl, system.baseUrl, other, comparable, token);
      log(`${other} answers its ${comparable.length} workloads byte for byte like the gateway`);
    }
    const withTwin = chosen.filter((w) => w.peer);
    await verifySameRows(gateway.baseUrl, running.get('postgraphile')!.baseUrl, withTwin);
    log(`postgraphile answers its ${withTwin.length} workloads row for row like the gateway`);

    // The raw baseline runs one statement per request by construction (test/bench asserts it).
    const constancy = await pageSizeConstancy([gateway, running.get('naive')!], all, token);

    const warmUp = Math.min(3, durationSeconds);
    for (const workload of chosen) {
      for (const system of systemsFor(workload, running)) {
        await measure(system, workload, token, -1, warmUp, postgresTime);
      }
    }
    const measurements: Measurement[] = [];
    const ticksBefore = await machineCpuTicks();
    for (let round = 0; round < rounds; round += 1) {
      for (const workload of chosen) {
        for (const system of rotated(systemsFor(workload, running), round)) {
          const m = await measure(system, workload, token, round, durationSeconds, postgresTime);
          measurements.push(m);
          log(
            `round ${round + 1}/${rounds} ${workload.id} ${system.spec.id}: ` +
              `${m.requestsPerSecond.toFixed(0)} req/s, p99 ${m.p99.toFixed(1)} ms`,
          );
        }
      }
    }
    const summaries = summarise(measurements);
    const underLoad = await latencyUnderLoad(gateway, chosen, summaries, token);
    const ticksAfter = await machineCpuTicks();
    const stolen = (ticksAfter.steal - ticksBefore.steal) / (ticksAfter.total - ticksBefore.total);

    const machine =
      `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ` +
      `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, PostgreSQL ${postgres.server_version}`;
    console.log(`\n## ${scale} scale: ${rounds} rounds of ${durationSeconds} s, medians\n`);
    console.log(
      `Machine: ${machine}. Load average after: ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}. CPU time stolen by the hypervisor while measuring: ` +
        `${(stolen * 100).toFixed(0)} %.\n`,
    );
    console.log(summaryTable(summaries));
    if (withTwin.length > 0) {
      console.log('\nPostGraphile v5 beside the gateway (market se, response cache off):\n');
      console.log(peerTable(summaries));
    }
    console.log('\nSQL statements per request at the smallest and the largest page:\n');
    console.log(markdownTable(['workload', 'system', 'page 1', 'page max'], constancy));
    console.log('\nLatency at 80 % of the gateway’s maximum throughput:\n');
    console.log(
      markdownTable(
        ['workload', 'rate req/s', 'achieved req/s', 'p50 ms', 'p99 ms'],
        underLoad.map((u) => [
          u.workload,
          u.rate.toFixed(0),
          u.achieved.toFixed(0),
          u.p50.toFixed(1),
          u.p99.toFixed(1),
        ]),
      ),
    );
    const starts = [...running.values()]
      .filter((s) => s.spec.entry === GATEWAY_ENTRY)
      .map((s) => s.readyMs);
    console.log('\nTargets:\n');
    console.log(
      markdownTable(
        ['target', 'measured', 'met'],
        checkTargets({ summaries, constancy, underLoad, startMs: starts }),
      ),
    );
  } finally {
    await Promise.all([...running.values()].map((system) => system.stop()));
    await postgresTime?.close();
  }
}

export interface UnderLoad {
  workload: string;
  rate: number;
  achieved: number;
  p50: number;
  p99: number;
}

/** performance.md: p99 at 80 % of the maximum throughput, for the throughput workloads. */
async function latencyUnderLoad(
  gateway: RunningSystem,
  chosen: Workload[],
  summaries: Summary[],
  token: string,
): Promise<UnderLoad[]> {
  const results: UnderLoad[] = [];
  for (const workload of chosen.filter((w) => ['W1', 'W2', 'W6'].includes(w.id))) {
    const maximum = summaries.find((s) => s.workload === workload.id && s.system === 'gateway')!;
    const rate = Math.max(1, Math.floor(maximum.requestsPerSecond * 0.8));
    const result = await runLoad({
      baseUrl: gateway.baseUrl,
      requests: workload.requests,
      token,
      connections,
      durationSeconds,
      overallRate: rate,
    });
    results.push({ workload: workload.id, rate, achieved: result.requestsPerSecond, ...result });
  }
  return results;
}

main().catch(exitOnFailure);
