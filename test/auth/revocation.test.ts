/**
 * A revoked client's tokens are refused within moments, by every process on the database
 * (docs/operations.md, "API clients"), not only when they expire. Two apps stand for two
 * processes: on a server each has its own pool and listening connection, and the client is
 * added and revoked by `npm run clients` as a real process; the embedded database is one
 * process's own, so there both apps share it, and the command's two steps (the change and its
 * notice) run in the test. The token is issued by one app and used on the other.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { announceNotice } from '../../src/changes/notices.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { deleteApiClient } from '../../src/db/repositories/api-clients.ts';
import { insertPartnerClient } from '../helpers/clients.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { runToEnd } from '../helpers/process.ts';
import { clientToken } from '../feeds/shop-client.ts';

/** Each case runs the command, a process of its own, twice on a server. */
const CASE_TIMEOUT_MS = 180_000;
/**
 * How soon the other process refuses the token once the command has ended: the notice and
 * one reading of the clients take milliseconds; the bound leaves room for a busy machine.
 */
const TOLD_BOUND_MS = 5_000;
/** TOKEN_CLIENTS_REFRESH_SECONDS of the case where no notice is sent. */
const REFRESH_SECONDS = 2;
const TOKEN_SECRET = 'revocation-test-token-secret-0123456789abcdef';

let database: TestDatabase;
let second: DatabaseHandle | undefined;
const apps: App[] = [];

beforeAll(async () => {
  database = await createTestDatabase({ contents: 'migrated' });
  // A process of its own on a server: its own pool, its own listening connection.
  if (database.url) second = await openDatabase({ url: database.url, poolSize: 2 });
});
afterAll(async () => {
  for (const app of apps) await app.dispose();
  await second?.close();
  await database?.dispose();
});

/** Two apps, one per "process", with `env`, both following the database's notices. */
async function twoProcesses(env: Record<string, string> = {}): Promise<[App, App]> {
  const config = loadConfig({
    TOKEN_SECRET,
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    ...env,
  });
  const logger = pino({ level: 'silent' });
  const built = [database, second ?? database].map((handle) =>
    createApp({ config, database: handle, logger }),
  );
  apps.push(...built);
  await Promise.all(built.map((app) => app.listening));
  return built as [App, App];
}

interface Credentials {
  clientId: string;
  clientSecret: string;
}

function clients(...args: string[]) {
  return runToEnd('src/main.ts', ['clients', ...args], {
    DATABASE_URL: database.url!,
    LOG_LEVEL: 'warn',
  });
}

/** A partner's client, added as an operator adds one (the command, on a server). */
async function addClient(ref: string): Promise<Credentials> {
  if (!database.url) {
    const credentials = { clientId: `partner-${ref}`, clientSecret: `secret-of-${ref}` };
    const { clientId: id, clientSecret: secret } = credentials;
    await insertPartnerClient(database.db, { id, secret, refs: [ref] });
    await announceNotice(database.db, { kind: 'clients-changed' });
    return credentials;
  }
  const added = await clients('add-partner', `Client ${ref}`, '--ref', ref, '--json');
  expect(added.stderr).toBe('');
  expect(added.code).toBe(0);
  return JSON.parse(added.stdout) as Credentials;
}

/** Revokes it as an operator does: the command on a server, its two steps on PGlite. */
async function revoke(clientId: string): Promise<void> {
  if (!database.url) {
    expect(await deleteApiClient(database.db, clientId)).toBe(true);
    await announceNotice(database.db, { kind: 'clients-changed' });
    return;
  }
  const revoked = await clients('revoke', clientId);
  expect(revoked.stderr).toBe('');
  expect(revoked.code).toBe(0);
}

function tokenFrom(app: App, { clientId, clientSecret }: Credentials): Promise<string> {
  return clientToken(
    (path, init) => app.fetch(new Request(`http://test${path}`, init)),
    clientId,
    clientSecret,
  );
}

