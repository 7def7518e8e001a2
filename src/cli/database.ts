/**
 * Opens the configured database for a command, holding the embedded data directory's lock for
 * as long as the handle is open.
 */
import { redactUrl, type Config, type ConfiguredCommand } from '../config.ts';
import { APPLICATION_NAME, openDatabase, type DatabaseHandle } from '../db/client.ts';
import { migrateToLatest } from '../db/migrator.ts';
import type { DatabaseStatus } from '../db/replicas.ts';
import type { Logger } from '../logger.ts';
import { lockDataDirectory } from './data-directory-lock.ts';

/** `command` names the connections to the server (pg_stat_activity's `application_name`). */
export async function openCommandDatabase(
  config: Config,
  logger: Logger,
  command: ConfiguredCommand,
): Promise<DatabaseHandle> {
  const options = {
    url: config.databaseUrl,
    applicationName: `${APPLICATION_NAME}/${command}`,
    embeddedDataDir: config.embeddedDataDir,
    poolSize: config.databasePoolSize,
    onPoolError: (error: Error) =>
      logger.warn({ err: error }, 'database connection lost; reconnecting'),
    replicaUrls: config.databaseReplicaUrls,
    replicaMaxLagMs: config.replicaMaxLagMs,
    replicaCheckIntervalMs: config.replicaCheckIntervalMs,
    onReplicaStateChange: (status: DatabaseStatus) =>
      status.state === 'serving'
        ? logger.info({ database: status }, 'replica serving reads')
        : logger.warn({ database: status }, 'replica out of service; its reads go elsewhere'),
  };
  if (config.databaseUrl) {
    logger.info(
      {
        database: redactUrl(config.databaseUrl),
        replicas: config.databaseReplicaUrls.map(redactUrl),
      },
      'opening database',
    );
    return openDatabase(options);
  }
  logger.info({ database: 'embedded', dataDir: config.embeddedDataDir }, 'opening database');
  if (config.embeddedDataDir.startsWith('memory://')) return openDatabase(options);

  const release = await lockDataDirectory(config.embeddedDataDir, (error) => {
    logger.fatal({ err: error }, 'lost the lock on the embedded data directory; stopping');
    process.exit(1);
  });
  let database: DatabaseHandle;
  try {
    database = await openDatabase(options);
  } catch (error) {
    await release();
    throw error;
  }
  return {
    ...database,
    async close() {
      await database.close();
      await release();
    },
  };
}

/** Runs `work` on the migrated database, closed (and its data directory unlocked) after. */
export async function withMigratedDatabase<T>(
  config: Config,
  logger: Logger,
  command: ConfiguredCommand,
  work: (database: DatabaseHandle) => Promise<T>,
): Promise<T> {
  const database = await openCommandDatabase(config, logger, command);
  try {
    const applied = await migrateToLatest(database.db, { logger });
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');
    return await work(database);
  } finally {
    await database.close();
  }
}
