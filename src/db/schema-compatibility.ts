/**
 * Which releases can run on the database's schema (docs/operations.md, "Upgrades and
 * rollbacks"). A contract migration (one that removes or changes what older releases use)
 * declares the oldest release that runs on the schema once it is applied; the runner records
 * that here, in the migration's own transaction. A release that finds migrations it does not
 * know, applied by a newer release, reads the record: it runs on the schema when it is at
 * least every release recorded, and refuses to start otherwise. An expand migration records
 * nothing: every release that ran before it runs after it.
 *
 * The table belongs to the runner, like Kysely's own `kysely_migration`, and is created with
 * the first record: until a contract migration has run, every schema suits every release.
 */
import { sql, type Kysely } from 'kysely';

const TABLE = 'schema_compatibility';

/** A release as package.json numbers it: major.minor.patch. */
const RELEASE = /^(\d+)\.(\d+)\.(\d+)$/;

export function isRelease(text: string): boolean {
  return RELEASE.test(text);
}

/** Negative when release `a` is older than `b`, 0 when they are the same, positive when newer. */
export function compareReleases(a: string, b: string): number {
  const parts = (release: string) => {
    const match = RELEASE.exec(release);
    if (!match) throw new Error(`"${release}" is not a release (major.minor.patch)`);
    return match.slice(1).map(Number);
  };
  const [left, right] = [parts(a), parts(b)];
  for (let i = 0; i < left.length; i++) {
    if (left[i] !== right[i]) return left[i]! - right[i]!;
  }
  return 0;
}

/** Records, on the migration's own transaction, the oldest release that runs after it. */
export async function recordOldestRelease(
  db: Kysely<any>,
  migration: string,
  release: string,
): Promise<void> {
  // Under the migrator's lock: no other process creates it meanwhile.
  await sql`create table if not exists ${sql.table(TABLE)} (
              migration text primary key,
              oldest_release text not null,
              recorded_at timestamptz not null default now()
            )`.execute(db);
  await sql`insert into ${sql.table(TABLE)} (migration, oldest_release)
            values (${migration}, ${release})`.execute(db);
}

export interface ReleaseRequirement {
  /** The oldest release that runs on the schema. */
  release: string;
  /** The migration that declared it. */
  migration: string;
}

/** The newest of the releases recorded, or undefined when no contract migration has run. */
export async function oldestReleaseRequired(
  db: Kysely<any>,
): Promise<ReleaseRequirement | undefined> {
  const { rows: found } = await sql<{ present: boolean }>`
    select to_regclass(${TABLE}) is not null as present`.execute(db);
  if (!found[0]?.present) return undefined;
  const { rows } = await sql<{ migration: string; release: string }>`
    select migration, oldest_release as release from ${sql.table(TABLE)}`.execute(db);
  let newest: ReleaseRequirement | undefined;
  for (const row of rows) {
    if (newest === undefined || compareReleases(row.release, newest.release) > 0) newest = row;
  }
  return newest;
}
