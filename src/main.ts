/**
 * The only file that listens. Commands:
 *   serve (default)                       migrate, seed when empty, listen on PORT
 *   migrate                               apply pending migrations and exit
 *   seed [--scale S] [--seed N] [--force] fill the catalogue (--force: even when not empty)
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { createApp } from './app.ts';
import {
  ConfigError,
  loadConfig,
  redactUrl,
  SEED_SCALES,
  type Config,
  type SeedScale,
} from './config.ts';
import { openDatabase, type DatabaseHandle } from './db/client.ts';
import { isCatalogueEmpty, prepareDatabase } from './db/bootstrap.ts';
import { databaseConnectionFailure } from './db/connection-errors.ts';
import { migrateToLatest } from './db/migrator.ts';
import { createLogger, type Logger } from './logger.ts';
import { DEFAULT_SEED, seedCatalogue } from '../seeds/index.ts';

function open(config: Config, logger: Logger): Promise<DatabaseHandle> {
  logger.info(
    config.databaseUrl
      ? { database: redactUrl(config.databaseUrl) }
      : { database: 'embedded', dataDir: config.embeddedDataDir },
    'opening database',
  );
  return openDatabase({
    url: config.databaseUrl,
    embeddedDataDir: config.embeddedDataDir,
    poolSize: config.databasePoolSize,
    onPoolError: (error) => logger.warn({ err: error }, 'database connection lost; reconnecting'),
  });
}

async function serve(config: Config, logger: Logger): Promise<void> {
  const startedAt = performance.now();
  const database = await open(config, logger);
  await prepareDatabase(database, config, logger);

  const server = createServer(createApp({ config, database, logger }));
  await new Promise<void>((resolve) => server.listen(config.port, config.host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  logger.info(
    {
      port,
      graphql: `http://localhost:${port}/graphql`,
      ms: Math.round(performance.now() - startedAt),
    },
    'listening',
  );

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.closeIdleConnections();
    server.close(() => {
      database.close().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'closing the database failed');
          process.exit(1);
        },
      );
    });
    // In-flight requests get a grace period; then the process leaves regardless.
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

async function migrate(config: Config, logger: Logger): Promise<void> {
  const database = await open(config, logger);
  try {
    const applied = await migrateToLatest(database.db);
    logger.info({ migrations: applied }, applied.length ? 'migrations applied' : 'up to date');
  } finally {
    await database.close();
  }
}

async function seed(config: Config, logger: Logger, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      scale: { type: 'string', default: config.seedScale },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      force: { type: 'boolean', default: false },
    },
  });
  const scale = values.scale as SeedScale;
  if (!SEED_SCALES.includes(scale))
    throw new UsageError(`--scale must be one of ${SEED_SCALES.join(', ')}`);
  if (!/^\d+$/.test(values.seed)) throw new UsageError('--seed must be a non-negative integer');

  const database = await open(config, logger);
  try {
    await migrateToLatest(database.db);
    if (!values.force && !(await isCatalogueEmpty(database))) {
      throw new UsageError('the catalogue is not empty; pass --force to replace it');
    }
    const report = await seedCatalogue(database, {
      scale,
      seed: Number(values.seed),
      progress: process.stderr,
    });
    logger.info({ rows: report.rows, seconds: report.milliseconds / 1000 }, 'catalogue seeded');
  } finally {
    await database.close();
  }
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command = 'serve', ...rest] = argv;
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  switch (command) {
    case 'serve':
      return serve(config, logger);
    case 'migrate':
      return migrate(config, logger);
    case 'seed':
      return seed(config, logger, rest);
    default:
      throw new UsageError(`unknown command "${command}" (serve, migrate, seed)`);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  const unreachable = databaseConnectionFailure(error);
  if (unreachable !== undefined) {
    // The 'opening database' line logged just before names which database.
    console.error(`cannot reach the database: ${unreachable}`);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
});
