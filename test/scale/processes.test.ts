/**
 * Several gateway processes on one server database, as real processes: three `serve`
 * processes started together on an empty database (one seeds under the seeding lock, the
 * others wait for it and serve the same catalogue, seeded once); `serve` with WORKERS=2 (two
 * workers on one port, one killed and restarted while the other serves, SIGTERM stopping
 * both); and WORKERS=2 refused on the embedded database. A fresh database on the run's server,
 * or on a scratch cluster of its own in the PGlite pass.
 */
import { describe, expect, it } from 'vitest';
import { onConnection } from '../helpers/database.ts';
import { jsonLogLines, runToEnd, type StartedProcess } from '../helpers/process.ts';
import {
  getOnNewConnection,
  logged,
  PATIENCE_MS,
  useEmptyServerDatabase,
  workerPids,
} from '../helpers/serve-processes.ts';

/** A test starts several processes, one after another's seeding: a busy machine needs long. */
const TEST_PATIENCE = { timeout: 3 * PATIENCE_MS };

const logLines = jsonLogLines;

/** Every row of every table the seed fills, by table. */
async function rowCounts(url: string, tables: readonly string[]): Promise<Record<string, number>> {
  return onConnection(url, async (client) => {
    const counts: Record<string, number> = {};
    for (const table of tables) {
      const { rows } = await client.query<{ count: string }>(`select count(*) from ${table}`);
      counts[table] = Number(rows[0]!.count);
    }
    return counts;
  });
}

async function status(port: unknown, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${String(port)}${path}`)).status;
}

describe('three processes starting together on an empty database', TEST_PATIENCE, () => {
  const database = useEmptyServerDatabase();

  it('seed once: one seeds under the lock, the others wait and serve its catalogue', async () => {
    const processes: StartedProcess[] = [];
    for (let i = 0; i < 3; i++) processes.push(database.serve({ SEED_ON_EMPTY: 'true' }));
    const listening = await Promise.all(processes.map((started) => logged(started, 'listening')));

    const seeders = processes.filter((started) =>
      logLines(started).some((line) => line.msg === 'empty catalogue: seeding'),
    );
    expect(seeders).toHaveLength(1);
    // The others found the lock taken (or, arriving later, the catalogue seeded).
    const waited = (started: StartedProcess) =>
      logLines(started).some(
        (line) => line.msg === 'another process is seeding the catalogue; waiting for it',
      );
    expect(waited(seeders[0]!)).toBe(false);
    for (const started of processes) {
      expect(logLines(started).filter((line) => line.msg === 'catalogue seeded')).toHaveLength(
        started === seeders[0] ? 1 : 0,
      );
    }

    // Exactly the rows of one seed, as its report counts them.
    const report = logLines(seeders[0]!).find((line) => line.msg === 'catalogue seeded')!;
    const seeded = report.rows as Record<string, number>;
    expect(await rowCounts(database.url, Object.keys(seeded))).toEqual(seeded);

    for (const { port } of listening.map(([line]) => line!)) {
      expect(await status(port, '/readyz')).toBe(200);
      expect(await status(port, '/products?market=se&limit=1')).toBe(200);
    }
  });
});

describe('WORKERS=2', TEST_PATIENCE, () => {
  const database = useEmptyServerDatabase();

  it('serves one port from two workers, restarts one that dies, and stops both on SIGTERM', async () => {
    const primary = database.serve({
      WORKERS: '2',
      SEED_ON_EMPTY: 'true',
      // The requests while a worker restarts are as many as it takes: none is rate limited.
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
    });
    const workers = await logged(primary, 'listening', 2);
    await logged(primary, 'all workers listening');
    const port = workers[0]!.port;
    expect(workers[1]!.port).toBe(port);
    expect(logLines(primary).filter((line) => line.msg === 'catalogue seeded')).toHaveLength(1);
    expect(await status(port, '/readyz')).toBe(200);

    // Killed outright: the other worker goes on serving, and a new one takes its place.
    const victim = Number((await workerPids(primary))[0]);
    process.kill(victim, 'SIGKILL');
    const [died] = await logged(primary, 'a worker died; restarting it');
    expect(died).toMatchObject({ workerPid: victim, signal: 'SIGKILL' });
    // Each on a connection of its own, handed out in turn: none reaches the worker starting
    // in the dead one's place before it can serve.
    const replaced = logged(primary, 'listening', 3);
    let restarted = false;
    void replaced.then(() => (restarted = true));
    const statuses = new Set<number>();
    while (!restarted)
      statuses.add((await getOnNewConnection(port, '/products?market=se&limit=1')).status);
    await replaced;
    expect([...statuses]).toEqual([200]);
    expect(await workerPids(primary)).not.toContain(victim);

    primary.child.kill('SIGTERM');
    expect(await primary.exited).toBe(0);
    expect(logLines(primary).filter((line) => line.msg === 'stopped')).toHaveLength(2);
    expect(logLines(primary).at(-1)).toMatchObject({ msg: 'every worker has stopped', code: 0 });
  });

  it('is refused on the embedded database, in one line', async () => {
    const { code, stderr } = await runToEnd('src/main.ts', ['serve'], {
      WORKERS: '2',
      EMBEDDED_DATA_DIR: 'memory://',
    });
    expect(code).toBe(2);
    expect(stderr.trim()).toBe(
      'Invalid configuration: WORKERS=2 needs DATABASE_URL: the embedded database serves one ' +
        'process only; set DATABASE_URL to a PostgreSQL server or WORKERS=1',
    );
  });
});
