/**
 * One seeded catalogue per test file: a fresh database (PGlite, or a server database under
 * TEST_DATABASE_URL) filled once by the seed generator, and the app built on it. Requests go
 * through `app.fetch` like a client's; `statements` holds the SQL of the last request only.
 */
import type { GraphQLFormattedError } from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { SEEDED_CATALOGUE } from './templates.ts';

/** How many products the seeded catalogue has (test/helpers/templates.ts builds it). */
export const SEEDED_PRODUCTS = SEEDED_CATALOGUE.products;

export interface GraphQLBody<Data = any> {
  data?: Data | null;
  errors?: GraphQLFormattedError[];
}

export interface SeededCatalogue {
  readonly database: TestDatabase;
  readonly app: App;
  /** The SQL statements of the last request (reset before each). */
  readonly statements: string[];
  /** POSTs an operation to /graphql and answers the JSON body. */
  graphql<Data = any>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GraphQLBody<Data>>;
  /** POSTs an operation to /graphql and answers the response itself (status, headers). */
  post(body: unknown, headers?: Record<string, string>): Promise<Response>;
}

/**
 * Registers the file's beforeAll (seed, build) and afterAll (dispose); call at top level.
 * `env` adds settings to the app's configuration (RESPONSE_CACHE_TTL_SECONDS=0, say).
 */
export function useSeededCatalogue(env: Record<string, string> = {}): SeededCatalogue {
  let database: TestDatabase | undefined;
  let app: App | undefined;
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the seeded catalogue is used outside a test');
    return value;
  };

  const post = async (body: unknown, headers: Record<string, string> = {}) => {
    ready(database).statements.length = 0;
    return ready(app).fetch(
      new Request('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(body),
      }),
    );
  };

  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'seeded' });
    app = createApp({ config: loadConfig(env), database, logger: pino({ level: 'silent' }) });
    // Following the catalogue's changes starts with a statement: none of a test's requests.
    await app.listening;
    // The market directory is read once per process: read it now, so that no request under
    // test pays (and counts) that statement.
    await post({ query: '{ markets { code } }' });
  });
  afterAll(async () => {
    await app?.dispose();
    await database?.dispose();
  });

  return {
    get database() {
      return ready(database);
    },
    get app() {
      return ready(app);
    },
    get statements() {
      return ready(database).statements;
    },
    post,
    async graphql(query, variables) {
      const response = await post({ query, variables });
      return (await response.json()) as GraphQLBody;
    },
  };
}
