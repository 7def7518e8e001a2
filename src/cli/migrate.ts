/** `migrate`: apply pending migrations and exit. */
import type { Config } from '../config.ts';
import { migrateToLatest } from '../db/migrator.ts';
import type { Logger } from '../logger.ts';
import { openCommandDatabase } from './database.ts';

export async function migrate(config: Config, logger: Logger): Promise<void> {
  const database = await openCommandDatabase(config, logger, 'migrate');
  try {
    const applied = await migrateToLatest(database.db, { logger });
    logger.info({ migrations: applied }, applied.length ? 'migrations applied' : 'up to date');
  } finally {
    await database.close();
  }
}
