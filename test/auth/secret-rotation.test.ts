/**
 * Rotating TOKEN_SECRET (docs/operations.md, "Rotating TOKEN_SECRET"): apps on one catalogue
 * stand for the service before, during and after the rotation. A token issued with the old
 * secret keeps working once the new secret is put first beside it (and a token of the new
 * secret works there too), and is a 401 once the old secret is removed, on a partner route
 * and on a public one alike.
 */
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { databaseKind } from '../helpers/database.ts';
import { demoTokenRequest } from '../helpers/rest.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const OLD = 'old-token-secret-for-the-rotation-test-0123';
const NEW = 'new-token-secret-for-the-rotation-test-4567';

const catalogue = useSeededCatalogue();
const apps: App[] = [];

afterAll(async () => {
  for (const app of apps) await app.dispose();
});

async function serviceWith(tokenSecret: string): Promise<App> {
  const config = loadConfig({
    TOKEN_SECRET: tokenSecret,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
  });
  const app = createApp({
    config,
    database: catalogue.database,
    logger: pino({ level: 'silent' }),
  });
  apps.push(app);
  await app.listening;
  return app;
}

async function demoToken(app: App): Promise<string> {
  const response = await app.fetch(demoTokenRequest('http://test'));
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** The statuses of a partner route and a public route called with the token. */
async function statusesWith(app: App, token: string): Promise<[number, number]> {
  const headers = { authorization: `Bearer ${token}` };
  const paths = [
    `/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&limit=1`,
    '/suggestions?market=se&limit=1',
  ];
  const statuses = [];
  for (const path of paths) {
    const response = await app.fetch(new Request(`http://test${path}`, { headers }));
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses as [number, number];
}

describe(`rotating TOKEN_SECRET on ${databaseKind}`, () => {
  it('keeps the old secret’s tokens while it follows the new one, and refuses them once it is removed', async () => {
    const before = await serviceWith(OLD);
    const oldToken = await demoToken(before);
    expect(await statusesWith(before, oldToken)).toEqual([200, 200]);

    // Step 1: the new secret first, the old one after it.
    const during = await serviceWith(`${NEW},${OLD}`);
    expect(await statusesWith(during, oldToken)).toEqual([200, 200]);
    const newToken = await demoToken(during);
    expect(newToken).not.toBe(oldToken);
    expect(await statusesWith(during, newToken)).toEqual([200, 200]);
    // A process not yet given the new secret refuses what the new one signed: put the new
    // secret second everywhere first when processes change one at a time (the docs' three steps).
    expect(await statusesWith(before, newToken)).toEqual([401, 401]);

    // Step 2: the old secret removed.
    const after = await serviceWith(NEW);
    expect(await statusesWith(after, oldToken)).toEqual([401, 401]);
    expect(await statusesWith(after, newToken)).toEqual([200, 200]);
  });
});
