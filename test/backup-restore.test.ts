/**
 * docs/operations.md, "Backups and restore", done as written with real processes: a service
 * on a server database seeded with the sample catalogue, a partner client added, a dump taken
 * with `pg_dump --format=custom` while the service runs, restored with `pg_restore --no-owner`
 * into an empty database, and the service started on the copy: it migrates and seeds nothing,
 * is ready, serves the same catalogue, and the partner's secret still gets a token.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { onConnection } from './helpers/database.ts';
import { clientToken } from './feeds/shop-client.ts';
import { jsonLogLines, runToEnd, type StartedProcess } from './helpers/process.ts';
import { postgresBinDir, requireServerBinaries } from './helpers/scratch-cluster.ts';
import { logged, PATIENCE_MS, useEmptyServerDatabase } from './helpers/serve-processes.ts';
import { useTemporaryDirectories } from './helpers/temporary-directories.ts';

const run = promisify(execFile);

requireServerBinaries('the backup test runs pg_dump and pg_restore');
const pgDump = path.join(postgresBinDir!, 'pg_dump');
const pgRestore = path.join(postgresBinDir!, 'pg_restore');

/** Every table the catalogue, its clients and its runs live in, with its row count. */
async function rowCounts(url: string): Promise<Record<string, number>> {
  return onConnection(url, async (client) => {
    const { rows } = await client.query<{ name: string }>(
      `select schemaname || '.' || tablename as name from pg_tables
        where schemaname in ('public', 'pgboss') order by 1`,
    );
    const counts: Record<string, number> = {};
    for (const { name } of rows) {
      const counted = await client.query<{ count: string }>(`select count(*) from ${name}`);
      counts[name] = Number(counted.rows[0]!.count);
    }
    return counts;
  });
}

/** A token for the client from the service on `port`; throws unless the endpoint gives one. */
function tokenFrom(port: unknown, clientId: string, secret: string): Promise<string> {
  const send = (route: string, init: RequestInit) =>
    fetch(`http://127.0.0.1:${String(port)}${route}`, init);
  return clientToken(send, clientId, secret);
}

describe('a dump restored into an empty database', { timeout: 4 * PATIENCE_MS }, () => {
  const source = useEmptyServerDatabase();
  const temporaryDirectory = useTemporaryDirectories('gateway-backup-test-');
  const restoredName = `restored_${process.pid}_${Date.now().toString(36)}`;
  let restoredUrl: string | undefined;
  afterAll(async () => {
    if (restoredUrl === undefined) return;
    await onConnection(source.url, (client) =>
      client.query(`drop database if exists ${restoredName} with (force)`),
    );
  });

  it('is the service: nothing migrated or seeded, ready, the same rows, the same clients', async () => {
    // No clock: nothing writes between the dump and the counts below.
    const original = source.serve({ SEED_ON_EMPTY: 'true', CATALOGUE_CLOCK: 'false' });
    const [listening] = await logged(original, 'listening');
    const added = await runToEnd(
      'src/main.ts',
      ['clients', 'add-partner', 'Backed-up partner', '--ref', 'backed-up', '--json'],
      { DATABASE_URL: source.url },
    );
    expect(added.code, added.stderr).toBe(0);
    const partner = JSON.parse(added.stdout) as { clientId: string; clientSecret: string };
    expect(await tokenFrom(listening!.port, partner.clientId, partner.clientSecret)).toEqual(
      expect.any(String),
    );

    // Taken while the service runs, as the manual says.
    const dump = path.join(await temporaryDirectory(), 'catalogue.dump');
    await run(pgDump, ['--format=custom', `--file=${dump}`, source.url]);
    await stop(original);
    const counts = await rowCounts(source.url);
    expect(counts['public.api_clients']).toBeGreaterThan(0);
    expect(counts['public.products']).toBeGreaterThan(0);
    expect(Object.keys(counts)).toContain('public.kysely_migration');
    expect(Object.keys(counts)).toContain('pgboss.job');

    await onConnection(source.url, (client) => client.query(`create database ${restoredName}`));
    const url = new URL(source.url);
    url.pathname = `/${restoredName}`;
    restoredUrl = url.toString();
    await run(pgRestore, ['--no-owner', `--dbname=${restoredUrl}`, dump]);
    expect(await rowCounts(restoredUrl)).toEqual(counts);

    const restored = source.serve({ SEED_ON_EMPTY: 'true' }, restoredUrl);
    const [again] = await logged(restored, 'listening');
    const said = jsonLogLines(restored).map((line) => line.msg);
    expect(said).not.toContain('migrations applied');
    expect(said).not.toContain('empty catalogue: seeding');
    const ready = await fetch(`http://127.0.0.1:${String(again!.port)}/readyz`);
    expect(ready.status).toBe(200);
    expect(await tokenFrom(again!.port, partner.clientId, partner.clientSecret)).toEqual(
      expect.any(String),
    );
    const products = await fetch(
      `http://127.0.0.1:${String(again!.port)}/products?market=se&limit=1`,
    );
    expect(products.status).toBe(200);
    await stop(restored);
  });
});

async function stop(service: StartedProcess): Promise<void> {
  service.child.kill('SIGTERM');
  expect(await service.exited).toBe(0);
}
