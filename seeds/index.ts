/**
 * Fills a migrated database with the deterministic catalogue at a scale, replacing whatever
 * catalogue is there (markets stay: they belong to the migration).
 *
 *   frame     brands, categories, shops; each product's category and rank   (frame.ts)
 *   generate  products one by one as COPY text                            (generate/)
 *   load      COPY streams or array inserts, indexes and keys set aside    (load/)
 *   complete  summaries via refreshProductMarketSummaries, indexes, keys, ANALYZE
 *   vocabulary the search's words and lexemes (rebuildSearchWords)
 *
 * Same seed, scale and as-of date, same rows in every table: all randomness comes from
 * seeds/random.ts keyed by the seed, all dates from the as-of date (seeds/calendar.ts).
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { hashClientSecret } from '../src/auth/client-secrets.ts';
import type { DatabaseHandle } from '../src/db/client.ts';
import type { SeedScale } from '../src/config.ts';
import { rebuildSearchWords } from '../src/db/repositories/search-vocabulary.ts';
import { SeedCalendar } from './calendar.ts';
import { buildFrame, type CatalogueFrame } from './frame.ts';
import { CatalogueGenerator, type ProductSinks } from './generate/catalogue.ts';
import { completeCatalogue, withClient } from './load/complete.ts';
import { CopyBuffer } from './load/copy-buffer.ts';
import { copyLine } from './load/copy-text.ts';
import { closeJournal, deferDefinitions, restoreStatements } from './load/deferred-definitions.ts';
import { chooseWriter, openTableWriter, type TableWriter } from './load/table-writers.ts';
import { createProgress, type Progress } from './progress.ts';
import { SCALES } from './scales.ts';
import { CATALOGUE_TABLES, FEED_TABLES, PRODUCT_TABLES, REFERENCE_TABLES } from './tables.ts';

export { utcToday } from './calendar.ts';

export const DEFAULT_SEED = 1;

export interface SeedOptions {
  scale: SeedScale;
  /** Any integer from 0 to 2^32 − 1; DEFAULT_SEED when absent. */
  seed?: number;
  /**
   * The seed's "today", 'YYYY-MM-DD': price history ends the day before, offers were updated
   * in the days before, sales run around it. Required, so that no caller's data depends on the
   * day it runs by accident: the commands pass utcToday() unless told a date.
   */
  asOf: string;
  /** Progress output: a bar on a terminal, plain lines otherwise, nothing when false. */
  progress?: NodeJS.WritableStream | false;
  /** Overrides the scale's product count (tests seed a few hundred products quickly). */
  products?: number;
  /**
   * Whether to add the demo partner client, whose secret is published (default true): the
   * commands pass SEED_DEMO_CLIENT, false in production unless asked.
   */
  demoClient?: boolean;
}

export interface SeedReport {
  scale: SeedScale;
  seed: number;
  asOf: string;
  /** Rows written per table. */
  rows: Record<string, number>;
  /** Whether the demo partner client was added. */
  demoClient: boolean;
  milliseconds: number;
}

/** The sample catalogue's partner client (sample data only; documented in the README). */
export const DEMO_CLIENT = { id: 'demo-partner', secret: 'demo-secret', ref: 'demo-ref' } as const;

/** Products generated between two writes: a few megabytes of COPY text. */
const CHUNK_PRODUCTS = 500;

export async function seedCatalogue(
  database: DatabaseHandle,
  options: SeedOptions,
): Promise<SeedReport> {
  const started = performance.now();
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffff_ffff) {
    throw new RangeError(`seed must be an integer from 0 to ${0xffff_ffff}, got ${seed}`);
  }
  const products = options.products ?? SCALES[options.scale].products;
  if (!Number.isInteger(products) || products < 1) {
    throw new RangeError(`products must be a positive integer, got ${products}`);
  }
  const calendar = new SeedCalendar(options.asOf);
  const progress = createProgress(options.progress);

  const markets = await database.db.selectFrom('markets').select(['code', 'currency']).execute();
  const frame = buildFrame(seed, { ...SCALES[options.scale], products }, markets);

  const definitions = await withClient(database.pool, async (client) => {
    await client.query('begin');
    await client.query(`truncate ${[...CATALOGUE_TABLES, ...FEED_TABLES].join(', ')}`);
    const deferred = await deferDefinitions(client, CATALOGUE_TABLES);
    await client.query('commit');
    return deferred;
  });

  try {
    const rows = await loadCatalogue(database, frame, calendar, progress);
    // Offers a feed adds take their ids after the generated ones.
    await sql`select setval(pg_get_serial_sequence('offers', 'id'),
                            (select coalesce(max(id), 0) + 1 from offers), false)`.execute(
      database.db,
    );
    const demoClient = options.demoClient ?? true;
    if (demoClient) await insertDemoClient(database, seed, calendar);
    rows.api_clients = demoClient ? 1 : 0;
    rows.api_client_refs = demoClient ? 1 : 0;
    rows.product_market_summaries = await completeCatalogue(database, {
      asOf: calendar.asOf,
      tables: [...REFERENCE_TABLES, ...PRODUCT_TABLES],
      definitions,
      rows,
      products,
      progress,
    });
    progress.note('building the search vocabulary and lexicons');
    await rebuildSearchWords(database.db);
    progress.stop();
    return {
      scale: options.scale,
      seed,
      asOf: calendar.asOf,
      rows,
      demoClient,
      milliseconds: Math.round(performance.now() - started),
    };
  } catch (error) {
    progress.stop();
    await abandonCatalogue(database).catch(() => undefined);
    throw error;
  }
}

