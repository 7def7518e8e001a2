/**
 * Database templates built once per test run (vitest globalSetup): a migrated database and a
 * seeded one. Each test file then starts from a copy instead of migrating and seeding again:
 * `CREATE DATABASE … TEMPLATE` on the server, a data-directory dump loaded into PGlite.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEmbeddedDatabase, openDatabase } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { DEFAULT_SEED, seedCatalogue } from '../../seeds/index.ts';

/**
 * The seeded catalogue tests share: big enough for several pages of every list, and as of a
 * fixed day so that its rows, and the values tests expect, are the same on any day.
 */
export const SEEDED_CATALOGUE = {
  scale: 'sample',
  seed: DEFAULT_SEED,
  products: 300,
  asOf: '2026-11-01',
} as const;

export type TemplateName = 'migrated' | 'seeded';

export type DatabaseTemplates =
  | { kind: 'embedded'; files: Record<TemplateName, string>; directory: string }
  | { kind: 'postgres'; databases: Record<TemplateName, string> };

/** Migrates `database`, and for 'seeded' loads the shared catalogue into it. */
export async function fill(database: Parameters<typeof seedCatalogue>[0], template: TemplateName) {
  await migrateToLatest(database.db);
  if (template === 'seeded')
    await seedCatalogue(database, { ...SEEDED_CATALOGUE, progress: false });
}

async function buildEmbedded(): Promise<DatabaseTemplates> {
  const directory = await mkdtemp(path.join(tmpdir(), 'catalogue-test-templates-'));
  const files = {} as Record<TemplateName, string>;
  for (const template of ['migrated', 'seeded'] as const) {
    const pglite = await createEmbeddedDatabase('memory://');
    const database = await openDatabase({ pglite });
    try {
      await fill(database, template);
      await database.db.destroy();
      const dump = await pglite.dumpDataDir('none');
      files[template] = path.join(directory, `${template}.tar`);
      await writeFile(files[template], Buffer.from(await dump.arrayBuffer()));
    } finally {
      await pglite.close();
    }
  }
  return { kind: 'embedded', files, directory };
}

async function buildOnServer(
  serverUrl: string,
  create: (baseUrl: string, name: string) => Promise<string>,
): Promise<DatabaseTemplates> {
  const run = `${Date.now().toString(36)}_${process.pid}`;
  const databases = {} as Record<TemplateName, string>;
  for (const template of ['migrated', 'seeded'] as const) {
    databases[template] = `test_template_${template}_${run}`;
    const url = await create(serverUrl, databases[template]);
    const database = await openDatabase({ url });
    try {
      await fill(database, template);
    } finally {
      await database.close();
    }
  }
  return { kind: 'postgres', databases };
}

export function buildTemplates(
  serverUrl: string | undefined,
  create: (baseUrl: string, name: string) => Promise<string>,
): Promise<DatabaseTemplates> {
  return serverUrl ? buildOnServer(serverUrl, create) : buildEmbedded();
}

export async function removeTemplates(
  templates: DatabaseTemplates,
  drop: (name: string) => Promise<void>,
): Promise<void> {
  if (templates.kind === 'embedded') {
    await rm(templates.directory, { recursive: true, force: true });
  } else {
    for (const name of Object.values(templates.databases)) await drop(name);
  }
}
