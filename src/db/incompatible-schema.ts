/**
 * The database's schema is not one this release can run on: a newer release's that needs a
 * newer one, or another line of releases' (src/db/migrator.ts). Apart from the migrator so
 * that the command line can tell it without loading the migrations.
 */
export class IncompatibleSchemaError extends Error {
  constructor(
    message: string,
    readonly details: {
      release: string;
      /** Applied to the database, unknown to this release. */
      newerMigrations: string[];
      oldestRelease?: string;
      requiredBy?: string;
      /** This release's, not applied although the newer ones are. */
      missingMigrations?: string[];
    },
  ) {
    super(message);
    this.name = 'IncompatibleSchemaError';
  }
}
