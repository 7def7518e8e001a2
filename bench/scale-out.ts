/**
 * `npm run bench:scale-out [-- --workers 1,2 --only W1,W4 --rounds N --duration S
 * --connections C]`: the gateway (the production bundle, on the bench catalogue of
 * `npm run bench`) with WORKERS=1, then 2, … processes on one port, measuring each workload
 * under the same load: requests a second, p50 and p99, and where the CPU went — the gateway's
 * processes (each worker's share of a core, and CPU milliseconds per request over all of them),
 * the Postgres backends serving them (per request, bench/postgres-time.ts), and how busy the
 * whole machine was (other work on it included).
 * docs/operations.md "Running several processes" quotes it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import pg from 'pg';
import { readCommandLine, type CommandSpec, type OptionSpec } from '../src/cli/command-line.ts';
import { exitOnFailure } from '../src/cli/errors.ts';
import { productsRoute } from '../src/rest/routes/products.ts';
import { prepareCatalogue } from './catalogue.ts';
import { runLoad, type LoadResult } from './load.ts';
import {
  applicationName,
  millisecondsBetween,
  openPostgresTime,
  type PostgresTime,
} from './postgres-time.ts';
import { markdownTable } from './report.ts';
import { restOperation } from './rest-document.ts';
import { GATEWAY_ENTRY, GATEWAY_ENV, machineCpuTicks } from './systems.ts';
import { MARKET, readWorkloadInputs, workloads, type Workload } from './workloads.ts';

const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
/** Apart from `npm run bench`'s ports, so that both may run. */
const PORT = 4111;

const SCALE_OUT = {
  invocation: 'npm run bench:scale-out --',
  summary:
    'The gateway with 1, 2, … processes (WORKERS) on the bench catalogue: req/s, p50, p99\n' +
    "and CPU per request, the gateway's processes apart from the rest of the machine.",
  options: {
    workers: {
      type: 'string',
      value: 'N,M',
      default: '1,2',
      description: 'the process counts to measure, in turn',
    },
    only: {
      type: 'string',
      value: 'W1,W4',
      default: 'W1,W4',
      description: 'the workloads whose ids start with one of these (partner ones are skipped)',
    },
    rounds: {
      type: 'string',
      value: 'N',
      default: '2',
      description: 'rounds of every workload and process count',
      range: [1, 100],
    },
    duration: {
      type: 'string',
      value: 'S',
      default: '10',
      description: 'seconds each measurement runs',
      range: [1, 3600],
    },
    connections: {
      type: 'string',
      value: 'C',
      default: '16',
      description: "the load generator's concurrent connections",
      range: [1, 10_000],
    },
  },
  environment: [
    {
      names: ['BENCH_SERVER_URL'],
      meaning: `the PostgreSQL server (default: ${DEFAULT_SERVER_URL})`,
    },
  ],
} satisfies CommandSpec<Record<string, OptionSpec>>;

const values = readCommandLine(SCALE_OUT, process.argv.slice(2));
const workerCounts = values.workers.split(',').map(Number);
const only = values.only.split(',');
const rounds = Number(values.rounds);
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const serverUrl = process.env.BENCH_SERVER_URL ?? DEFAULT_SERVER_URL;
const log = (line: string) => process.stderr.write(`scale-out  ${line}\n`);

/** CPU time (user + system) of a process so far, in clock ticks; 0 once it has gone. */
async function processTicks(pid: number): Promise<number> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name in parentheses: utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The primary and its workers (the processes it forked), by pid. */
async function gatewayProcesses(primary: number): Promise<number[]> {
  const children = await readFile(`/proc/${primary}/task/${primary}/children`, 'utf8');
  return [primary, ...children.trim().split(/\s+/).filter(Boolean).map(Number)];
}

interface Row extends LoadResult {
  workers: number;
  workload: string;
  /** CPU share of one core, per gateway process (the primary first). */
  processCores: number[];
  gatewayCpuMsPerRequest: number;
  postgresCpuMsPerRequest: number;
  machineBusy: number;
}

async function measure(
  primary: number,
  workers: number,
  workload: Workload,
  postgresTime: PostgresTime,
): Promise<Row> {
  const pids = await gatewayProcesses(primary);
  const ticksPerSecond = 100; // USER_HZ on Linux
  const before = await Promise.all(pids.map(processTicks));
  const backendsBefore = await postgresTime.sample('gateway');
  const machineBefore = await machineCpuTicks();
  const idleBefore = await idleTicks();
  const startedAt = performance.now();
  const result = await runLoad({
    baseUrl: `http://127.0.0.1:${PORT}`,
    requests: workload.requests,
    token: '',
    connections,
    durationSeconds,
  });
  const seconds = (performance.now() - startedAt) / 1000;
  const after = await Promise.all(pids.map(processTicks));
  const machineAfter = await machineCpuTicks();
  const backendsAfter = await postgresTime.sample('gateway');
  const idleAfter = await idleTicks();

  const processTicksUsed = after.map((ticks, index) => ticks - before[index]!);
  const gatewayTicks = processTicksUsed.reduce((sum, ticks) => sum + ticks, 0);
  const busyTicks = machineAfter.total - machineBefore.total - (idleAfter - idleBefore);
  const msPerRequest = (ticks: number) => ((ticks / ticksPerSecond) * 1000) / result.requests;
  return {
    ...result,
    workers,
    workload: workload.id,
    processCores: processTicksUsed.map((ticks) => ticks / ticksPerSecond / seconds),
    gatewayCpuMsPerRequest: msPerRequest(gatewayTicks),
    postgresCpuMsPerRequest: millisecondsBetween(backendsBefore, backendsAfter) / result.requests,
    machineBusy: busyTicks / (machineAfter.total - machineBefore.total),
  };
}

