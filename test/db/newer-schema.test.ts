/**
 * A database that a newer release has migrated further, met by this release's migrator
 * (docs/operations.md, "Upgrades and rollbacks"), the newer release played by
 * test/helpers/newer-release.ts. An expand
 * migration leaves this release running, with a warning; a contract migration records the
 * oldest release that runs after it, and older releases are refused by name; a database of
 * another line of releases is refused. On PGlite, and on the server when there is one.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrations, type MigrationList } from '../../schema/migrations/index.ts';
import { IncompatibleSchemaError } from '../../src/db/incompatible-schema.ts';
import { migrateToLatest, pendingMigrations } from '../../src/db/migrator.ts';
import { compareReleases, isRelease } from '../../src/db/schema-compatibility.ts';
import { packageVersion } from '../../src/version.ts';
import { keptLines } from '../helpers/kept-lines.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/database.ts';
import {
  CONTRACT,
  contractingRelease,
  EXPAND,
  expandingRelease,
} from '../helpers/newer-release.ts';

const kinds = serverUrl ? (['embedded', 'postgres'] as const) : (['embedded'] as const);

const keptWarnings = () => keptLines('warn');

describe('this release', () => {
  it("declares contract migrations' oldest releases as releases no newer than itself", () => {
    expect(isRelease(packageVersion())).toBe(true);
    for (const [name, { oldestRelease }] of Object.entries(migrations)) {
      if (oldestRelease === undefined) continue;
      expect(isRelease(oldestRelease), name).toBe(true);
      expect(compareReleases(oldestRelease, packageVersion()), name).toBeLessThanOrEqual(0);
    }
  });

  it('compares releases by number, part by part', () => {
    expect(compareReleases('0.10.0', '0.9.9')).toBeGreaterThan(0);
    expect(compareReleases('1.0.0', '1.0.0')).toBe(0);
    expect(compareReleases('0.2.9', '0.3.0')).toBeLessThan(0);
    expect(() => compareReleases('0.3', '0.3.0')).toThrow(/not a release/);
  });
});

// Each database is migrated from empty: tens of seconds on PGlite on a busy machine.
describe.each(kinds)('a database a newer release migrated, on %s', { timeout: 180_000 }, (kind) => {
  const databases: TestDatabase[] = [];
  afterAll(() => Promise.all(databases.map((database) => database.dispose())));

  async function migratedBy(release: MigrationList): Promise<Kysely<any>> {
    const database = await createTestDatabase({ contents: 'empty', embedded: kind === 'embedded' });
    databases.push(database);
    expect(await migrateToLatest(database.db, { migrations: release })).toEqual(
      Object.keys(release),
    );
    return database.db;
  }

  // One database through both tests: the newer release's expand migration, then its contract.
  let db: Kysely<any>;
  beforeAll(async () => {
    db = await migratedBy(expandingRelease);
  });

  it('by an expand migration: this release runs on it, applies nothing, and warns', async () => {
    const { lines, logger } = keptWarnings();
    expect(await migrateToLatest(db, { logger })).toEqual([]);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'the database has migrations of a newer release; this release is compatible and runs on it',
        release: packageVersion(),
        newerMigrations: [EXPAND],
      }),
    ]);
    // Readiness asks this: nothing of this release's is pending.
    expect(await pendingMigrations(db)).toEqual([]);
  });

  it('by a contract migration: its oldest release is recorded; older ones are refused, it and newer run', async () => {
    expect(await migrateToLatest(db, { migrations: contractingRelease('0.3.0') })).toEqual([
      CONTRACT,
    ]);
    const { rows } = await sql<{ migration: string; oldest_release: string }>`
      select migration, oldest_release from schema_compatibility`.execute(db);
    expect(rows).toEqual([{ migration: CONTRACT, oldest_release: '0.3.0' }]);

    const refused = await migrateToLatest(db, { release: '0.2.9' }).catch((error) => error);
    expect(refused).toBeInstanceOf(IncompatibleSchemaError);
    expect(refused.message).toMatch(
      /^the database's schema needs release 0\.3\.0 or newer \(its migration 9001_newer_release_contract, applied by a newer release\); this is release 0\.2\.9: deploy 0\.3\.0 or newer, or restore/,
    );
    expect(refused.details).toEqual({
      release: '0.2.9',
      newerMigrations: [EXPAND, CONTRACT],
      oldestRelease: '0.3.0',
      requiredBy: CONTRACT,
    });

    const { lines, logger } = keptWarnings();
    expect(await migrateToLatest(db, { release: '0.3.0', logger })).toEqual([]);
    expect(await migrateToLatest(db, { release: '1.0.0', logger })).toEqual([]);
    expect(lines.map((line) => line.oldestRelease)).toEqual(['0.3.0', '0.3.0']);
  });

  it('by another line of releases (one of ours missing under newer ones): refused', async () => {
    const ours = Object.keys(migrations).at(-1)!;
    const otherLine = Object.fromEntries(
      Object.entries(expandingRelease).filter(([name]) => name !== ours),
    );
    const refused = await migrateToLatest(await migratedBy(otherLine)).catch((error) => error);
    expect(refused).toBeInstanceOf(IncompatibleSchemaError);
    expect(refused.details).toMatchObject({ newerMigrations: [EXPAND], missingMigrations: [ours] });
    expect(refused.message).toMatch(/was migrated by another line of releases/);
  });
});
