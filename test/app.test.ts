import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { migrations } from '../schema/migrations/index.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';

describe(`health and readiness on ${databaseKind}`, () => {
  let database: TestDatabase;
  let app: App;
  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'empty' });
    app = createApp({
      config: loadConfig({ SITE_URL_GB: 'https://gb.example' }),
      database,
      logger: pino({ level: 'silent' }),
    });
  });
  afterAll(() => database?.dispose());

  const get = (path: string, headers: Record<string, string> = {}) =>
    app.fetch(new Request(`http://test${path}`, { headers }));

  it('is healthy as soon as the process runs', async () => {
    const response = await get('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('is not ready while migrations are pending, and ready once applied', async () => {
    const before = await get('/readyz');
    expect(before.status).toBe(503);
    expect(await before.json()).toEqual({
      status: 'migrating',
      pendingMigrations: Object.keys(migrations),
    });

    await migrateToLatest(database.db);
    const after = await get('/readyz');
    expect(after.status).toBe(200);
    expect(after.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await after.json()).toEqual({ status: 'ready', database: databaseKind });
  });

  it('serves GraphiQL to a browser and answers queries at /graphql', async () => {
    const page = await get('/graphql', { accept: 'text/html' });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('GraphiQL');

    const response = await app.fetch(
      new Request('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ markets { code currency siteBaseUrl } }' }),
      }),
    );
    const { data } = (await response.json()) as {
      data: { markets: { code: string; currency: string; siteBaseUrl: string }[] };
    };
    expect(data.markets.map((m) => `${m.code}:${m.currency}`)).toEqual([
      'SE:SEK',
      'NO:NOK',
      'DK:DKK',
      'FI:EUR',
      'FR:EUR',
      'GB:GBP',
      'NZ:NZD',
    ]);
    expect(data.markets.find((m) => m.code === 'GB')?.siteBaseUrl).toBe('https://gb.example');
  });

  it('answers an unknown path with 404', async () => {
    expect((await get('/nope')).status).toBe(404);
  });
});

describe('without a database', () => {
  it('answers 503 to readiness, REST and GraphQL when the database cannot be reached', async () => {
    const { openDatabase } = await import('../src/db/client.ts');
    const unreachable = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/none' });
    const app = createApp({
      config: loadConfig({}),
      database: unreachable,
      logger: pino({ level: 'silent' }),
    });
    try {
      const response = await app.fetch(new Request('http://test/readyz'));
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({
        status: 'unavailable',
        reason: 'database unreachable',
      });

      const rest = await app.fetch(new Request('http://test/suggestions?market=se'));
      expect(rest.status).toBe(503);
      expect(rest.headers.get('retry-after')).toBe('5');
      expect(await rest.json()).toMatchObject({
        error: { code: 'http.503', message: 'the catalogue is unavailable' },
      });

      const graphql = await app.fetch(
        new Request('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: '{ markets { code } }' }),
        }),
      );
      const body = (await graphql.json()) as { errors: { extensions: { code: string } }[] };
      expect(body.errors[0]?.extensions.code).toBe('SERVICE_UNAVAILABLE');

      // The token endpoint reads clients itself: the same 503, not a 500.
      const token = await app.fetch(
        new Request('http://test/partner-search/token', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id=demo-partner&client_secret=demo-secret',
        }),
      );
      expect(token.status).toBe(503);
      expect(token.headers.get('retry-after')).toBe('5');

      // Operations keep answering: the metrics show the failures.
      const metrics = await app.fetch(new Request('http://test/metrics'));
      expect(metrics.status).toBe(200);
      const text = await metrics.text();
      expect(text).toContain(
        'catalogue_http_requests_total{route="suggestions",method="GET",status="503"} 1',
      );
      expect(text).toContain(
        'catalogue_http_requests_total{route="token",method="POST",status="503"} 1',
      );
    } finally {
      await app.dispose();
      await unreachable.close();
    }
  });
});
