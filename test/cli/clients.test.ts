/**
 * `npm run clients` as real processes on a real database (PGlite in a data directory, or a
 * server database under TEST_DATABASE_URL), and what its clients then get at the token
 * endpoint from a real OAuth 2.0 client library (openid-client): a shop's client a token
 * carrying its shop, which its shop's access lets through and a partner route refuses; a
 * revoked client nothing.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as oauth from 'openid-client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseAccess } from '../../src/auth/caller.ts';
import { verifyClientSecret } from '../../src/auth/client-secrets.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { verifyToken } from '../../src/auth/tokens.ts';
import { createApp } from '../../src/app.ts';
import { lockDataDirectory } from '../../src/cli/data-directory-lock.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { createServerDatabase, dropServerDatabase, serverUrl } from '../helpers/database.ts';
import { insertBasics, shopIdOf } from '../helpers/fixtures.ts';
import { runToEnd, type Finished } from '../helpers/process.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

/** Each case runs the command (a process opening the database) a few times. */
const CASE_TIMEOUT_MS = 180_000;
const TOKEN_SECRET = 'clients-test-token-secret-0123456789abcdef';
const SECRET = /^[A-Za-z0-9_-]{43,}$/;

const temporaryDirectory = useTemporaryDirectories('gateway-clients-test-');
/** Where the commands and the app find the database: DATABASE_URL or EMBEDDED_DATA_DIR. */
let databaseEnv: Record<string, string>;

function openTestDatabase(): Promise<DatabaseHandle> {
  return openDatabase(
    databaseEnv.DATABASE_URL
      ? { url: databaseEnv.DATABASE_URL, poolSize: 2 }
      : { embeddedDataDir: databaseEnv.EMBEDDED_DATA_DIR! },
  );
}

/** Runs `work` on the database while no command holds it (PGlite: one process at a time). */
async function onDatabase<T>(work: (database: DatabaseHandle) => Promise<T>): Promise<T> {
  const database = await openTestDatabase();
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

beforeAll(async () => {
  databaseEnv = serverUrl
    ? { DATABASE_URL: await createServerDatabase(serverUrl) }
    : { EMBEDDED_DATA_DIR: path.join(await temporaryDirectory(), 'pglite') };
  await onDatabase(async (database) => {
    await migrateToLatest(database.db);
    await insertBasics(database.db);
  });
});

afterAll(async () => {
  if (serverUrl && databaseEnv?.DATABASE_URL) {
    await dropServerDatabase(serverUrl, databaseEnv.DATABASE_URL);
  }
});

function clients(...args: string[]): Promise<Finished> {
  // Warnings and worse only: stderr is then exactly what went wrong, if anything did.
  return runToEnd('src/main.ts', ['clients', ...args], { ...databaseEnv, LOG_LEVEL: 'warn' });
}

function expectOneLineUsageError(finished: Finished, text: string): void {
  expect(finished.stdout).toBe('');
  expect(finished.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(text)]);
  expect(finished.code).toBe(2);
}

interface NewCredentials {
  clientId: string;
  clientSecret: string;
}

async function added(finished: Finished): Promise<NewCredentials> {
  expect(finished.stderr).toBe('');
  expect(finished.code).toBe(0);
  const credentials = JSON.parse(finished.stdout) as NewCredentials;
  expect(Object.keys(credentials)).toEqual(['clientId', 'clientSecret']);
  expect(credentials.clientSecret).toMatch(SECRET);
  // Only its scrypt hash is stored, never the secret itself.
  const row = await onDatabase((database) =>
    database.db
      .selectFrom('api_clients')
      .select('secret_hash')
      .where('id', '=', credentials.clientId)
      .executeTakeFirstOrThrow(),
  );
  expect(row.secret_hash).toMatch(/^scrypt\$/);
  expect(row.secret_hash).not.toContain(credentials.clientSecret);
  expect(await verifyClientSecret(credentials.clientSecret, row.secret_hash)).toBe(true);
  return credentials;
}

interface Service {
  baseUrl: string;
  /** openid-client's client credentials grant for these credentials. */
  token(credentials: NewCredentials): Promise<string>;
}

/** The service over HTTP on the database, for as long as `work` runs. */
async function withService(work: (service: Service) => Promise<void>): Promise<void> {
  await onDatabase(async (database) => {
    const config = loadConfig({ TOKEN_SECRET });
    const app = createApp({ config, database, logger: pino({ level: 'silent' }) });
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const token = async ({ clientId, clientSecret }: NewCredentials) => {
      const metadata = { issuer: baseUrl, token_endpoint: `${baseUrl}${TOKEN_PATH}` };
      const configuration = new oauth.Configuration(metadata, clientId, clientSecret);
      oauth.allowInsecureRequests(configuration); // plain http to the local test server
      return (await oauth.clientCredentialsGrant(configuration)).access_token;
    };
    try {
      await work({ baseUrl, token });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.dispose();
    }
  });
}

const caller = (accessToken: string) => verifyToken({ tokenSecrets: [TOKEN_SECRET] }, accessToken);

