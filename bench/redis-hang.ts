/**
 * The hung-Redis probe of docs/operations.md: the service as a process on a Postgres server
 * database of its own, with a redis-server of its own for the response cache and the rate
 * limits, under a closed-loop load (16 connections) of GraphQL requests, each looked up in
 * the cache, executed and stored, and counted against a rate limit too high to refuse any.
 * The Redis runs for 10 s, hangs (SIGSTOP) for 10 s, and runs again (SIGCONT) for 10 s;
 * printed per phase (the answers that came in it): requests a second, latency percentiles, how
 * many waited the command timeout or longer, the answers by status, and the service's Redis
 * log lines.
 * `node --import tsx bench/redis-hang.ts [--database URL] [--connections N] [--command-timeout MS]`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { childEnv, freePort, jsonLogLines, startNode } from '../test/helpers/process.ts';
import { startOwnRedis } from '../test/helpers/redis.ts';

const PHASE_MS = 10_000;
const WARM_UP_MS = 3_000;

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    connections: { type: 'string', default: '16' },
    'command-timeout': { type: 'string', default: '500' },
  },
});

/** One answer: when it came (ms from the start), how long it took, its status. */
interface Sample {
  answeredAt: number;
  ms: number;
  status: string;
}

/**
 * A product page by id, each id asked once: every answer is looked up in the cache, executed
 * and stored, so that the phases differ in what Redis costs, not in how many answers it holds.
 */
const request = (n: number): [string, RequestInit] => [
  '/graphql',
  {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: `{ product(market: SE, id: ${n}) { name brand { name } } }` }),
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

/** The answers that came in a phase; `waited`: how many took the command timeout or more. */
function summary(samples: Sample[], fromMs: number, toMs: number) {
  const inPhase = samples.filter(({ answeredAt }) => answeredAt >= fromMs && answeredAt < toMs);
  const latencies = inPhase.map(({ ms }) => ms).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const { status } of inPhase) statuses[status] = (statuses[status] ?? 0) + 1;
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests: inPhase.length,
    perSecond: Math.round(inPhase.length / ((toMs - fromMs) / 1000)),
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    max: round(latencies.at(-1) ?? NaN),
    waited: latencies.filter((ms) => ms >= Number(values['command-timeout'])).length,
    statuses,
  };
}

const name = `redis_hang_${randomBytes(4).toString('hex')}`;
const databaseUrl = new URL(values.database);
execFileSync('psql', [databaseUrl.toString(), '-qc', `create database ${name}`]);
databaseUrl.pathname = `/${name}`;
const redis = await startOwnRedis();
const port = await freePort();
const service = startNode(
  ['--import', 'tsx', 'src/main.ts', 'serve'],
  childEnv({
    DATABASE_URL: databaseUrl.toString(),
    SEED_ON_EMPTY: 'true',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_FORMAT: 'json',
    LOG_LEVEL: 'info',
    LOG_REQUEST_SAMPLE_RATE: '0',
    REDIS_URL: redis.url,
    REDIS_COMMAND_TIMEOUT_MS: values['command-timeout'],
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000000',
    RATE_LIMIT_CLIENT_PER_MINUTE: '1000000',
  }),
);
try {
  const base = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(`${base}/readyz`).then(
      ({ ok }) => ok,
      () => false,
    );
  while (!(await ready())) {
    if (service.hasExited()) throw new Error(`the service exited:\n${service.stderr()}`);
    await sleep(200);
  }

  const samples: Sample[] = [];
  let running = true;
  const origin = performance.now();
  const epochOrigin = Date.now();
  let sent = 0;
  const workers = Array.from({ length: Number(values.connections) }, async () => {
    while (running) {
      const [path, init] = request(++sent);
      const started = performance.now();
      let status: string;
      try {
        const response = await fetch(`${base}${path}`, init);
        await response.arrayBuffer();
        status = String(response.status);
      } catch (error) {
        status = `failed: ${String((error as Error).cause ?? error)}`;
      }
      const answered = performance.now();
      samples.push({ answeredAt: answered - origin, ms: answered - started, status });
    }
  });

  await sleep(WARM_UP_MS + PHASE_MS);
  const hungAt = performance.now() - origin;
  redis.hang();
  await sleep(PHASE_MS);
  const resumedAt = performance.now() - origin;
  redis.resume();
  await sleep(PHASE_MS);
  running = false;
  await Promise.all(workers);

  const redisLines = jsonLogLines(service)
    .filter(({ msg }) => /redis/i.test(String(msg)))
    .map(({ time, msg }) => ({ atMs: Math.round(Number(time) - epochOrigin), msg }));
  console.log(
    JSON.stringify(
      {
        running: summary(samples, WARM_UP_MS, hungAt),
        hung: summary(samples, hungAt, resumedAt),
        resumed: summary(samples, resumedAt, resumedAt + PHASE_MS),
        hungAtMs: Math.round(hungAt),
        resumedAtMs: Math.round(resumedAt),
        redisLines,
      },
      null,
      2,
    ),
  );
} finally {
  await service.kill();
  await redis.stop();
  execFileSync('psql', [values.database, '-qc', `drop database if exists ${name} with (force)`]);
}
