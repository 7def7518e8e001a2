/**
 * The service as a process (`node --import tsx src/main.ts serve`, as the Docker image runs
 * it) on a scratch PostgreSQL cluster of its own, under steady REST and GraphQL load, while
 * the server restarts, stops for two seconds, loses a table and loses the whole database. The
 * process must live through all of it; every answer meanwhile is a 200 or a 503 with
 * `Retry-After`, never a 500 or a dropped connection; service comes back by itself once the
 * server accepts connections again, and /readyz follows.
 *
 * The cluster is its own whichever database the suite's pass uses, so it runs in both; it
 * needs the PostgreSQL server's binaries. The recovery times it measures are printed, not
 * asserted: the machine is shared with the rest of the suite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onConnection } from '../helpers/database.ts';
import { fillScratchDatabase, SCRATCH_DATABASE as DATABASE } from '../helpers/scratch-database.ts';
import { freePort, startNode } from '../helpers/process.ts';
import {
  createScratchCluster,
  requireServerBinaries,
  type ScratchCluster,
} from '../helpers/scratch-cluster.ts';

requireServerBinaries("the outage test needs PostgreSQL 15's server binaries (initdb, pg_ctl)");

/** Requests in flight at any moment: more than the pool's 10 connections, so some queue. */
const CONCURRENCY = 20;
/** Generous: a loaded CI machine may be slow, but a service that never recovers must fail. */
const PATIENCE_MS = 15_000;
const RESTARTS = 3;

const REST_PATHS = [
  '/products?market=se&limit=5',
  '/suggestions?market=se',
  '/products/10,11,23?market=se',
];
const GRAPHQL_QUERY = '{ products(market: SE, first: 5) { edges { node { id name } } } }';

type Kind = 'rest' | 'graphql';

/** One answer (or its absence) seen by the load. */
interface Outcome {
  kind: Kind;
  /** The HTTP status, or 'reset' when the connection failed without an answer. */
  status: number | 'reset';
  retryAfter: string | null;
  /** What the body says went wrong: REST's error.message, GraphQL's first extensions.code. */
  error: string | undefined;
  started: number;
  ended: number;
}

