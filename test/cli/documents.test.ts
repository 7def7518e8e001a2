/**
 * `npm run documents` as real processes on a real database (PGlite in a data directory, or a
 * server database under TEST_DATABASE_URL): manifests as Relay's `persist` and GraphQL Code
 * Generator's client preset write them are stored; a manifest with a key that is not its
 * document's sha256, or with a document the schema refuses, stores nothing and names the
 * entry; `list` prints what is stored; and an app on the same database runs a document the
 * command added, with no restart when it was already running (a server database).
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { sha256Hex } from '../../src/graph/document-ids.ts';
import { createServerDatabase, dropServerDatabase, serverUrl } from '../helpers/database.ts';
import { insertBasics } from '../helpers/fixtures.ts';
import { runToEnd, type Finished } from '../helpers/process.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

/** Each case runs the command (a process opening the database) a few times. */
const CASE_TIMEOUT_MS = 180_000;

// As Relay's compiler prints a document (persistConfig's algorithm SHA256)...
const RELAY_MARKETS = 'query MarketsQuery {\n  markets {\n    code\n  }\n}\n';
const RELAY_CURRENCIES = 'query CurrenciesQuery {\n  markets {\n    code\n    currency\n  }\n}\n';
// ...and as codegen's client preset does (persistedDocuments.hashAlgorithm sha256).
const CODEGEN_MARKETS = 'query Markets { markets { code siteBaseUrl } }';

const manifestOf = (...documents: string[]) =>
  Object.fromEntries(documents.map((document) => [sha256Hex(document), document]));

const temporaryDirectory = useTemporaryDirectories('gateway-documents-test-');
let databaseEnv: Record<string, string>;
let directory: string;

function openTestDatabase(): Promise<DatabaseHandle> {
  return openDatabase(
    databaseEnv.DATABASE_URL
      ? { url: databaseEnv.DATABASE_URL, poolSize: 2 }
      : { embeddedDataDir: databaseEnv.EMBEDDED_DATA_DIR! },
  );
}

beforeAll(async () => {
  directory = await temporaryDirectory();
  databaseEnv = serverUrl
    ? { DATABASE_URL: await createServerDatabase(serverUrl) }
    : { EMBEDDED_DATA_DIR: path.join(directory, 'pglite') };
  const database = await openTestDatabase();
  try {
    await migrateToLatest(database.db);
    await insertBasics(database.db);
  } finally {
    await database.close();
  }
});

afterAll(async () => {
  if (serverUrl && databaseEnv?.DATABASE_URL) {
    await dropServerDatabase(serverUrl, databaseEnv.DATABASE_URL);
  }
});

async function manifestFile(name: string, manifest: Record<string, unknown>): Promise<string> {
  const file = path.join(directory, name);
  await writeFile(file, JSON.stringify(manifest, null, 2));
  return file;
}

function documents(...args: string[]): Promise<Finished> {
  // Warnings and worse only: stderr is then exactly what went wrong, if anything did.
  return runToEnd('src/main.ts', ['documents', ...args], { ...databaseEnv, LOG_LEVEL: 'warn' });
}

async function listed(): Promise<{ documentId: string; operations: string[]; source: string }[]> {
  const finished = await documents('list', '--json');
  expect(finished.code).toBe(0);
  return JSON.parse(finished.stdout);
}

/** An app on the database, and a request running a document by its id. */
async function withApp<T>(work: (run: (hash: string) => Promise<unknown>) => Promise<T>) {
  const database = await openTestDatabase();
  const config = loadConfig({ ...databaseEnv, RESPONSE_CACHE_TTL_SECONDS: '0' });
  const app: App = createApp({ config, database, logger: pino({ level: 'silent' }) });
  const run = async (hash: string) => {
    const response = await app.fetch(
      new Request('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ documentId: `sha256:${hash}` }),
      }),
    );
    return response.json();
  };
  try {
    return await work(run);
  } finally {
    await app.dispose();
    await database.close();
  }
}

