/**
 * A command's connections tell Postgres which command they serve (`application_name`, in
 * pg_stat_activity): `catalogue-gateway/<command>`, unless the URL names one itself. On a
 * server database of the test's own (a scratch cluster in the PGlite pass).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCommandDatabase } from '../../src/cli/database.ts';
import { loadConfig, type ConfiguredCommand } from '../../src/config.ts';
import { emptyServerDatabase } from '../helpers/serve-processes.ts';

describe("a command's database connections", () => {
  let database: Awaited<ReturnType<typeof emptyServerDatabase>>;
  beforeAll(async () => {
    database = await emptyServerDatabase();
  });
  afterAll(() => database?.remove());

  async function applicationName(url: string, command: ConfiguredCommand): Promise<string> {
    const handle = await openCommandDatabase(
      loadConfig({ DATABASE_URL: url }),
      pino({ level: 'silent' }),
      command,
    );
    try {
      const { rows } = await handle.pool.query<{ name: string }>(
        `select application_name as name from pg_stat_activity where pid = pg_backend_pid()`,
      );
      return rows[0]!.name;
    } finally {
      await handle.close();
    }
  }

  it('are named after the command', async () => {
    for (const command of [
      'serve',
      'migrate',
      'seed',
      'feed',
      'clients',
      'documents',
      'cache',
    ] as const) {
      expect(await applicationName(database.url, command)).toBe(`catalogue-gateway/${command}`);
    }
  });

  it('keep the name a URL gives them', async () => {
    const url = new URL(database.url);
    url.searchParams.set('application_name', 'reporting');
    expect(await applicationName(url.toString(), 'serve')).toBe('reporting');
  });
});
