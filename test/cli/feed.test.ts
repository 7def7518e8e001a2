/**
 * `npm run feed` as a real process on a real database (PGlite in a data directory, or a
 * server database under TEST_DATABASE_URL): a shop's feed file applied and its report
 * printed (text, or JSON for scripts), gzip read by its extension, and each mistake one line
 * with its exit code: an empty feed rejected (1), an unknown shop or format (2), no file (1).
 */
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { createServerDatabase, dropServerDatabase, serverUrl } from '../helpers/database.ts';
import { insertBasics, shopIdOf } from '../helpers/fixtures.ts';
import { runToEnd, type Finished } from '../helpers/process.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

const CASE_TIMEOUT_MS = 180_000;
const SAMPLE = new URL('../feeds/samples/ljudbutiken-se.tsv', import.meta.url);

const temporaryDirectory = useTemporaryDirectories('gateway-feed-test-');
let databaseEnv: Record<string, string>;
let directory: string;

beforeAll(async () => {
  directory = await temporaryDirectory();
  databaseEnv = serverUrl
    ? { DATABASE_URL: await createServerDatabase(serverUrl) }
    : { EMBEDDED_DATA_DIR: path.join(directory, 'pglite') };
  const database = await openDatabase(
    databaseEnv.DATABASE_URL
      ? { url: databaseEnv.DATABASE_URL, poolSize: 2 }
      : { embeddedDataDir: databaseEnv.EMBEDDED_DATA_DIR! },
  );
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

function feed(...args: string[]): Promise<Finished> {
  return runToEnd('src/main.ts', ['feed', ...args], { ...databaseEnv, LOG_LEVEL: 'warn' });
}

const SHOP = String(shopIdOf('se'));

describe('npm run feed', () => {
  it(
    "applies a shop's feed file and prints its report; the same file gzipped reads the same",
    async () => {
      const json = await feed('--shop', SHOP, '--json', SAMPLE.pathname);
      expect(json.stderr).toBe('');
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout) as Record<string, any>;
      // The basic catalogue has no product these rows name: every valid row is kept unmatched.
      expect(report).toMatchObject({ shopId: Number(SHOP), kind: 'full', format: 'tsv' });
      expect(report.state).toBe('applied');
      expect(report.counts.unmatched).toBe(report.counts.rows - report.counts.rejected);
      expect(report.ignoredColumns).toContain('custom_label_0');

      const zipped = path.join(directory, 'ljudbutiken-se.tsv.gz');
      await writeFile(zipped, gzipSync(await readFile(SAMPLE)));
      const text = await feed('--shop', SHOP, zipped);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^run [0-9a-f-]{36}: applied\n/);
      expect(text.stdout).toContain(`${report.counts.rows} rows: 0 created, 0 updated`);
      expect(text.stdout).toContain('ignored columns: ');
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'rejects an empty feed (exit 1, the report saying why)',
    async () => {
      const empty = path.join(directory, 'empty.csv');
      await writeFile(empty, '');
      const finished = await feed('--shop', SHOP, empty);
      expect(finished.code).toBe(1);
      expect(finished.stdout).toMatch(/: rejected \(.*empty.*\)\n/);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'refuses, in one line, an unknown shop (2), a name without a format (2), no file or a folder (1)',
    async () => {
      const unknown = await feed('--shop', '9999', SAMPLE.pathname);
      expect(unknown.code).toBe(2);
      expect(unknown.stderr.trim()).toMatch(/shop 9999 does not exist/);

      const unnamed = path.join(directory, 'feed.dat');
      await copyFile(SAMPLE, unnamed);
      const formatless = await feed('--shop', SHOP, unnamed);
      expect(formatless.code).toBe(2);
      expect(formatless.stderr.trim().split('\n')).toHaveLength(1);
      expect(formatless.stderr).toContain('give --format');
      expect((await feed('--shop', SHOP, '--format', 'tsv', unnamed)).code).toBe(0);

      const missing = await feed('--shop', SHOP, path.join(directory, 'nothing.tsv'));
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim()).toMatch(/^cannot read .*nothing\.tsv/);

      const folder = path.join(directory, 'folder.tsv');
      await mkdir(folder);
      const notAFile = await feed('--shop', SHOP, folder);
      expect(notAFile.code).toBe(1);
      expect(notAFile.stderr.trim()).toBe(`cannot read ${folder}: not a file`);
    },
    CASE_TIMEOUT_MS,
  );
});
