/**
 * The benchmark's own catalogue: a database per scale on the Postgres server, seeded once and
 * reused while it still holds a complete catalogue of that scale at the current migration.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import type { SeedScale } from '../src/config.ts';
import { SCALES } from '../seeds/scales.ts';

const DEFAULT_SERVER_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** The benches' `--server-url` option and its environment variable, as their help states them. */
export const SERVER_URL_OPTION = {
  type: 'string',
  value: 'URL',
  description: 'the PostgreSQL server (default: BENCH_SERVER_URL)',
} as const;

export const SERVER_URL_ENVIRONMENT = {
  names: ['BENCH_SERVER_URL'],
  meaning: `the PostgreSQL server, when --server-url is not given (default: ${DEFAULT_SERVER_URL})`,
};

/** The server a bench runs on: `--server-url`, else BENCH_SERVER_URL, else the local one. */
export function benchServerUrl(option: string | undefined): string {
  return option ?? process.env.BENCH_SERVER_URL ?? DEFAULT_SERVER_URL;
}

export function catalogueUrl(
  serverUrl: string,
  scale: SeedScale,
  database = `catalogue_${scale}`,
): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Why the database cannot be reused as it is, or null when it can. */
async function staleReason(url: string, scale: SeedScale): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const tables = await client.query<{ name: string | null }>(
      `select to_regclass('products')::text as name`,
    );
    if (tables.rows[0]!.name === null) return 'not migrated';
    const products = await client.query<{ count: string }>('select count(*) from products');
    const expected = SCALES[scale].products;
    if (Number(products.rows[0]!.count) !== expected) {
      return `holds ${products.rows[0]!.count} products, the ${scale} scale has ${expected}`;
    }
    // A seed killed half-way leaves its journal of dropped indexes and keys behind.
    const journal = await client.query<{ name: string | null }>(
      `select to_regclass('seed_deferred_definitions')::text as name`,
    );
    if (journal.rows[0]!.name !== null) {
      const pending = await client.query('select 1 from seed_deferred_definitions limit 1');
      if (pending.rowCount) return 'an interrupted seed left indexes to restore';
    }
    return null;
  } finally {
    await client.end();
  }
}

async function ensureDatabaseExists(serverUrl: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
    if (!found.rowCount) await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
}

/** Runs a command of src/main.ts (as a user would), its output on ours. */
function runMain(url: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
      env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`)),
    );
  });
}

/**
 * The URL of a database holding the scale's catalogue, seeding it first when needed. A bench
 * that writes to its catalogue (npm run bench:feeds) names a database of its own, so the
 * reading benches keep measuring the seeded catalogue.
 */
export async function prepareCatalogue(
  serverUrl: string,
  scale: SeedScale,
  log: (line: string) => void,
  database = `catalogue_${scale}`,
): Promise<string> {
  const url = catalogueUrl(serverUrl, scale, database);
  await ensureDatabaseExists(serverUrl, database);
  const reason = await staleReason(url, scale);
  if (reason === null) {
    log(`${database}: reusing the seeded ${scale} catalogue`);
    // A migration added since it was seeded (an index, say) is applied now, not at the
    // gateway's start, which the benchmark times.
    await runMain(url, ['migrate']);
  } else {
    log(`${database}: ${reason}; seeding the ${scale} scale`);
    await runMain(url, ['seed', '--scale', scale, '--force']);
  }
  return url;
}