/** Idle and iowait clock ticks of the machine so far. */
async function idleTicks(): Promise<number> {
  const [line = ''] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  return ticks[3]! + ticks[4]!;
}

/**
 * The gateway as the image runs it, with WORKERS=`workers`, once every worker serves: `npm run
 * bench`'s readiness (/readyz answering) would be the first worker's only.
 */
async function startGateway(databaseUrl: string, workers: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [GATEWAY_ENTRY], {
    env: {
      ...process.env,
      ...GATEWAY_ENV,
      DATABASE_URL: databaseUrl,
      PORT: String(PORT),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${PORT}`,
      WORKERS: String(workers),
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
      LOG_REQUEST_SAMPLE_RATE: '0',
      // Names its Postgres backends (bench/postgres-time.ts).
      PGAPPNAME: applicationName('gateway'),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // The line the primary logs once every worker listens; one process logs 'listening'.
  const serving = workers > 1 ? '"msg":"all workers listening"' : '"msg":"listening"';
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code} at start`)));
    // Read to the end (the listener stays): a full pipe would hold up its logging.
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output = (output + chunk).slice(-10_000);
      if (output.includes(serving)) resolve();
    });
  });
  return child;
}

async function main() {
  log(`${os.availableParallelism()} cores, Node ${process.version}; building ${GATEWAY_ENTRY}`);
  execFileSync('npm', ['run', 'build', '--silent'], { stdio: 'inherit' });
  const databaseUrl = await prepareCatalogue(serverUrl, 'bench', log);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const inputs = await readWorkloadInputs(client);
  await client.end();
  const postgresTime = await openPostgresTime(databaseUrl);
  if ('unavailable' in postgresTime) throw new Error(postgresTime.unavailable);
  const chosen = workloads(
    inputs,
    restOperation(productsRoute, `/products?market=${MARKET}&limit=15`),
  ).filter(
    (w) => only.some((id) => w.id.startsWith(id)) && !w.requests.some((request) => request.partner),
  );

  const rows: Row[] = [];
  const loadAverage = os.loadavg()[0]!;
  for (let round = 1; round <= rounds; round++) {
    // Alternating the order each round, so that drift on this shared machine falls on both.
    const order = round % 2 === 1 ? workerCounts : [...workerCounts].reverse();
    for (const workers of order) {
      const gateway = await startGateway(databaseUrl, workers);
      try {
        for (const workload of chosen) {
          // Warms every worker (round robin) and the database's caches.
          await runLoad({
            baseUrl: `http://127.0.0.1:${PORT}`,
            requests: workload.requests,
            token: '',
            connections,
            durationSeconds: Math.min(3, durationSeconds),
          });
          const row = await measure(gateway.pid!, workers, workload, postgresTime);
          log(
            `round ${round} ${workload.id} workers=${workers}: ${row.requestsPerSecond.toFixed(0)} req/s, ` +
              `p99 ${row.p99.toFixed(1)} ms, gateway ${row.gatewayCpuMsPerRequest.toFixed(2)} CPU-ms/req, ` +
              `failures ${row.failures}`,
          );
          rows.push(row);
        }
      } finally {
        gateway.kill('SIGTERM');
        await once(gateway, 'exit');
      }
    }
  }

  const median = (numbers: number[]) => {
    const sorted = [...numbers].sort((a, b) => a - b);
    const middle = Math.floor(sorted.length / 2);
    return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  };
  const table: string[][] = [];
  for (const workload of chosen) {
    for (const workers of workerCounts) {
      const mine = rows.filter((row) => row.workload === workload.id && row.workers === workers);
      const of = (pick: (row: Row) => number) => median(mine.map(pick));
      const cores = mine[0]!.processCores.map((_, index) =>
        median(mine.map((row) => row.processCores[index] ?? 0)).toFixed(2),
      );
      table.push([
        workload.id,
        String(workers),
        of((row) => row.requestsPerSecond).toFixed(0),
        of((row) => row.p50).toFixed(1),
        of((row) => row.p99).toFixed(1),
        of((row) => row.gatewayCpuMsPerRequest).toFixed(2),
        cores.join(' / '),
        of((row) => row.postgresCpuMsPerRequest).toFixed(2),
        `${(of((row) => row.machineBusy) * 100).toFixed(0)} %`,
        String(mine.reduce((sum, row) => sum + row.failures, 0)),
      ]);
    }
  }
  process.stdout.write(
    `Medians of ${rounds} rounds of ${durationSeconds} s, ${connections} connections, ` +
      `bench scale, ${os.availableParallelism()} cores:\n\n` +
      markdownTable(
        [
          'workload',
          'processes',
          'req/s',
          'p50 ms',
          'p99 ms',
          'gateway CPU-ms/req',
          'cores used: primary / workers',
          'Postgres CPU-ms/req',
          'machine busy',
          'failures',
        ],
        table,
      ) +
      `\nLoad average at the start: ${loadAverage.toFixed(1)}.\n`,
  );
  await postgresTime.close();
}

main().catch(exitOnFailure);