/** The gateway's process: its base URL, and a check that it still runs. */
interface Service {
  base: string;
  /** Fails the test, with the process's last output, once it has exited. */
  expectAlive(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it answers; fails at once if the service has died. */
async function waitFor<T>(
  service: Service | undefined,
  what: string,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = performance.now() + PATIENCE_MS;
  for (;;) {
    service?.expectAlive();
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${PATIENCE_MS} ms`);
    await sleep(20);
  }
}

/** Sends REST and GraphQL requests, CONCURRENCY at a time, until stopped. */
function startLoad(service: Service) {
  const outcomes: Outcome[] = [];
  let running = true;
  let sequence = 0;

  async function once(kind: Kind): Promise<Outcome> {
    const started = performance.now();
    const request =
      kind === 'rest'
        ? new Request(`${service.base}${REST_PATHS[sequence++ % REST_PATHS.length]}`)
        : new Request(`${service.base}/graphql`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify({ query: GRAPHQL_QUERY }),
          });
    try {
      const response = await fetch(request, { signal: AbortSignal.timeout(PATIENCE_MS) });
      const body = (await response.json()) as {
        error?: { message: string };
        errors?: { extensions?: { code?: string } }[];
      };
      return {
        kind,
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        error: kind === 'rest' ? body.error?.message : body.errors?.[0]?.extensions?.code,
        started,
        ended: performance.now(),
      };
    } catch {
      const ended = performance.now();
      return { kind, status: 'reset', retryAfter: null, error: undefined, started, ended };
    }
  }

  const workers = Array.from({ length: CONCURRENCY }, async (_, worker) => {
    for (let turn = worker; running; turn++) {
      outcomes.push(await once(turn % 2 === 0 ? 'rest' : 'graphql'));
    }
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

type Load = ReturnType<typeof startLoad>;

/** Status counts by kind ('503+retry-after' for a 503 that says when to come back). */
function tally(outcomes: Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { kind, status, retryAfter } of outcomes) {
    const key = `${kind} ${status}${status === 503 && retryAfter !== null ? '+retry-after' : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

function medianLatency(outcomes: Outcome[]): number {
  const latencies = outcomes.map((o) => o.ended - o.started).sort((a, b) => a - b);
  return Math.round(latencies[Math.floor(latencies.length / 2)] ?? NaN);
}

/** Every answer was a success, or a 503 saying the catalogue is unavailable and when to retry. */
function expectOnlySuccessOrUnavailable(outcomes: Outcome[]) {
  const wrong = outcomes.filter(
    ({ kind, status, retryAfter, error }) =>
      !(status === 200 && error === undefined) &&
      !(
        status === 503 &&
        retryAfter === '5' &&
        error === (kind === 'rest' ? 'the catalogue is unavailable' : 'SERVICE_UNAVAILABLE')
      ),
  );
  expect(wrong.slice(0, 5), JSON.stringify(tally(outcomes))).toEqual([]);
}

async function readiness(service: Service): Promise<number> {
  return (await fetch(`${service.base}/readyz`)).status;
}

/** A few hundred milliseconds of load on a healthy service: every answer a success. */
async function expectServing(service: Service) {
  const load = startLoad(service);
  await sleep(300);
  await load.stop();
  expect(tally(load.outcomes)).toEqual({
    'rest 200': expect.any(Number),
    'graphql 200': expect.any(Number),
  });
}

/** Waits until both kinds have answered 503 since `since`; /readyz must say 503 too. */
async function expectUnavailable(service: Service, load: Load, since: number) {
  await waitFor(service, 'REST and GraphQL 503s', async () => {
    const after = load.outcomes.filter((o) => o.started >= since && o.status === 503);
    const both = after.some((o) => o.kind === 'rest') && after.some((o) => o.kind === 'graphql');
    return both || undefined;
  });
  expect(await readiness(service)).toBe(503);
}

async function postmasterStart(url: string): Promise<string> {
  return onConnection(url, async (client) => {
    const { rows } = await client.query<{ started: string }>(
      'select pg_postmaster_start_time()::text as started',
    );
    return rows[0]!.started;
  });
}

/** When a new connection first finds a postmaster other than the one started at `previous`. */
function acceptingAgain(url: string, previous: string): Promise<number> {
  return waitFor(undefined, 'the server accepting connections again', async () => {
    const started = await postmasterStart(url).catch(() => previous);
    return started === previous ? undefined : performance.now();
  });
}

/** Measured from the moment the server accepted connections again. */
interface Recovery {
  /** Until the first REST and the first GraphQL success among requests sent after it. */
  firstSuccessMs: number;
  /** Until the end of the last failed request sent after it (0: none failed). */
  lastFailureMs: number;
  /** Until /readyz answered 200. */
  readyMs: number;
}

async function recoveryAfter(service: Service, load: Load, accepted: number): Promise<Recovery> {
  const [firstSuccess, ready] = await Promise.all([
    waitFor(service, 'REST and GraphQL successes', async () => {
      const after = load.outcomes.filter((o) => o.started >= accepted && o.status === 200);
      const rest = after.find((o) => o.kind === 'rest');
      const graphql = after.find((o) => o.kind === 'graphql');
      return rest && graphql ? Math.max(rest.ended, graphql.ended) : undefined;
    }),
    waitFor(service, '/readyz 200', async () =>
      (await readiness(service)) === 200 ? performance.now() : undefined,
    ),
  ]);
  // A moment of steady load, so that a failure after the first successes would show.
  await sleep(500);
  const failures = load.outcomes.filter((o) => o.started >= accepted && o.status !== 200);
  return {
    firstSuccessMs: Math.round(firstSuccess - accepted),
    lastFailureMs: Math.round(Math.max(accepted, ...failures.map((o) => o.ended)) - accepted),
    readyMs: Math.round(ready - accepted),
  };
}

describe('the service on a Postgres server that fails under load', () => {
  let cluster: ScratchCluster | undefined;
  let stopService = async () => {};
  let service: Service;
  const report: Record<string, unknown> = {};

  async function startService(databaseUrl: string): Promise<Service> {
    const port = await freePort();
    const gateway = startNode(
      ['--import', 'tsx', 'src/main.ts', 'serve'],
      {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: '127.0.0.1',
        SEED_ON_EMPTY: 'false',
        LOG_LEVEL: 'warn',
        // Every request reaches the database, and the load is not rate limited.
        RESPONSE_CACHE_TTL_SECONDS: '0',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
        RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      },
      // Its warnings under load add up; the tail explains a death.
      20_000,
    );
    stopService = async () => void (await gateway.kill());
    const started: Service = {
      base: `http://127.0.0.1:${port}`,
      expectAlive() {
        if (!gateway.hasExited()) return;
        const { exitCode, signalCode } = gateway.child;
        const output = `${gateway.stdout()}${gateway.stderr()}`;
        throw new Error(`the service exited (${exitCode ?? signalCode}):\n${output}`);
      },
    };
    await waitFor(started, 'the service ready', async () =>
      (await readiness(started).catch(() => 0)) === 200 ? true : undefined,
    );
    return started;
  }

  beforeAll(async () => {
    cluster = await createScratchCluster();
    await fillScratchDatabase(cluster, 'seeded');
    service = await startService(cluster.url(DATABASE));
    // Warm (compiled code, the market directory), so that the faults meet a steady state.
    await expectServing(service);
  });

  afterAll(async () => {
    await stopService();
    await cluster?.destroy();
    console.info(`database outage figures: ${JSON.stringify(report)}`);
  });

  it('lives through restarts under load: 200 or 503 with Retry-After, then full service', async () => {
    const load = startLoad(service);
    const recoveries: Recovery[] = [];
    try {
      await sleep(1000);
      report.steadyMedianLatencyMs = medianLatency(load.outcomes);
      for (let restart = 0; restart < RESTARTS; restart++) {
        const accepting = acceptingAgain(cluster!.url(), await postmasterStart(cluster!.url()));
        await cluster!.restart();
        recoveries.push(await recoveryAfter(service, load, await accepting));
      }
    } finally {
      await load.stop();
    }
    report.restarts = { survived: recoveries.length, of: RESTARTS, recoveries };
    report.restartAnswers = tally(load.outcomes);
    service.expectAlive();
    expectOnlySuccessOrUnavailable(load.outcomes);
    await expectServing(service);
  });

  it('answers 503 with Retry-After while the server is stopped, and /readyz follows', async () => {
    const load = startLoad(service);
    let stoppedAnswers: Outcome[] = [];
    try {
      await sleep(300);
      const previous = await postmasterStart(cluster!.url());
      await cluster!.stop();
      const stopped = performance.now();
      await expectUnavailable(service, load, stopped);
      await sleep(2000);
      expect(await readiness(service)).toBe(503);
      stoppedAnswers = load.outcomes.filter((o) => o.started >= stopped);
      const accepting = acceptingAgain(cluster!.url(), previous);
      await cluster!.start();
      report.stop = await recoveryAfter(service, load, await accepting);
    } finally {
      await load.stop();
    }
    report.stoppedAnswers = tally(stoppedAnswers);
    expect(tally(stoppedAnswers)).toEqual({
      'rest 503+retry-after': expect.any(Number),
      'graphql 503+retry-after': expect.any(Number),
    });
    service.expectAlive();
    expectOnlySuccessOrUnavailable(load.outcomes);
    expect(await readiness(service)).toBe(200);
    await expectServing(service);
  });

  it('answers 503 with Retry-After when a table is dropped, and /readyz says which', async () => {
    const load = startLoad(service);
    try {
      await sleep(300);
      const dropped = performance.now();
      await onConnection(cluster!.url(DATABASE), (client) =>
        client.query('drop table product_market_summaries cascade'),
      );
      await expectUnavailable(service, load, dropped);
      const response = await fetch(`${service.base}/readyz`);
      expect(await response.json()).toEqual({
        status: 'unavailable',
        reason: 'tables missing',
        missing: ['product_market_summaries'],
      });
    } finally {
      await load.stop();
    }
    report.tableDroppedAnswers = tally(load.outcomes);
    service.expectAlive();
    expectOnlySuccessOrUnavailable(load.outcomes);
  });

  it('answers 503 with Retry-After when the database is dropped', async () => {
    const load = startLoad(service);
    try {
      await sleep(300);
      const dropped = performance.now();
      await onConnection(cluster!.url(), (client) =>
        client.query(`drop database ${DATABASE} with (force)`),
      );
      await expectUnavailable(service, load, dropped);
      await sleep(500);
    } finally {
      await load.stop();
    }
    report.databaseDroppedAnswers = tally(load.outcomes);
    service.expectAlive();
    expectOnlySuccessOrUnavailable(load.outcomes);
  });
});
