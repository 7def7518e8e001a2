/**
 * What every start does before serving: migrate, then fill an empty catalogue when asked to.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { DEMO_CLIENT, seedCatalogue } from '../../seeds/index.ts';
import type { DatabaseHandle } from './client.ts';
import { migrateToLatest } from './migrator.ts';

export async function isCatalogueEmpty(database: DatabaseHandle): Promise<boolean> {
  const row = await database.db.selectFrom('products').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

export async function prepareDatabase(
  database: DatabaseHandle,
  config: Config,
  logger: Logger,
): Promise<void> {
  const applied = await migrateToLatest(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  if (config.seedOnEmpty && (await isCatalogueEmpty(database))) {
    logger.info({ scale: config.seedScale }, 'empty catalogue: seeding');
    const report = await seedCatalogue(database, { scale: config.seedScale, progress: false });
    logger.info({ rows: report.rows, ms: report.milliseconds }, 'catalogue seeded');
    if (database.kind === 'embedded') {
      logger.info(
        { clientId: DEMO_CLIENT.id, clientSecret: DEMO_CLIENT.secret, ref: DEMO_CLIENT.ref },
        'sample data only: demo partner credentials',
      );
    }
  }
}
