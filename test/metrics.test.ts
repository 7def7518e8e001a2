/**
 * /metrics: the Prometheus text format, counters that move by exactly what a request did
 * (its SQL statements counted like test/graph/statements.test.ts counts them), route labels
 * from a bounded set, and one registry per app.
 */
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { buildOpenApiDocument } from '../src/http/openapi.ts';
import { packageVersion } from '../src/version.ts';
import { restRoutes } from '../src/rest/routes/index.ts';
import { databaseKind } from './helpers/database.ts';
import { parseExposition, scrape, valueOf, type Exposition } from './helpers/prometheus.ts';
import { useSeededCatalogue } from './helpers/seeded.ts';

const catalogue = useSeededCatalogue();
const apps: App[] = [];
afterAll(async () => {
  for (const app of apps) await app.dispose();
});

function newApp(env: Record<string, string> = {}): App {
  const app = createApp({
    config: loadConfig(env),
    database: catalogue.database,
    logger: pino({ level: 'silent' }),
  });
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
      process_resident_memory_bytes: 'gauge',
      process_cpu_seconds_total: 'counter',
      nodejs_eventloop_lag_seconds: 'gauge',
    });
    expect(valueOf(exposition, 'process_resident_memory_bytes')).toBeGreaterThan(0);
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
      expect(difference(after, before)('catalogue_sql_statements_total'), path).toBe(
        statements.length,
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
