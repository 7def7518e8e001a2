/**
 * A newer release's migrations, as the tests of upgrades and rollbacks stand in for one: this
 * release's own plus an expand migration (a table this release never reads) and, for a
 * contract, one declaring the oldest release that runs after it (docs/operations.md,
 * "Upgrades and rollbacks"). Applied through this release's runner, as the newer one would.
 */
import { sql, type Kysely } from 'kysely';
import { migrations, type MigrationList } from '../../schema/migrations/index.ts';

export const EXPAND = '9000_newer_release_feature';
export const CONTRACT = '9001_newer_release_contract';

/** This release's migrations and a newer release's expand migration. */
export const expandingRelease: MigrationList = {
  ...migrations,
  [EXPAND]: {
    up: async (db: Kysely<any>) => {
      await sql`create table newer_release_feature (id integer primary key)`.execute(db);
    },
  },
};

/** The expanding release's, and a contract migration that releases before `oldest` cannot run on. */
export function contractingRelease(oldest: string): MigrationList {
  return {
    ...expandingRelease,
    [CONTRACT]: {
      oldestRelease: oldest,
      up: async (db: Kysely<any>) => {
        await sql`alter table newer_release_feature add column note text`.execute(db);
      },
    },
  };
}
