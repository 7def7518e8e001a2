/**
 * A fresh database for one test file: a new database on the Postgres server when
 * TEST_DATABASE_URL or DATABASE_URL is set, else an in-memory PGlite. Dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import type { LogEvent } from 'kysely';
import pg from 'pg';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';

export const serverUrl = process.env.TEST_DATABASE_URL ?? process.env.DATABASE_URL;
export const databaseKind = serverUrl ? 'postgres' : 'embedded';

export interface TestDatabase extends DatabaseHandle {
  /** The URL of the created server database (undefined on PGlite). */
  url: string | undefined;
  /** SQL statements executed since the last reset. */
  statements: string[];
  /** Closes the handle and drops the server database. */
  dispose(): Promise<void>;
}

async function onAdminConnection<T>(url: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates an empty database on the server and returns its URL. */
export async function createServerDatabase(baseUrl: string): Promise<string> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await onAdminConnection(baseUrl, (client) => client.query(`create database ${name}`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropServerDatabase(baseUrl: string, url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  await onAdminConnection(baseUrl, (client) =>
    client.query(`drop database if exists ${name} with (force)`),
  );
}

export interface TestDatabaseOptions {
  /** Apply the migrations (default true). */
  migrate?: boolean;
  /** Use PGlite even when a server is configured (tests that must cover both). */
  embedded?: boolean;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const statements: string[] = [];
  const onQuery = (event: LogEvent) => statements.push(event.query.sql);
  const server = options.embedded ? undefined : serverUrl;
  const url = server ? await createServerDatabase(server) : undefined;
  const handle = await openDatabase({ url, embeddedDataDir: 'memory://', poolSize: 4, onQuery });
  if (options.migrate !== false) await migrateToLatest(handle.db);
  return {
    ...handle,
    url,
    statements,
    async dispose() {
      await handle.close();
      if (server && url) await dropServerDatabase(server, url);
    },
  };
}
