/** `seed`: migrate, then fill the catalogue at a scale from a seed. */
import type { Config, SeedScale } from '../config.ts';
import { isCatalogueEmpty, noteDemoClient } from '../db/bootstrap.ts';
import { migrateToLatest } from '../db/migrator.ts';
import type { Logger } from '../logger.ts';
import type { ParsedValues } from './command-line.ts';
import type { SEED } from './commands.ts';
import { openCommandDatabase } from './database.ts';
import { UsageError } from './errors.ts';

export async function seed(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof SEED.options>,
): Promise<void> {
  const scale = (values.scale as SeedScale | undefined) ?? config.seedScale;

  const database = await openCommandDatabase(config, logger, 'seed');
  try {
    await migrateToLatest(database.db, { logger });
    if (!values.force && !(await isCatalogueEmpty(database))) {
      throw new UsageError('the catalogue is not empty; pass --force to replace it');
    }
    const { DEMO_CLIENT, seedCatalogue, utcToday } = await import('../../seeds/index.ts');
    const report = await seedCatalogue(database, {
      scale,
      ...(values.seed === undefined ? {} : { seed: Number(values.seed) }),
      asOf: values['as-of'] ?? utcToday(),
      progress: process.stderr,
      demoClient: config.seedDemoClient,
    });
    logger.info({ rows: report.rows, seconds: report.milliseconds / 1000 }, 'catalogue seeded');
    if (report.demoClient) noteDemoClient(logger, config, DEMO_CLIENT);
  } finally {
    await database.close();
  }
}
