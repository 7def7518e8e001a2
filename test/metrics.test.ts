/**
 * /metrics: the Prometheus text format as promtool reads it, counters that move by exactly
 * what a request did (its SQL statements counted like test/graph/statements.test.ts counts
 * them, and timed), route labels from a bounded set, one registry per app; requests in flight
 * and a pool's waiting statements while its one connection is held; Redis connections; the
 * build; the catalogue clock. Across cluster workers: test/metrics/cluster.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it, vi } from 'vitest';
import { createApp, type App } from '../src/app.ts';
import { startCatalogueClock } from '../src/cli/catalogue-clock.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../src/db/client.ts';
import { buildOpenApiDocument } from '../src/http/openapi.ts';
import { packageVersion } from '../src/version.ts';
import { restRoutes } from '../src/rest/routes/index.ts';
import { databaseKind } from './helpers/database.ts';
import { isDocumented } from './helpers/documented-metrics.ts';
import { freePort, root } from './helpers/process.ts';
import { parseExposition, scrape, valueOf, type Exposition } from './helpers/prometheus.ts';
import { promtool, requirePromtool } from './helpers/promtool.ts';
import { useSeededCatalogue } from './helpers/seeded.ts';

requirePromtool();

const catalogue = useSeededCatalogue();
const apps: App[] = [];
afterAll(async () => {
  for (const app of apps) await app.dispose();
});

function newApp(env: Record<string, string> = {}, database: DatabaseHandle = catalogue.database) {
  const app = createApp({ config: loadConfig(env), database, logger: pino({ level: 'silent' }) });
  apps.push(app);
  return app;
}

/** A request through `app`, with the SQL statements it ran. */
async function fetchCounting(app: App, path: string, init: RequestInit = {}) {
  catalogue.statements.length = 0;
  const response = await app.fetch(new Request(`http://test${path}`, init));
  await response.arrayBuffer();
  return { status: response.status, statements: [...catalogue.statements] };
}

function difference(after: Exposition, before: Exposition) {
  return (name: string, labels: Record<string, string> = {}) =>
    valueOf(after, name, labels) - valueOf(before, name, labels);
}

