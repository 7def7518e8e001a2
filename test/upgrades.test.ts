/**
 * Upgrades and rollbacks with real processes on a server database (docs/operations.md,
 * "Upgrades and rollbacks"), a newer release played by test/helpers/newer-release.ts: this
 * release starts on a database a newer release migrated with an expand migration, with a
 * warning, and `migrate` applies nothing; after a contract migration that needs a newer
 * release it refuses, `serve` and `migrate` alike, in one JSON log line and exit code 1. With
 * WORKERS=2, a worker that dies and cannot start again turns /readyz 503 on the worker still
 * serving, naming the reason, until one starts in its place. The connection budget's warning,
 * one line with its arithmetic, against the server's real max_connections.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import type { MigrationList } from '../schema/migrations/index.ts';
import { packageVersion } from '../src/version.ts';
import { onConnection } from './helpers/database.ts';
import { CONTRACT, contractingRelease, EXPAND, expandingRelease } from './helpers/newer-release.ts';
import { jsonLines, jsonLogLines, runToEnd, type StartedProcess } from './helpers/process.ts';
import {
  logged,
  PATIENCE_MS,
  useEmptyServerDatabase,
  workerPids,
} from './helpers/serve-processes.ts';

const TEST_PATIENCE = { timeout: 3 * PATIENCE_MS };
/** A release this one is not, and older than: what the contract migration asks for. */
const FUTURE_RELEASE = '99.0.0';
const NEEDS_FUTURE =
  /^the database's schema needs release 99\.0\.0 or newer \(its migration 9001_newer_release_contract, applied by a newer release\); this is release \d+\.\d+\.\d+: deploy 99\.0\.0 or newer, or restore the database from before that migration/;
const COMPATIBLE =
  'the database has migrations of a newer release; this release is compatible and runs on it';

/** Applies `release`'s migrations to the database, as that release's start would. */
async function migrateAs(url: string, release: MigrationList): Promise<void> {
  const database = await openDatabase({ url });
  try {
    await migrateToLatest(database.db, { migrations: release });
  } finally {
    await database.close();
  }
}