describe('npm run documents', () => {
  it(
    "adds Relay's and codegen's manifests, each document once, and lists them",
    async () => {
      const relay = await manifestFile('relay.json', manifestOf(RELAY_MARKETS, RELAY_CURRENCIES));
      const added = await documents('add', relay);
      expect(added).toEqual({
        code: 0,
        stdout: '2 added, 0 already stored (relay.json)\n',
        stderr: '',
      });

      const codegen = await manifestFile(
        'persisted-documents.json',
        manifestOf(CODEGEN_MARKETS, RELAY_MARKETS),
      );
      const again = await documents('add', codegen, '--source', 'web@1.4.0', '--json');
      expect(again.code).toBe(0);
      expect(JSON.parse(again.stdout)).toEqual({
        added: [sha256Hex(CODEGEN_MARKETS)],
        alreadyStored: 1,
      });

      const stored = (await listed()).map(({ documentId, operations, source }) => ({
        documentId,
        operations,
        source,
      }));
      // Oldest first; those added together by their ids.
      expect(
        stored.slice(0, 2).sort((a, b) => a.operations[0]!.localeCompare(b.operations[0]!)),
      ).toEqual([
        {
          documentId: `sha256:${sha256Hex(RELAY_CURRENCIES)}`,
          operations: ['CurrenciesQuery'],
          source: 'relay.json',
        },
        {
          documentId: `sha256:${sha256Hex(RELAY_MARKETS)}`,
          operations: ['MarketsQuery'],
          source: 'relay.json',
        },
      ]);
      expect(stored[2]).toEqual({
        documentId: `sha256:${sha256Hex(CODEGEN_MARKETS)}`,
        operations: ['Markets'],
        source: 'web@1.4.0',
      });
      const text = await documents('list');
      expect(text.code).toBe(0);
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^DOCUMENT ID +OPERATIONS +SOURCE +ADDED$/);
      expect(lines).toHaveLength(4);
      expect(text.stdout).toContain(`sha256:${sha256Hex(CODEGEN_MARKETS)}  Markets`);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'stores nothing from a manifest with a mismatching hash or an invalid document, naming each',
    async () => {
      const before = await listed();
      const valid = 'query Valid { markets { code } }';
      const invalid = 'query Invalid { markets { price } }';
      const wrongKey = sha256Hex('something else');
      const file = await manifestFile('broken.json', {
        ...manifestOf(valid, invalid),
        [wrongKey]: 'query Mismatch { markets { code } }',
        [`md5-${'a'.repeat(28)}`]: valid,
      });
      const refused = await documents('add', file);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe('');
      const lines = refused.stderr.trimEnd().split('\n');
      expect(lines[0]).toBe(`${file}: 3 of 4 documents refused; none stored:`);
      expect(lines.slice(1)).toEqual(
        expect.arrayContaining([
          `  ${sha256Hex(invalid)}: invalid against the schema: Cannot query field "price" on type "MarketInfo".`,
          expect.stringMatching(
            new RegExp(`^  ${wrongKey}: the key is not the sha256 of its document`),
          ),
          expect.stringMatching(/^ {2}md5-a+: the key is not a sha256/),
        ]),
      );
      expect(await listed()).toEqual(before);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'has a document it adds run by an app on the same database',
    async () => {
      const document = 'query Late { markets { currency } }';
      const hash = sha256Hex(document);
      const file = await manifestFile('late.json', manifestOf(document));
      const found = { data: { markets: expect.arrayContaining([{ currency: 'SEK' }]) } };
      if (serverUrl) {
        // A running process: an id it did not know a moment ago is looked up again.
        await withApp(async (run) => {
          expect(await run(hash)).toMatchObject({
            errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
          });
          expect((await documents('add', file)).code).toBe(0);
          expect(await run(hash)).toEqual(found);
        });
      } else {
        // PGlite: one process holds the data directory at a time.
        expect((await documents('add', file)).code).toBe(0);
        await withApp(async (run) => expect(await run(hash)).toEqual(found));
      }
    },
    CASE_TIMEOUT_MS,
  );
});
