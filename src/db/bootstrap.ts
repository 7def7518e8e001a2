/**
 * What every start does before serving: migrate, then fill an empty catalogue when asked to.
 */
import pg from 'pg';
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
  const applied = await migrateToLatest(database.db, { logger });
  if (applied.length > 0) logger.info({ migrations: applied }, 'migrations applied');

  if (!config.seedOnEmpty) return;
  // Checked under the lock: a catalogue another process is seeding is not empty, nor complete.
  await whileSeedingLocked(database, logger, async () => {
    if (await isCatalogueEmpty(database))
      await seedEmptyCatalogue(database, config, logger, options);
  });
}

/**
 * The advisory lock seeding is done under: when several processes start together on an empty
 * server database, one seeds and the rest wait for it, then find the catalogue seeded.
 */
const SEEDING_LOCK_KEY = 4_140_001;

/**
 * Runs `work` holding the seeding lock: a session lock on a connection of its own, outside
 * the pool, which seeding may need whole. The embedded database is one process's own: no lock.
 */
async function whileSeedingLocked(
  database: DatabaseHandle,
  logger: Logger,
  work: () => Promise<void>,
): Promise<void> {
  if (database.kind === 'embedded') return work();
  const client = new pg.Client(database.pool.options);
  // A connection lost meanwhile fails the query at hand; the event need only be heard.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>(
      'select pg_try_advisory_lock($1) as locked',
      [SEEDING_LOCK_KEY],
    );
    if (!rows[0]!.locked) {
      logger.info('another process is seeding the catalogue; waiting for it');
      await client.query('select pg_advisory_lock($1)', [SEEDING_LOCK_KEY]);
    }
    // Ending the session releases the lock, whether `work` succeeded or not.
    await work();
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function seedEmptyCatalogue(
  database: DatabaseHandle,
  config: Config,
  logger: Logger,
  options: PreparationOptions,
): Promise<void> {
  options.onStep?.('seeding');
  logger.info({ scale: config.seedScale }, 'empty catalogue: seeding');
  // Loaded only here: a service that does not seed never evaluates the generator and its
  // vocabulary (in the production bundle too, where esbuild wraps them in a lazy init).
  const { DEMO_CLIENT, seedCatalogue, utcToday } = await import('../../seeds/index.ts');
  const report = await seedCatalogue(database, {
    scale: config.seedScale,
    // The first start's catalogue is as of the day it starts (docs/api.md, "Clock").
    asOf: utcToday(),
    progress: options.progress ?? false,
    demoClient: config.seedDemoClient,
  });
  logger.info({ rows: report.rows, ms: report.milliseconds }, 'catalogue seeded');
  if (report.demoClient) noteDemoClient(logger, config, DEMO_CLIENT);
}

/**
 * The one line saying a seed added the demo partner client. Its secret is published in the
 * README, so in production the line is a warning and leaves the secret out; elsewhere it
 * hands a developer the credentials to try partner search with.
 */
export function noteDemoClient(
  logger: Logger,
  config: Pick<Config, 'production'>,
  client: { id: string; secret: string; ref: string },
): void {
  const { id: clientId, ref } = client;
  if (config.production) {
    logger.warn(
      { clientId, ref },
      'demo partner client added in production (SEED_DEMO_CLIENT=true): its secret is published in the README',
    );
    return;
  }
  logger.info(
    { clientId, clientSecret: client.secret, ref },
    'sample data only: demo partner client added',
  );
}