describe(`/metrics on ${databaseKind}`, () => {
  it('answers the Prometheus text format without a token', async () => {
    const response = await catalogue.app.fetch(new Request('http://test/metrics'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const exposition = parseExposition(await response.text());
    expect(Object.fromEntries(exposition.types)).toMatchObject({
      catalogue_http_requests_total: 'counter',
      catalogue_http_request_duration_seconds: 'histogram',
      catalogue_sql_statements_total: 'counter',
      catalogue_response_cache_hits_total: 'counter',
      catalogue_response_cache_misses_total: 'counter',
      catalogue_response_cache_errors_total: 'counter',
      catalogue_http_requests_in_flight: 'gauge',
      catalogue_sql_statement_duration_seconds: 'histogram',
      catalogue_database_pool_connections_in_use: 'gauge',
      catalogue_database_pool_connections_idle: 'gauge',
      catalogue_database_pool_connections_max: 'gauge',
      catalogue_database_pool_waiting: 'gauge',
      catalogue_live_subscriptions: 'gauge',
      catalogue_live_events_delivered_total: 'counter',
      catalogue_live_subscribers_fell_behind_total: 'counter',
      catalogue_redis_connected: 'gauge',
      catalogue_build_info: 'gauge',
      process_resident_memory_bytes: 'gauge',
      process_cpu_seconds_total: 'counter',
      nodejs_eventloop_lag_seconds: 'gauge',
      nodejs_active_handles: 'gauge',
    });
    expect(valueOf(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    // A scrape is in flight while it is answered.
    expect(valueOf(exposition, 'catalogue_http_requests_in_flight')).toBe(1);
  });

  it('passes promtool’s check of the exposition format and of metric names', async () => {
    const app = newApp({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: 'metrics-promtool:' });
    await app.fetch(new Request('http://test/healthz'));
    const text = await (await app.fetch(new Request('http://test/metrics'))).text();
    const checked = await promtool(['check', 'metrics'], text);
    expect(checked.output).toBe('');
    expect(checked.code).toBe(0);
    // prom-client's `_total` gauges are dropped: their sums by type remain.
    expect(text).not.toMatch(/^nodejs_active_\w+_total/m);
    // Every one is listed for operators.
    for (const family of parseExposition(text).types.keys()) {
      expect(isDocumented(family), family).toBe(true);
    }
  });

  it('is read by the benchmark runner by these names (one unlabelled statement counter line)', async () => {
    const text = await (await catalogue.app.fetch(new Request('http://test/metrics'))).text();
    expect(text).toMatch(/^catalogue_sql_statements_total \d+$/m);
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
  });

  it('moves the statement counter by the statements a request ran, REST and GraphQL', async () => {
    const app = newApp({ RESPONSE_CACHE_TTL_SECONDS: '0' });
    await fetchCounting(app, '/graphql', graphqlInit('{ markets { code } }')); // markets, once
    for (const [path, init] of [
      ['/products?market=se&limit=5', {}],
      ['/suggestions?market=se&product=phone', {}],
      [
        '/graphql',
        graphqlInit('{ products(market: NO, first: 3) { edges { node { name gtins } } } }'),
      ],
    ] as const) {
      const before = await scrape(app);
      const { status, statements } = await fetchCounting(app, path, init);
      const after = await scrape(app);
      expect(status, path).toBe(200);
      expect(statements.length, path).toBeGreaterThan(1);
      const moved = difference(after, before);
      expect(moved('catalogue_sql_statements_total'), path).toBe(statements.length);
      // Each timed, by its kind.
      expect(moved('catalogue_sql_statement_duration_seconds_count'), path).toBe(statements.length);
      expect(moved('catalogue_sql_statement_duration_seconds_count', { kind: 'select' })).toBe(
        statements.filter((sql) => /^\s*select\b/i.test(sql)).length,
      );
    }
  });

  it('counts a request once, by bounded route, method and status, with its duration', async () => {
    const app = newApp();
    const before = await scrape(app);
    await fetchCounting(app, '/suggestions?market=se');
    await fetchCounting(app, '/suggestions?market=xx'); // 400
    await fetchCounting(app, '/v1/products/1?market=se');
    await fetchCounting(app, '/graphql', graphqlInit('{ markets { code } }'));
    await fetchCounting(app, '/partner-search/products?market=se&ref=demo-ref'); // 401
    await fetchCounting(app, '/partner-search/token', { method: 'POST' }); // 415
    await fetchCounting(app, '/healthz');
    await fetchCounting(app, '/docs');
    for (const path of ['/no/such/path', '/secret-123', '/v1/products/1/extra']) {
      await fetchCounting(app, path);
    }
    await fetchCounting(app, '/suggestions?market=se', { method: 'DELETE' }); // 405
    const after = await scrape(app);
    const moved = difference(after, before);
    const requests = (route: string, method: string, status: string) =>
      moved('catalogue_http_requests_total', { route, method, status });

    expect(requests('suggestions', 'GET', '200')).toBe(1);
    expect(requests('suggestions', 'GET', '400')).toBe(1);
    expect(requests('suggestions', 'DELETE', '405')).toBe(1);
    expect(requests('genericProduct', 'GET', '200')).toBe(1);
    expect(requests('graphql', 'POST', '200')).toBe(1);
    expect(requests('partnerSearchProducts', 'GET', '401')).toBe(1);
    expect(requests('token', 'POST', '415')).toBe(1);
    expect(requests('/healthz', 'GET', '200')).toBe(1);
    expect(requests('/docs', 'GET', '200')).toBe(1);
    expect(requests('unmatched', 'GET', '404')).toBe(3);
    expect(moved('catalogue_http_request_duration_seconds_count', { route: 'suggestions' })).toBe(
      3,
    );
    expect(moved('catalogue_http_request_duration_seconds_count', { route: 'unmatched' })).toBe(3);
    expect(
      moved('catalogue_http_request_duration_seconds_sum', { route: 'suggestions' }),
    ).toBeGreaterThan(0);

    // No raw path becomes a label: every route label is from the closed set.
    const allowed = new Set([
      ...restRoutes.map((route) => route.id),
      'graphql',
      'token',
      'unmatched',
      '/healthz',
      '/readyz',
      '/metrics',
      '/openapi.json',
      '/docs',
    ]);
    const labels = after.samples.flatMap((sample) =>
      sample.labels.route === undefined ? [] : [sample.labels.route],
    );
    expect(labels.length).toBeGreaterThan(0);
    for (const label of labels) expect(allowed, label).toContain(label);
    expect(JSON.stringify(after.samples)).not.toContain('secret-123');
  });

  it('folds an unknown method into OTHER', async () => {
    const app = newApp();
    await fetchCounting(app, '/healthz', { method: 'PROPFIND' });
    const metrics = await scrape(app);
    expect(valueOf(metrics, 'catalogue_http_requests_total', { method: 'OTHER' })).toBe(1);
  });

  it('counts response cache hits and misses', async () => {
    const app = newApp();
    // Following the catalogue's changes starts with a statement: not the requests'.
    await app.listening;
    const before = await scrape(app);
    const path = '/suggestions?market=dk&limit=2';
    const first = await fetchCounting(app, path);
    const second = await fetchCounting(app, path);
    expect(first.statements.length).toBeGreaterThan(0);
    expect(second.statements).toEqual([]);
    const moved = difference(await scrape(app), before);
    expect(moved('catalogue_response_cache_misses_total')).toBe(1);
    expect(moved('catalogue_response_cache_hits_total')).toBe(1);
  });

  it('keeps one registry per app: another app’s requests do not show', async () => {
    const first = newApp();
    const second = newApp();
    await fetchCounting(first, '/healthz');
    await fetchCounting(first, '/healthz');
    await fetchCounting(second, '/healthz');
    const requests = async (app: App) =>
      valueOf(await scrape(app), 'catalogue_http_requests_total', { route: '/healthz' });
    expect(await requests(first)).toBe(2);
    expect(await requests(second)).toBe(1);
  });

  it('counts a request in flight, and statements waiting for the pool’s one connection', async () => {
    // A handle of one connection on the same database, and that connection held.
    const database = await openDatabase({
      ...(catalogue.database.url
        ? { url: catalogue.database.url }
        : { pglite: catalogue.database.pglite! }),
      poolSize: 1,
    });
    try {
      const app = newApp({ RESPONSE_CACHE_TTL_SECONDS: '0' }, database);
      await app.listening;
      const held = await database.pool.connect();
      const pool = (exposition: Exposition, name: string) =>
        valueOf(exposition, `catalogue_database_pool_${name}`, { database: 'primary' });
      const waiting = app.fetch(new Request('http://test/products?market=se&limit=1'));
      let during = await scrape(app);
      await vi.waitFor(async () => {
        during = await scrape(app);
        expect(pool(during, 'waiting')).toBe(1);
      });
      expect(valueOf(during, 'catalogue_http_requests_in_flight')).toBe(2);
      expect(pool(during, 'connections_in_use')).toBe(1);
      expect(pool(during, 'connections_max')).toBe(1);
      held.release();
      expect((await waiting).status).toBe(200);
      const after = await scrape(app);
      expect(valueOf(after, 'catalogue_http_requests_in_flight')).toBe(1);
      expect(pool(after, 'waiting')).toBe(0);
      expect(pool(after, 'connections_in_use')).toBe(0);
      expect(pool(after, 'connections_idle')).toBe(1);
    } finally {
      await database.close();
    }
  });

  it('shows each Redis connection up (1) or down (0), and none without REDIS_URL', async () => {
    const redis = (exposition: Exposition) =>
      exposition.samples
        .filter((sample) => sample.name === 'catalogue_redis_connected')
        .map(({ labels, value }) => [labels.client, value]);
    const up = newApp({ REDIS_URL: inject('redisUrl'), REDIS_KEY_PREFIX: 'metrics-redis:' });
    await vi.waitFor(async () =>
      expect(redis(await scrape(up)).sort()).toEqual([
        ['rate_limits', 1],
        ['response_cache', 1],
      ]),
    );
    // Nothing listens there: the connections are refused, again and again.
    const down = newApp({ REDIS_URL: `redis://127.0.0.1:${await freePort()}` });
    await vi.waitFor(async () =>
      expect(redis(await scrape(down)).sort()).toEqual([
        ['rate_limits', 0],
        ['response_cache', 0],
      ]),
    );
    expect(redis(await scrape(newApp()))).toEqual([]);
  });

  it('labels the build with the version and BUILD_COMMIT, else the checkout’s HEAD', async () => {
    const build = async (app: App) =>
      (await scrape(app)).samples.filter((sample) => sample.name === 'catalogue_build_info');
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' });
    expect(await build(newApp())).toEqual([
      {
        name: 'catalogue_build_info',
        labels: { version: packageVersion(), commit: head.trim() },
        value: 1,
      },
    ]);
    expect(await build(newApp({ BUILD_COMMIT: 'abc1234' }))).toEqual([
      {
        name: 'catalogue_build_info',
        labels: { version: packageVersion(), commit: 'abc1234' },
        value: 1,
      },
    ]);
  });

  it('tells when the catalogue clock last brought the catalogue forward', async () => {
    const app = newApp();
    const startedAt = Date.now() / 1000;
    const clock = startCatalogueClock(catalogue.database.db, pino({ level: 'silent' }));
    try {
      await vi.waitFor(
        async () =>
          expect(
            valueOf(await scrape(app), 'catalogue_clock_last_success_timestamp_seconds'),
          ).toBeGreaterThanOrEqual(startedAt),
        { timeout: 30_000, interval: 200 },
      );
    } finally {
      clock.stop();
    }
  });

  it('is listed in the OpenAPI document with the other operations routes', () => {
    const document = buildOpenApiDocument(restRoutes, { version: packageVersion() });
    expect(document.paths['/metrics']?.get?.tags).toEqual(['Operations']);
  });
});

function graphqlInit(query: string): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  };
}
