/**
 * A fresh database for one test file: a new database on the Postgres server when
 * TEST_DATABASE_URL or DATABASE_URL is set, else an in-memory PGlite. It starts empty,
 * migrated, or seeded, copied from the run's templates (test/helpers/templates.ts), and is
 * dropped afterwards.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { LogEvent } from 'kysely';
import pg from 'pg';
import { inject } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import type { TemplateName } from './templates.ts';

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

/** Runs `work` on a connection of its own, closed afterwards. */
export async function onConnection<T>(url: string, work: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url });
  // A server that goes away under the connection fails the query at hand: the event (with no
  // listener, a crash) need only be heard, and the connection is gone either way.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

function databaseUrl(baseUrl: string, name: string): string {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Creates a database (empty, or a copy of a template database) and returns its URL. */
export async function createNamedServerDatabase(
  baseUrl: string,
  name: string,
  template?: string,
): Promise<string> {
  const copy = template ? ` template ${template}` : '';
  await onConnection(baseUrl, async (client) => {
    // Two copies of one template at the same instant: Postgres refuses the second while the
    // first holds the template; it is free again within moments.
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.query(`create database ${name}${copy}`);
      } catch (error) {
        const busy = /is being accessed by other users/.test(String(error));
        if (!busy || attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  });
  return databaseUrl(baseUrl, name);
}

/** Creates an empty database on the server and returns its URL. */
export function createServerDatabase(baseUrl: string, template?: string): Promise<string> {
  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  return createNamedServerDatabase(baseUrl, name, template);
}

export async function dropNamedServerDatabase(baseUrl: string, name: string): Promise<void> {
  await onConnection(baseUrl, (client) =>
    client.query(`drop database if exists ${name} with (force)`),
  );
}

export function dropServerDatabase(baseUrl: string, url: string): Promise<void> {
  return dropNamedServerDatabase(baseUrl, new URL(url).pathname.slice(1));
}

export interface TestDatabaseOptions {
  /** Start empty (no migrations), migrated (the default), or with the seeded catalogue. */
  contents?: 'empty' | TemplateName;
  /** Use PGlite even when a server is configured (tests that must cover both). */
  embedded?: boolean;
}

/** A PGlite started from a template's data directory, or an empty one. */
async function embeddedFrom(template: TemplateName | undefined): Promise<PGlite> {
  const templates = inject('databaseTemplates');
  if (template === undefined) return PGlite.create('memory://', { extensions: { pg_trgm } });
  if (templates.kind !== 'embedded') {
    throw new Error('embedded templates are only built when no server is configured');
  }
  const dump = new Blob([await readFile(templates.files[template])]);
  return PGlite.create({ loadDataDir: dump, extensions: { pg_trgm } });
}

/** Opens a test database on the server database at `url`; `remove` runs once it is closed. */
export async function openServerTestDatabase(
  url: string,
  remove: () => Promise<void>,
): Promise<TestDatabase & { url: string }> {
  const statements: string[] = [];
  const onQuery = (event: LogEvent) => statements.push(event.query.sql);
  const handle = await openDatabase({ url, poolSize: 4, onQuery });
  return {
    ...handle,
    url,
    statements,
    async dispose() {
      await handle.close();
      await remove();
    },
  };
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const statements: string[] = [];
  const onQuery = (event: LogEvent) => statements.push(event.query.sql);
  const contents = options.contents ?? 'migrated';
  const template = contents === 'empty' ? undefined : contents;
  const server = options.embedded ? undefined : serverUrl;

  if (server) {
    const templates = inject('databaseTemplates');
    const source =
      template && templates.kind === 'postgres' ? templates.databases[template] : undefined;
    const url = await createServerDatabase(server, source);
    return openServerTestDatabase(url, () => dropServerDatabase(server, url));
  }

  // A server run builds server templates only: PGlite copies then migrate for themselves.
  const templates = inject('databaseTemplates');
  const pglite = await embeddedFrom(templates.kind === 'embedded' ? template : undefined);
  const handle = await openDatabase({ pglite, onQuery });
  if (template !== undefined && templates.kind !== 'embedded') {
    if (template === 'seeded') throw new Error('a seeded embedded database needs an embedded run');
    await migrateToLatest(handle.db);
  }
  return {
    ...handle,
    url: undefined,
    statements,
    async dispose() {
      await handle.close();
      await pglite.close();
    },
  };
}
