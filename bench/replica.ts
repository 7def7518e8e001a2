/**
 * Reads on the primary vs reads on a streaming replica (docs/operations.md, "Read
 * replicas"): a scratch primary seeded at the bench scale, its replica from `pg_basebackup -R`,
 * both on this machine; then one gateway process on the primary alone, and one with
 * DATABASE_REPLICA_URLS, each under a few read workloads. Prints per workload and mode:
 * req/s, p50/p99, the statements each server ran per request (the gateway's own
 * per-server counter), and the CPU each process spent per request (gateway, primary, replica;
 * from /proc). `node --import tsx bench/replica.ts [--scale bench] [--seconds 10]
 * [--connections 16]`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freePort } from '../test/helpers/process.ts';
import { createScratchCluster, type ScratchCluster } from '../test/helpers/scratch-cluster.ts';
import { runLoad } from './load.ts';
import { readWorkloadInputs, workloads, type WorkloadId } from './workloads.ts';

const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: 'bench' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
  },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
const WORKLOADS: WorkloadId[] = ['W1', 'W2', 'W4-rest'];
const root = new URL('..', import.meta.url).pathname;
const DATABASE = 'catalogue';
/** Linux's clock ticks per second for /proc/<pid>/stat times (USER_HZ). */
const TICKS_PER_SECOND = 100;

/** CPU milliseconds a process has used: user and system, and of its reaped children. */
function cpuMs(pid: number, withChildren: boolean): number {
  // The command name (field 2) may hold spaces; the fields after it are plain.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = (index: number) => Number(fields[index - 3]);
  const own = ticks(14) + ticks(15);
  const children = withChildren ? ticks(16) + ticks(17) : 0;
  return ((own + children) * 1000) / TICKS_PER_SECOND;
}

/** The cluster's postmaster: the parent of any of its backends. */
async function postmasterPid(cluster: ScratchCluster): Promise<number> {
  const client = new pg.Client(cluster.url(DATABASE));
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    const stat = readFileSync(`/proc/${rows[0]!.pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } finally {
    await client.end();
  }
}

/** CPU of a whole cluster: the postmaster, its live processes and those that have exited. */
function clusterCpuMs(postmaster: number): number {
  let total = cpuMs(postmaster, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) total += cpuMs(Number(entry), false);
    } catch {
      // It exited meanwhile: its time is in the postmaster's children's now.
    }
  }
  return total;
}

async function statementsByServer(base: string): Promise<Record<string, number>> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const counts: Record<string, number> = {};
  for (const [, database, value] of text.matchAll(
    /^catalogue_database_statements_total\{database="([^"]+)"\} (\S+)$/gm,
  )) {
    counts[database!] = Number(value);
  }
  return counts;
}

async function startGateway(env: Record<string, string>): Promise<{
  base: string;
  child: ChildProcess;
}> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      SEED_ON_EMPTY: 'false',
      CATALOGUE_CLOCK: 'false',
      // Every request reaches a database: no cache, no rate limit.
      RESPONSE_CACHE_TTL_SECONDS: '0',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    const body = await fetch(`${base}/readyz`).then(
      (response) =>
        response.ok
          ? (response.json() as Promise<{ databases?: { state?: string }[] }>)
          : undefined,
      () => undefined,
    );
    // With a replica: ready once it serves, so that the measurement reads from it.
    if (
      body &&
      (body.databases ?? []).every(({ state }) => state === undefined || state === 'serving')
    ) {
      return { base, child };
    }
    await sleep(200);
  }
}

const primary = await createScratchCluster();
let replica: ScratchCluster | undefined;
try {
  execFileSync('psql', [primary.url(), '-qc', `create database ${DATABASE}`]);
  const seedStarted = performance.now();
  execFileSync(
    process.execPath,
    ['--import', 'tsx', 'src/main.ts', 'seed', '--scale', values.scale!],
    {
      cwd: root,
      env: { PATH: process.env.PATH, DATABASE_URL: primary.url(DATABASE), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  console.error(
    `seeded (${values.scale}) in ${Math.round((performance.now() - seedStarted) / 1000)} s`,
  );
  // A base backup of the seeded primary: the replica starts with the catalogue in place.
  replica = await createScratchCluster({ replicaOf: primary });

  const inputsClient = new pg.Client(primary.url(DATABASE));
  await inputsClient.connect();
  const inputs = await readWorkloadInputs(inputsClient);
  await inputsClient.end();
  // W5, the one workload that needs W1's document, is not run here.
  const chosen = workloads(inputs, { query: '', variables: {} }).filter(({ id }) =>
    WORKLOADS.includes(id),
  );
  const postmasters = {
    primary: await postmasterPid(primary),
    replica: await postmasterPid(replica),
  };

  const rows: string[] = [];
  for (const mode of ['primary', 'replica'] as const) {
    const gateway = await startGateway({
      DATABASE_URL: primary.url(DATABASE),
      ...(mode === 'replica' ? { DATABASE_REPLICA_URLS: replica.url(DATABASE) } : {}),
    });
    try {
      for (const workload of chosen) {
        const load = { baseUrl: gateway.base, requests: workload.requests, token: '', connections };
        await runLoad({ ...load, durationSeconds: 3 });
        const statementsBefore = await statementsByServer(gateway.base);
        const cpuBefore = {
          gateway: cpuMs(gateway.child.pid!, false),
          primary: clusterCpuMs(postmasters.primary),
          replica: clusterCpuMs(postmasters.replica),
        };
        const result = await runLoad({ ...load, durationSeconds: seconds });
        const statementsAfter = await statementsByServer(gateway.base);
        const perRequest = (value: number) => (value / result.requests).toFixed(2);
        const statements = (server: string) =>
          perRequest((statementsAfter[server] ?? 0) - (statementsBefore[server] ?? 0));
        const cpu = {
          gateway: perRequest(cpuMs(gateway.child.pid!, false) - cpuBefore.gateway),
          primary: perRequest(clusterCpuMs(postmasters.primary) - cpuBefore.primary),
          replica: perRequest(clusterCpuMs(postmasters.replica) - cpuBefore.replica),
        };
        rows.push(
          `| ${workload.id} | reads on the ${mode} | ${Math.round(result.requestsPerSecond)} | ` +
            `${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.failures} | ` +
            `${statements('primary')} / ${statements('replica-1')} | ` +
            `${cpu.gateway} / ${cpu.primary} / ${cpu.replica} |`,
        );
        console.error(rows.at(-1));
      }
    } finally {
      gateway.child.kill('SIGTERM');
      await new Promise((resolve) => gateway.child.once('exit', resolve));
    }
  }
  console.log(
    [
      `scale ${values.scale}, ${connections} connections, ${seconds} s per run, after 3 s of warm-up`,
      '',
      '| workload | mode | req/s | p50 ms | p99 ms | failures | statements per request, primary / replica | CPU ms per request, gateway / primary / replica |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
} finally {
  await replica?.destroy();
  await primary.destroy();
}
