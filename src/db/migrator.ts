/**
 * Runs schema/migrations in name order, each once, under Kysely's migration lock, so any
 * number of processes may call it at start at the same time.
 */
import { Migrator, type Kysely, type MigrationResult } from 'kysely';
import { migrations } from '../../schema/migrations/index.ts';

function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
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

/** Brings the database to the latest migration; returns the names of those it applied. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const { error, results = [] } = await createMigrator(db).migrateToLatest();
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
export async function pendingMigrations(db: Kysely<any>): Promise<string[]> {
  const migrations = await createMigrator(db).getMigrations();
  return migrations.filter((m) => m.executedAt === undefined).map((m) => m.name);
}
