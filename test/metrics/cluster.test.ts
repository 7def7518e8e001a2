/**
 * /metrics with WORKERS=2, as real processes: whichever worker a scrape reaches, it answers
 * with the sums over both workers (and the primary), so a counter equals the requests made and
 * never goes back, also when a worker dies and is replaced; what only makes sense per process
 * is labelled `worker`; promtool reads the exposition without a complaint; and every
 * connection to Postgres says what it is (`application_name`).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { onConnection } from '../helpers/database.ts';
import { documentedMetrics, isDocumented } from '../helpers/documented-metrics.ts';
import { parseExposition, valueOf, type Exposition } from '../helpers/prometheus.ts';
import { root, type StartedProcess } from '../helpers/process.ts';
import { promtool, requirePromtool } from '../helpers/promtool.ts';
import {
  emptyServerDatabase,
  getOnNewConnection,
  logged,
  PATIENCE_MS,
  startServe,
  workerPids,
} from '../helpers/serve-processes.ts';

const REQUESTS = 30;
const SCRAPES = 20;
const POOL_SIZE = 3;

requirePromtool();

describe('/metrics with WORKERS=2', { timeout: 3 * PATIENCE_MS }, () => {
  let database: Awaited<ReturnType<typeof emptyServerDatabase>>;
  let primary: StartedProcess | undefined;
  let port: unknown;
  const startedAt = Math.floor(Date.now() / 1000);

  beforeAll(async () => {
    database = await emptyServerDatabase();
    primary = startServe(database.url, {
      WORKERS: '2',
      SEED_ON_EMPTY: 'false',
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      REDIS_URL: inject('redisUrl'),
      REDIS_KEY_PREFIX: `metrics-cluster-${randomBytes(4).toString('hex')}:`,
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    });
    [{ port }] = (await logged(primary, 'listening', 2)) as [{ port: unknown }];
    await logged(primary, 'all workers listening');
  }, 2 * PATIENCE_MS);
  afterAll(async () => {
    await primary?.kill();
    await database?.remove();
  });

  /** A scrape on a connection of its own: the primary hands each to the next worker. */
  async function scrape(): Promise<{ text: string; exposition: Exposition }> {
    const { status, body } = await getOnNewConnection(port, '/metrics');
    expect(status).toBe(200);
    return { text: body, exposition: parseExposition(body) };
  }

  const requests = (exposition: Exposition, route: string) =>
    valueOf(exposition, 'catalogue_http_requests_total', { route });

  it('sums both workers whichever answers: every scrape counts every request made', async () => {
    for (let i = 0; i < REQUESTS; i++) {
      expect((await getOnNewConnection(port, '/healthz')).status).toBe(200);
    }
    for (let scraped = 0; scraped < SCRAPES; scraped++) {
      const { exposition } = await scrape();
      expect(requests(exposition, '/healthz')).toBe(REQUESTS);
      // A scrape is counted once answered: the ones before it, not itself.
      expect(requests(exposition, '/metrics')).toBe(scraped);
      expect(valueOf(exposition, 'catalogue_http_requests_in_flight')).toBe(1);
    }
  });

  it('passes promtool, shows per-process gauges per worker, and what only the primary knows', async () => {
    const { text, exposition } = await scrape();
    const checked = await promtool(['check', 'metrics'], text);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);

    const workersOf = (name: string) =>
      exposition.samples.filter((sample) => sample.name === name).map((s) => s.labels.worker);
    expect(workersOf('process_start_time_seconds').sort()).toEqual(['1', '2', 'primary']);
    expect(workersOf('nodejs_eventloop_lag_p99_seconds').sort()).toEqual(['1', '2', 'primary']);
    expect(valueOf(exposition, 'catalogue_workers')).toBe(2);
    expect(valueOf(exposition, 'catalogue_worker_restarts_total')).toBe(0);
    // Summed over the workers: each has its own pool.
    expect(
      valueOf(exposition, 'catalogue_database_pool_connections_max', { database: 'primary' }),
    ).toBe(2 * POOL_SIZE);
    expect(valueOf(exposition, 'catalogue_redis_connected', { client: 'rate_limits' })).toBe(1);
    expect(valueOf(exposition, 'catalogue_redis_connected', { client: 'response_cache' })).toBe(1);
    expect(
      valueOf(exposition, 'catalogue_clock_last_success_timestamp_seconds'),
    ).toBeGreaterThanOrEqual(startedAt);
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
    expect(
      exposition.samples.find((sample) => sample.name === 'catalogue_build_info'),
    ).toMatchObject({ labels: { commit: commit.trim() }, value: 1 });
    expect(valueOf(exposition, 'catalogue_sql_statements_total')).toBeGreaterThan(0);
    expect(
      valueOf(exposition, 'catalogue_sql_statement_duration_seconds_count', { kind: 'select' }),
    ).toBeGreaterThan(0);
  });

  it('exposes exactly the metrics docs/operations.md lists', async () => {
    const families = [...(await scrape()).exposition.types.keys()];
    for (const family of families) expect(isDocumented(family), family).toBe(true);
    expect(families.filter((family) => family.startsWith('catalogue_')).sort()).toEqual(
      [...documentedMetrics().names].sort(),
    );
  });

  it('names every connection to Postgres: the pool and each worker’s listener', async () => {
    const names = await onConnection(database.url, async (client) => {
      const { rows } = await client.query<{ name: string; connections: number }>(
        `select application_name as name, count(*)::int as connections from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid()
          group by 1 order by 1`,
      );
      return rows;
    });
    expect(names.map(({ name }) => name)).toEqual([
      'catalogue-gateway/serve',
      'catalogue-gateway/serve/listen',
    ]);
    expect(names[1]!.connections).toBe(2);
  });

  it('keeps a dead worker’s counts: the sums never go back, and the restart is counted', async () => {
    const before = (await scrape()).exposition;
    const victim = (await workerPids(primary!))[0]!;
    process.kill(victim, 'SIGKILL');
    await logged(primary!, 'a worker died; restarting it');
    await logged(primary!, 'listening', 3);
    let after = before;
    await vi.waitFor(
      async () => {
        after = (await scrape()).exposition;
        expect(valueOf(after, 'catalogue_workers')).toBe(2);
      },
      { timeout: PATIENCE_MS, interval: 200 },
    );
    expect(valueOf(after, 'catalogue_worker_restarts_total')).toBe(1);
    expect(requests(after, '/healthz')).toBe(REQUESTS);

    let previous = after;
    for (let scraped = 0; scraped < SCRAPES; scraped++) {
      const next = (await scrape()).exposition;
      expect(requests(next, '/metrics')).toBeGreaterThan(requests(previous, '/metrics'));
      for (const counter of ['catalogue_sql_statements_total', 'process_cpu_seconds_total']) {
        expect(valueOf(next, counter), counter).toBeGreaterThanOrEqual(valueOf(previous, counter));
      }
      previous = next;
    }
    expect(requests(previous, '/metrics')).toBeGreaterThanOrEqual(requests(before, '/metrics'));
  });
});
