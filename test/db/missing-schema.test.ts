/**
 * A database without the service's tables (never migrated, or a table dropped afterwards) is
 * a deployment fault, not a defect: REST, GraphQL and the token endpoint answer 503 with
 * `Retry-After`, and /readyz says why. On PGlite and on the Postgres server alike.
 */
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';

const opened: { app: App; database: TestDatabase }[] = [];
afterAll(async () => {
  for (const { app, database } of opened) {
    await app.dispose();
    await database.dispose();
  }
});

async function appOn(contents: 'empty' | 'seeded'): Promise<App> {
  const database = await createTestDatabase({ contents });
  const app = createApp({ config: loadConfig({}), database, logger: pino({ level: 'silent' }) });
  opened.push({ app, database });
  return app;
}

/** REST, GraphQL and the token endpoint each answer 503 with Retry-After, in their own shape. */
async function expectUnavailable(app: App, graphqlQuery: string, restPath: string) {
  const requests = {
    rest: new Request(`http://test${restPath}`),
    graphql: new Request('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: graphqlQuery }),
    }),
    token: new Request('http://test/partner-search/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=demo-partner&client_secret=demo-secret',
    }),
  };
  const bodies: Record<string, unknown> = {};
  for (const [name, request] of Object.entries(requests)) {
    const response = await app.fetch(request);
    expect([name, response.status, response.headers.get('retry-after')]).toEqual([name, 503, '5']);
    bodies[name] = await response.json();
  }
  const unavailable = 'the catalogue is unavailable';
  expect(bodies.rest).toMatchObject({ error: { code: 'http.503', message: unavailable } });
  expect(bodies.token).toMatchObject({ error: { code: 'http.503', message: unavailable } });
  expect(bodies.graphql).toMatchObject({
    errors: [{ message: unavailable, extensions: { code: 'SERVICE_UNAVAILABLE' } }],
  });
  // The header travels in the response, not in the body.
  expect(JSON.stringify(bodies.graphql)).not.toContain('"http"');
}

describe(`a database without the service's tables on ${databaseKind}`, () => {
  it('never migrated: 503 with Retry-After everywhere, /readyz migrating', async () => {
    const app = await appOn('empty');
    await expectUnavailable(app, '{ markets { code } }', '/suggestions?market=se');
    const ready = await app.fetch(new Request('http://test/readyz'));
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'migrating' });
  });

  it('tables dropped after migrating: 503 with Retry-After, /readyz names them', async () => {
    const app = await appOn('seeded');
    const database = opened.at(-1)!.database;
    const products = '{ products(market: SE, first: 3) { edges { node { id name } } } }';
    const before = await app.fetch(new Request('http://test/readyz'));
    expect(before.status).toBe(200);

    // What listings read, and what the token endpoint reads.
    await sql`drop table product_market_summaries, api_clients cascade`.execute(database.db);
    await expectUnavailable(app, products, '/products?market=se&limit=3');

    const after = await app.fetch(new Request('http://test/readyz'));
    expect(after.status).toBe(503);
    expect(await after.json()).toEqual({
      status: 'unavailable',
      reason: 'tables missing',
      missing: ['product_market_summaries', 'api_clients'],
    });
  });
});
