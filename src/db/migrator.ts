/**
 * Runs schema/migrations in name order, each once, under Kysely's migration lock, so any
 * number of processes may call it at start at the same time. A database a newer release has
 * migrated further is run on as it is when its schema suits this release, and refused when
 * it does not (./schema-compatibility.ts; docs/operations.md, "Upgrades and rollbacks").
 */
import {
  DEFAULT_MIGRATION_TABLE,
  Migrator,
  sql,
  type Kysely,
  type Migration,
  type MigrationResult,
} from 'kysely';
import { migrations, type MigrationList } from '../../schema/migrations/index.ts';
import type { Logger } from '../logger.ts';
import { IncompatibleSchemaError } from './incompatible-schema.ts';
import { packageVersion } from '../version.ts';
import {
  compareReleases,
  oldestReleaseRequired,
  recordOldestRelease,
} from './schema-compatibility.ts';

/** Each migration, a contract migration recording its oldest release as it is applied. */
function withCompatibilityRecords(list: MigrationList): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(list).map(([name, { up, down, oldestRelease }]) => {
      if (oldestRelease === undefined) return [name, { up, down }];
      const upRecording = async (db: Kysely<any>) => {
        await up(db);
        await recordOldestRelease(db, name, oldestRelease);
      };
      return [name, { up: upRecording, down }];
    }),
  );
}

function createMigrator(db: Kysely<any>, list: MigrationList): Migrator {
  const resolved = withCompatibilityRecords(list);
  return new Migrator({ db, provider: { getMigrations: async () => resolved } });
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly results: MigrationResult[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

export interface MigrateOptions {
  /** The migrations to bring the database to: this release's (tests stand in for others). */
  migrations?: MigrationList;
  /** The release running them: package.json's version. */
  release?: string;
  /** Told when the database has a newer release's migrations and this release runs on it. */
  logger?: Pick<Logger, 'warn'>;
}

/**
 * Brings the database to the latest migration; returns the names of those it applied. A
 * database that a newer release has migrated further is left as it is (nothing applied) when
 * its schema suits this release, with a warning, and refused with an IncompatibleSchemaError
 * when it does not.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  options: MigrateOptions = {},
): Promise<string[]> {
  const list = options.migrations ?? migrations;
  const newer = await newerMigrations(db, list);
  if (newer.length > 0) {
    await checkNewerSchema(db, newer, options);
    return [];
  }
  const { error, results = [] } = await createMigrator(db, list).migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((result) => result.status === 'Error')?.migrationName;
    const message = failed ? `migration ${failed} failed` : 'migrating the database failed';
    throw new MigrationError(message, results, {
      cause: error,
    });
  }
  return results.filter((result) => result.status === 'Success').map((r) => r.migrationName);
}

/** The names of migrations not yet applied (empty when the database is up to date). */
export async function pendingMigrations(
  db: Kysely<any>,
  list: MigrationList = migrations,
): Promise<string[]> {
  const known = await createMigrator(db, list).getMigrations();
  return known.filter((m) => m.executedAt === undefined).map((m) => m.name);
}

/** The migrations applied to the database that `list` does not know: a newer release's. */
async function newerMigrations(db: Kysely<any>, list: MigrationList): Promise<string[]> {
  const { rows: found } = await sql<{ present: boolean }>`
    select to_regclass(${DEFAULT_MIGRATION_TABLE}) is not null as present`.execute(db);
  if (!found[0]?.present) return [];
  const { rows } = await sql<{ name: string }>`
    select name from ${sql.table(DEFAULT_MIGRATION_TABLE)} order by name`.execute(db);
  return rows.map((row) => row.name).filter((name) => !Object.hasOwn(list, name));
}

const POLICY = 'docs/operations.md, "Upgrades and rollbacks"';

/** Throws unless this release can run on a schema that `newer` migrations have changed. */
async function checkNewerSchema(
  db: Kysely<any>,
  newer: string[],
  options: MigrateOptions,
): Promise<void> {
  const release = options.release ?? packageVersion();
  const missing = await pendingMigrations(db, options.migrations);
  if (missing.length > 0) {
    throw new IncompatibleSchemaError(
      `the database has migrations this release (${release}) does not know (${newer.join(', ')}) ` +
        `but lacks some of its own (${missing.join(', ')}): it was migrated by another line of ` +
        `releases; start the release that migrated it (${POLICY})`,
      { release, newerMigrations: newer, missingMigrations: missing },
    );
  }
  const required = await oldestReleaseRequired(db);
  if (required !== undefined && compareReleases(release, required.release) < 0) {
    throw new IncompatibleSchemaError(
      `the database's schema needs release ${required.release} or newer (its migration ` +
        `${required.migration}, applied by a newer release); this is release ${release}: deploy ` +
        `${required.release} or newer, or restore the database from before that migration (${POLICY})`,
      {
        release,
        newerMigrations: newer,
        oldestRelease: required.release,
        requiredBy: required.migration,
      },
    );
  }
  options.logger?.warn(
    { release, newerMigrations: newer, oldestRelease: required?.release },
    'the database has migrations of a newer release; this release is compatible and runs on it',
  );
}