/** A public GraphQL request with the token: its status and, when refused, why. */
async function withToken(app: App, token: string): Promise<string> {
  const response = await app.fetch(
    new Request('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ __typename }' }),
    }),
  );
  const body = (await response.json()) as { errors?: { message: string }[] };
  return [response.status, body.errors?.[0]?.message].filter(Boolean).join(' ');
}

const REFUSED = '401 the access token has been revoked';

/**
 * Two processes that both know partner `id` with secret `first` (added and announced), and
 * a token of it from the first that the second accepts.
 */
async function knownToBoth(id: string) {
  const [issuer, other] = await twoProcesses({ TOKEN_CLIENTS_REFRESH_SECONDS: '3600' });
  const first = await insertPartnerClient(database.db, { id, secret: 'first', refs: [] });
  await announceNotice(database.db, { kind: 'clients-changed' });
  const old = await tokenFrom(issuer, { clientId: id, clientSecret: 'first' });
  await vi.waitFor(async () => expect(await withToken(other, old)).toBe('200'), {
    timeout: TOLD_BOUND_MS,
  });
  return { issuer, other, first, old };
}

describe(`a revoked client's tokens, on ${databaseKind}`, () => {
  it(
    'are refused by the other process as soon as it is told, however long its tokens live',
    async () => {
      // Reading the clients again on a timer would take an hour: only the notice can do it.
      const [issuer, other] = await twoProcesses({ TOKEN_CLIENTS_REFRESH_SECONDS: '3600' });
      const client = await addClient('told-ref');
      const token = await tokenFrom(issuer, client);
      expect(await withToken(other, token)).toBe('200');

      await revoke(client.clientId);
      await vi.waitFor(async () => expect(await withToken(other, token)).toBe(REFUSED), {
        timeout: TOLD_BOUND_MS,
        interval: 50,
      });
      expect(await withToken(issuer, token)).toBe(REFUSED);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'are refused once the client is added again under its id, with another secret',
    async () => {
      const id = 'partner-readded';
      const { issuer, other, first, old } = await knownToBoth(id);

      // Deleted and added again, as a forced reseed does with the demo client.
      await deleteApiClient(database.db, id);
      const again = await insertPartnerClient(database.db, { id, secret: 'second', refs: [] });
      expect(again.generation).not.toBe(first.generation);
      await announceNotice(database.db, { kind: 'clients-changed' });
      await vi.waitFor(async () => expect(await withToken(other, old)).toBe(REFUSED), {
        timeout: TOLD_BOUND_MS,
        interval: 50,
      });
      const renewed = await tokenFrom(issuer, { clientId: id, clientSecret: 'second' });
      expect(await withToken(other, renewed)).toBe('200');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'are accepted, from a client added without a notice, by a process that just read the list',
    async () => {
      const [issuer, other] = await twoProcesses({ TOKEN_CLIENTS_REFRESH_SECONDS: '3600' });
      // Both processes read the list a moment ago: the client is in neither.
      const id = 'partner-unannounced';
      await insertPartnerClient(database.db, { id, secret: 'unannounced', refs: [] });
      const token = await tokenFrom(issuer, { clientId: id, clientSecret: 'unannounced' });
      expect(await withToken(other, token)).toBe('200');
    },
    CASE_TIMEOUT_MS,
  );

  it.skipIf(databaseKind === 'embedded')(
    'are refused within TOKEN_CLIENTS_REFRESH_SECONDS when the client goes without a notice',
    async () => {
      const [issuer, other] = await twoProcesses({
        TOKEN_CLIENTS_REFRESH_SECONDS: String(REFRESH_SECONDS),
      });
      const client = await addClient('silent-ref');
      const token = await tokenFrom(issuer, client);
      expect(await withToken(other, token)).toBe('200');

      // Deleted by hand, as `delete from api_clients` would: nobody is told.
      expect(await deleteApiClient(database.db, client.clientId)).toBe(true);
      await vi.waitFor(async () => expect(await withToken(other, token)).toBe(REFUSED), {
        timeout: REFRESH_SECONDS * 1000 + TOLD_BOUND_MS,
        interval: 100,
      });
    },
    CASE_TIMEOUT_MS,
  );
});