async function loadCatalogue(
  database: DatabaseHandle,
  frame: CatalogueFrame,
  calendar: SeedCalendar,
  progress: Progress,
): Promise<Record<string, number>> {
  const rows: Record<string, number> = {};
  const kind = chooseWriter(database, PRODUCT_TABLES.length);
  progress.note(`loading with ${kind}`);

  // The reference tables are small: one statement each on one connection.
  const referenceKind = kind === 'parallel copy' ? 'sequential copy' : kind;
  await writeAll(openTableWriter(database, referenceKind, REFERENCE_TABLES), async (writer) => {
    for (const table of REFERENCE_TABLES) {
      const tableRows = frame.rows[table];
      await writer.write(table, Buffer.from(tableRows.map(copyLine).join('')));
      rows[table] = tableRows.length;
    }
  });

  const generator = new CatalogueGenerator(frame, calendar);
  const texts = Object.fromEntries(
    PRODUCT_TABLES.map((table) => [table, new CopyBuffer()]),
  ) as ProductSinks;
  const total = generator.productCount;
  progress.phase('products', total, 'products');
  await writeAll(openTableWriter(database, kind, PRODUCT_TABLES), async (writer) => {
    for (let first = 1; first <= total; first += CHUNK_PRODUCTS) {
      const last = Math.min(total, first + CHUNK_PRODUCTS - 1);
      for (let id = first; id <= last; id++) generator.generate(id, texts);
      for (const table of PRODUCT_TABLES) await writer.write(table, texts[table].take());
      progress.update(last);
    }
  });
  progress.stop();
  for (const table of PRODUCT_TABLES) rows[table] = texts[table].rows;
  return rows;
}

/**
 * Runs `work` on a writer, then commits it; on failure rolls it back and rethrows. Nothing
 * runs between opening and the guard: an open writer holds connections and table locks.
 */
async function writeAll(
  opening: Promise<TableWriter>,
  work: (writer: TableWriter) => Promise<void>,
): Promise<void> {
  const writer = await opening;
  try {
    await work(writer);
  } catch (error) {
    await writer.abort(error as Error);
    throw error;
  }
  await writer.finish();
}

/**
 * The demo partner of decisions section 2. The salt is derived from the seed so that the
 * stored hash, like every other row, is the same on every run.
 */
async function insertDemoClient(
  database: DatabaseHandle,
  seed: number,
  calendar: SeedCalendar,
): Promise<void> {
  const salt = createHash('sha256')
    .update(`catalogue-seed:${seed}:${DEMO_CLIENT.id}`)
    .digest()
    .subarray(0, 16);
  await database.db
    .insertInto('api_clients')
    .values({
      id: DEMO_CLIENT.id,
      name: 'Demo partner (sample data)',
      secret_hash: await hashClientSecret(DEMO_CLIENT.secret, salt),
      created_at: calendar.midnight,
    })
    .execute();
  await database.db
    .insertInto('api_client_refs')
    .values({ ref: DEMO_CLIENT.ref, client_id: DEMO_CLIENT.id })
    .execute();
}

/**
 * After a failed seed: empties the catalogue and puts every deferred index and key back (on
 * empty tables, instantly), so a failed seed leaves an empty but whole catalogue. Whatever the
 * failure had already restored is set aside again first, so nothing is created twice. Should
 * this fail too, the journal stays and the next seed restores from it.
 */
async function abandonCatalogue(database: DatabaseHandle): Promise<void> {
  await withClient(database.pool, async (client) => {
    await client.query('begin');
    await client.query(`truncate ${[...CATALOGUE_TABLES, ...FEED_TABLES].join(', ')}`);
    for (const item of await deferDefinitions(client, CATALOGUE_TABLES)) {
      for (const statement of restoreStatements(item)) await client.query(statement);
    }
    await closeJournal(client);
    await client.query('commit');
  });
}
