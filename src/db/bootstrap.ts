/**
 * What every start does before serving: migrate, then fill an empty catalogue when asked to.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { DatabaseHandle } from './client.ts';
import { migrateToLatest } from './migrator.ts';

export type PreparationStep = 'migrating' | 'seeding';

export interface PreparationOptions {
  /** Told as each step begins (the port answers /readyz with it meanwhile). */
  onStep?: (step: PreparationStep) => void;
  /** Where seeding shows its progress: a bar on a terminal, periodic lines otherwise. */
  progress?: NodeJS.WritableStream | false;
}

export async function isCatalogueEmpty(database: DatabaseHandle): Promise<boolean> {
  const row = await database.db.selectFrom('products').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

export async function prepareDatabase(
  database: DatabaseHandle,
  config: Config,
  logger: Logger,
  options: PreparationOptions = {},
): Promise<void> {
  options.onStep?.('migrating');
  const applied = await migrateToLatest(database.db);
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  if (config.seedOnEmpty && (await isCatalogueEmpty(database))) {
    options.onStep?.('seeding');
    logger.info({ scale: config.seedScale }, 'empty catalogue: seeding');
    // Loaded only here: a service that does not seed never evaluates the generator and its
    // vocabulary (in the production bundle too, where esbuild wraps them in a lazy init).
    const { DEMO_CLIENT, seedCatalogue } = await import('../../seeds/index.ts');
    const report = await seedCatalogue(database, {
      scale: config.seedScale,
      progress: options.progress ?? false,
    });
    logger.info({ rows: report.rows, ms: report.milliseconds }, 'catalogue seeded');
    if (database.kind === 'embedded') {
      logger.info(
        { clientId: DEMO_CLIENT.id, clientSecret: DEMO_CLIENT.secret, ref: DEMO_CLIENT.ref },
        'sample data only: demo partner credentials',
      );
    }
  }
}