async function readiness(port: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${String(port)}/readyz`);
  return { status: response.status, body: await response.json() };
}

/** /readyz, asked until it answers `status` (the primary's word reaches a worker in moments). */
async function readinessBecomes(port: unknown, status: number) {
  for (let asked = 0; ; asked++) {
    const answer = await readiness(port);
    if (answer.status === status || asked === 100) return answer;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const lines = jsonLogLines;
const withMessage = (started: StartedProcess, pattern: RegExp) =>
  lines(started).filter((line) => pattern.test(String(line.msg)));

describe('one process on a database a newer release migrated', TEST_PATIENCE, () => {
  const database = useEmptyServerDatabase();
  beforeAll(() => migrateAs(database.url, expandingRelease));

  it('starts on an expand migration with a warning, and serves; migrate applies nothing', async () => {
    const service = database.serve({
      // A pool the server cannot hold, on the primary and on a "replica" (the primary again):
      // the start warns once, with the arithmetic.
      DATABASE_POOL_SIZE: '200',
      DATABASE_REPLICA_URLS: database.url,
    });
    const [listening] = await logged(service, 'listening');
    const [warning] = await logged(service, COMPATIBLE);
    expect(warning).toMatchObject({
      level: 40,
      pid: service.child.pid,
      release: packageVersion(),
      newerMigrations: [EXPAND],
    });
    expect(await readiness(listening!.port)).toMatchObject({ status: 200 });

    const budget = withMessage(service, /^database connections:/);
    expect(budget).toHaveLength(1);
    expect(budget[0]).toMatchObject({ level: 40, processes: 1, poolSize: 200 });
    expect(budget[0]!.msg).toBe(
      'database connections: the service may open more than the server allows (primary: ' +
        `1 × (200 pool + 1 listener) = 201 > max_connections ${await maxConnections(database.url)}; ` +
        `replica-1: 1 × 200 pool = 200 > max_connections ${await maxConnections(database.url)}); ` +
        'lower DATABASE_POOL_SIZE or WORKERS, or raise max_connections',
    );

    const migrate = await runToEnd('src/main.ts', ['migrate'], {
      DATABASE_URL: database.url,
      LOG_FORMAT: 'json',
    });
    expect(migrate.code).toBe(0);
    expect(migrate.stderr).toBe('');
    expect(jsonLines(migrate.stdout).map(({ level, msg }) => [level, msg])).toEqual([
      [30, 'opening database'],
      [40, COMPATIBLE],
      [30, 'up to date'],
    ]);
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('refuses a contract migration needing a newer release: one JSON line, exit code 1', async () => {
    await migrateAs(database.url, contractingRelease(FUTURE_RELEASE));
    const service = database.serve();
    expect(await service.exited).toBe(1);
    expect(service.stderr()).toBe('');
    const last = lines(service).at(-1)!;
    expect(last).toMatchObject({
      level: 60,
      pid: service.child.pid,
      exitCode: 1,
      release: packageVersion(),
      oldestRelease: FUTURE_RELEASE,
      requiredBy: CONTRACT,
      newerMigrations: [EXPAND, CONTRACT],
    });
    expect(last.msg).toMatch(NEEDS_FUTURE);
    expect(lines(service).map((line) => line.msg)).not.toContain('listening');

    const migrate = await runToEnd('src/main.ts', ['migrate'], {
      DATABASE_URL: database.url,
      LOG_FORMAT: 'json',
    });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toBe('');
    const refusal = jsonLines(migrate.stdout).at(-1)!;
    expect(refusal).toMatchObject({ level: 60, exitCode: 1, oldestRelease: FUTURE_RELEASE });
    expect(refusal.msg).toMatch(NEEDS_FUTURE);
  });
});

describe('WORKERS=2 with a worker that cannot start', TEST_PATIENCE, () => {
  const database = useEmptyServerDatabase();

  it('answers /readyz 503 with the reason on the worker still serving, until one starts again', async () => {
    // 2 × (60 + 1) connections: over the server's 100, said once for both workers.
    const primary = database.serve({ WORKERS: '2', DATABASE_POOL_SIZE: '60' });
    const workers = await logged(primary, 'listening', 2);
    await logged(primary, 'all workers listening');
    const port = workers[0]!.port;
    expect(await readiness(port)).toMatchObject({ status: 200 });
    const budget = withMessage(primary, /^database connections:/);
    expect(budget.map((line) => line.msg)).toEqual([
      expect.stringContaining(
        `primary: 2 × (60 pool + 1 listener) = 122 > max_connections ${await maxConnections(database.url)}`,
      ),
    ]);

    // A newer release contracts the schema under the running workers; one of them dies.
    await migrateAs(database.url, contractingRelease(FUTURE_RELEASE));
    const victim = (await workerPids(primary))[0]!;
    process.kill(victim, 'SIGKILL');
    const [failed] = await logged(primary, 'a worker failed to start; restarting it');
    expect(failed).toMatchObject({ level: 50, pid: primary.child.pid, code: 1, signal: null });
    expect(failed!.reason).toMatch(NEEDS_FUTURE);
    // The failing worker said so itself, in its own JSON line under its own pid.
    const fatal = lines(primary).filter((line) => line.level === 60);
    expect(fatal[0]).toMatchObject({ pid: failed!.workerPid, exitCode: 1, msg: failed!.reason });
    expect(fatal.every((line) => line.msg === failed!.reason)).toBe(true);

    const unready = await readinessBecomes(port, 503);
    expect(unready).toEqual({
      status: 503,
      body: {
        status: 'unavailable',
        reason: 'a worker cannot start',
        worker: {
          workersNotStarting: 1,
          failedStarts: expect.any(Number),
          since: expect.any(String),
          last: expect.objectContaining({ code: 1, signal: null, reason: failed!.reason }),
        },
      },
    });
    // Out of the balancer's rotation, not down: the worker still serving answers.
    const markets = await fetch(`http://127.0.0.1:${String(port)}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ markets { code } }' }),
    });
    expect(markets.status).toBe(200);

    // The newer release's requirement withdrawn (a roll forward would do the same): the next
    // restart starts, and /readyz follows.
    await onConnection(database.url, (client) => client.query('delete from schema_compatibility'));
    await logged(primary, 'a worker started again: every worker serves');
    expect(await readinessBecomes(port, 200)).toMatchObject({ status: 200 });

    primary.child.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
    expect(primary.stderr()).toBe('');
    const pids = new Set(lines(primary).map((line) => line.pid));
    expect(pids.has(primary.child.pid)).toBe(true);
    expect(pids.has(victim)).toBe(true);
    expect(lines(primary).every((line) => typeof line.pid === 'number')).toBe(true);
  });
});

async function maxConnections(url: string): Promise<number> {
  const { rows } = await onConnection(url, (client) =>
    client.query<{ max_connections: string }>('show max_connections'),
  );
  return Number(rows[0]!.max_connections);
}
