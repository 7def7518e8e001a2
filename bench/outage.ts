/**
 * The outage probe of docs/operations.md: the service as a process on a scratch PostgreSQL
 * cluster of its own, under a steady load of REST and GraphQL requests (150 a second by
 * default), while the cluster restarts ten times and stops twice for 3 s. Prints whether the
 * process survived, the answers by status, and how long after PostgreSQL accepted connections
 * again the first request succeeded. `node --import tsx bench/outage.ts [--rate N]`.
 */
import { execFileSync, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/helpers/process.ts';
import { createScratchCluster } from '../test/helpers/scratch-cluster.ts';

const RESTARTS = 10;
const STOPS = 2;
const STOP_MS = 3000;
const SETTLE_MS = 1500;

const { values } = parseArgs({ options: { rate: { type: 'string', default: '150' } } });
const rate = Number(values.rate);
const root = new URL('..', import.meta.url).pathname;

const cluster = await createScratchCluster();
try {
  const databaseUrl = cluster.url('catalogue');
  execFileSync('psql', [cluster.url(), '-qc', 'create database catalogue']);
  const env = { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' };
  execFileSync(process.execPath, ['--import', 'tsx', 'src/main.ts', 'seed'], { cwd: root, env });
  const port = await freePort();
  const service = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    // Every request reaches the database: no cache, no rate limit.
    env: {
      ...env,
      PORT: String(port),
      SEED_ON_EMPTY: 'false',
      RESPONSE_CACHE_TTL_SECONDS: '0',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exitCode: number | null | undefined;
  service.on('exit', (code) => (exitCode = code));
  const base = `http://127.0.0.1:${port}`;
  while (
    !(await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    ))
  )
    await sleep(200);

  const answers: Record<string, number> = {};
  let lastSuccess = 0;
  const ask = async (turn: number) => {
    const graphql = turn % 2 === 1;
    const label = graphql ? 'GraphQL' : 'REST';
    try {
      const response = graphql
        ? await fetch(`${base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ query: '{ products(market: SE, first: 5) { totalCount } }' }),
          })
        : await fetch(`${base}/v1/products?market=se&limit=5&fields=id,name`);
      await response.text();
      const retry = response.status === 503 && response.headers.has('retry-after');
      const key = `${label} ${response.status}${retry ? ' with Retry-After' : ''}`;
      answers[key] = (answers[key] ?? 0) + 1;
      if (response.status === 200) lastSuccess = performance.now();
    } catch (error) {
      const key = `${label} failed: ${String((error as Error).cause ?? error)}`;
      answers[key] = (answers[key] ?? 0) + 1;
    }
  };
  let loading = true;
  let sent = 0;
  const started = performance.now();
  const load = (async () => {
    while (loading) {
      void ask(sent++);
      await sleep(1000 / rate);
    }
  })();
  /** Milliseconds from PostgreSQL accepting again to the next successful request. */
  const recoveries: number[] = [];
  const recovered = async () => {
    const accepting = performance.now();
    while (lastSuccess < accepting && performance.now() - accepting < 10_000) await sleep(5);
    recoveries.push(Math.round(lastSuccess - accepting));
    await sleep(SETTLE_MS);
  };

  await sleep(2000);
  for (let i = 0; i < RESTARTS; i++) {
    await cluster.restart();
    await recovered();
  }
  for (let i = 0; i < STOPS; i++) {
    await cluster.stop();
    await sleep(STOP_MS);
    await cluster.start();
    await recovered();
  }
  loading = false;
  await load;
  await sleep(1000);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    JSON.stringify(
      {
        survived: exitCode === undefined,
        requests: sent,
        perSecond: Math.round(sent / seconds),
        answers,
        recoveryMs: recoveries,
      },
      null,
      2,
    ),
  );
  service.kill('SIGTERM');
  await new Promise((resolve) => service.on('exit', resolve));
} finally {
  await cluster.destroy();
}