describe(`npm run clients on ${serverUrl ? 'a Postgres server' : 'the embedded database'}`, () => {
  const sweden = shopIdOf('se');
  let shopClient: NewCredentials;
  let partnerClient: NewCredentials;

  it(
    "adds a shop's client whose token carries its shop: its own shop's access lets it through, no other",
    async () => {
      shopClient = await added(
        await clients('add-shop', 'Shop se feeds', '--shop', `${sweden}`, '--json'),
      );
      expect(shopClient.clientId).toMatch(new RegExp(`^shop-${sweden}-`));

      await withService(async ({ baseUrl, token }) => {
        const accessToken = await token(shopClient);
        const verified = await caller(accessToken);
        expect(verified).toEqual({
          kind: 'client',
          clientId: shopClient.clientId,
          refs: [],
          shopId: sweden,
        });
        const own = refuseAccess('shop', verified, { shopId: `${sweden}` }, 'req-1');
        expect(own).toBeNull();
        const other = refuseAccess('shop', verified, { shopId: `${sweden + 1}` }, 'req-1');
        expect(other?.status).toBe(403);

        // A shop owns no refs: partner search refuses it as it refuses another partner's ref.
        const search = await fetch(`${baseUrl}/partner-search/products?market=se&ref=demo-ref`, {
          headers: { authorization: `Bearer ${accessToken}` },
        });
        expect(search.status).toBe(403);
      });
    },
    CASE_TIMEOUT_MS,
  );

  it(
    "adds a partner's client owning its refs, prints its id and secret once, and refuses a ref already owned",
    async () => {
      const text = await clients('add-partner', 'Acme AB', '--ref', 'acme-se', '--ref', 'acme-no');
      expect(text.code).toBe(0);
      const clientId = /^client id: +(\S+)$/m.exec(text.stdout)?.[1];
      const clientSecret = /^client secret: +(\S+)$/m.exec(text.stdout)?.[1];
      expect(clientId).toMatch(/^partner-/);
      expect(clientSecret).toMatch(SECRET);
      partnerClient = { clientId: clientId!, clientSecret: clientSecret! };

      await withService(async ({ token }) => {
        const verified = await caller(await token(partnerClient));
        expect(verified).toEqual({ kind: 'client', clientId, refs: ['acme-no', 'acme-se'] });
        // A partner's token writes no shop's feed.
        expect(refuseAccess('shop', verified, { shopId: `${sweden}` }, 'req-1')?.status).toBe(403);
      });

      expectOneLineUsageError(
        await clients('add-partner', 'Acme again', '--ref', 'acme-no'),
        `ref "acme-no" already belongs to client ${clientId}`,
      );
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'lists the clients with their kind, refs or shop, as text and as JSON, never a secret',
    async () => {
      const [json, text] = [await clients('list', '--json'), await clients('list')];
      expect(json.code).toBe(0);
      const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
      expect(listed).toEqual([
        {
          clientId: shopClient.clientId,
          name: 'Shop se feeds',
          kind: 'shop',
          refs: [],
          shop: { id: sweden, market: 'se', name: 'Shop se' },
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
        {
          clientId: partnerClient.clientId,
          name: 'Acme AB',
          kind: 'partner',
          refs: ['acme-no', 'acme-se'],
          shop: null,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        },
      ]);
      expect(text.code).toBe(0);
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^CLIENT ID +NAME +KIND +REFS OR SHOP +CREATED$/);
      expect(lines[1]).toMatch(
        new RegExp(
          `^${shopClient.clientId} +Shop se feeds +shop +shop ${sweden} \\(se: Shop se\\) `,
        ),
      );
      expect(lines[2]).toMatch(
        new RegExp(`^${partnerClient.clientId} +Acme AB +partner +acme-no, acme-se `),
      );
      for (const output of [json.stdout, text.stdout]) {
        expect(output).not.toContain(shopClient.clientSecret);
        expect(output).not.toContain('scrypt');
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'revokes a client: the token endpoint refuses it from then on, and its refs are free again',
    async () => {
      const revoked = await clients('revoke', partnerClient.clientId);
      expect(revoked.code).toBe(0);
      expect(revoked.stdout).toContain(`revoked ${partnerClient.clientId}`);

      await withService(async ({ token }) => {
        const refused = await token(partnerClient).catch((error: unknown) => error);
        expect(refused).toBeInstanceOf(oauth.ResponseBodyError);
        expect((refused as oauth.ResponseBodyError).error).toBe('invalid_client');
        // The other client is untouched.
        expect((await caller(await token(shopClient))).kind).toBe('client');
      });

      const again = await added(
        await clients('add-partner', 'Acme AB, new', '--ref', 'acme-no', '--json'),
      );
      expect(again.clientId).not.toBe(partnerClient.clientId);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'refuses an unknown shop and an unknown client id in one line, exit code 2',
    async () => {
      expectOneLineUsageError(
        await clients('add-shop', 'Nobody', '--shop', '999'),
        'no shop has the id 999',
      );
      expectOneLineUsageError(
        await clients('revoke', 'partner-nobody'),
        'no client has the id "partner-nobody"',
      );
    },
    CASE_TIMEOUT_MS,
  );

  it.skipIf(serverUrl)(
    'refuses an embedded data directory another process holds, in one line, exit code 1',
    async () => {
      const release = await lockDataDirectory(databaseEnv.EMBEDDED_DATA_DIR!, () => undefined);
      try {
        const listed = await clients('list');
        expect(listed.code).toBe(1);
        expect(listed.stdout).toBe('');
        expect(listed.stderr.trimEnd().split('\n')).toEqual([
          expect.stringContaining(
            `the embedded database ${databaseEnv.EMBEDDED_DATA_DIR} is in use by another process`,
          ),
        ]);
      } finally {
        await release();
      }
    },
    CASE_TIMEOUT_MS,
  );
});
