import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, pendingMigrations } from '../src/db/migrator.ts';
import { migrations } from '../schema/migrations/index.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from './helpers/database.ts';
import { insertBasics, insertProduct } from './helpers/fixtures.ts';

// Always on the embedded database, and on the server too when one is configured.
const kinds = serverUrl ? (['embedded', 'postgres'] as const) : (['embedded'] as const);

describe.each(kinds)('migrations on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'empty', embedded: kind === 'embedded' });
    expect(database.kind).toBe(kind);
  });
  afterAll(() => database?.dispose());

  it('apply to an empty database, then do nothing the second time', async () => {
    const all = Object.keys(migrations);
    expect(all[0]).toBe('0001_catalogue');
    expect(await pendingMigrations(database.db)).toEqual(all);
    expect(await migrateToLatest(database.db)).toEqual(all);
    expect(await migrateToLatest(database.db)).toEqual([]);
    expect(await pendingMigrations(database.db)).toEqual([]);
  });

  it('create every table of the data model and the availability view', async () => {
    const { rows } = await sql<{ table_name: string; table_type: string }>`
      select table_name, table_type from information_schema.tables
       where table_schema = 'public' and table_name not like 'kysely_%' order by table_name`.execute(
      database.db,
    );
    expect(rows.map((r) => `${r.table_name}:${r.table_type}`)).toEqual([
      'api_client_refs:BASE TABLE',
      'api_clients:BASE TABLE',
      'available_offers:VIEW',
      'brands:BASE TABLE',
      'catalogue_changes:BASE TABLE',
      'categories:BASE TABLE',
      'category_search_texts:VIEW',
      'category_search_vectors:BASE TABLE',
      'category_translations:BASE TABLE',
      'feed_run_bodies:BASE TABLE',
      'feed_runs:BASE TABLE',
      'gtins:BASE TABLE',
      'markets:BASE TABLE',
      'offer_alternative_prices:BASE TABLE',
      'offers:BASE TABLE',
      'price_history:BASE TABLE',
      'product_market_summaries:BASE TABLE',
      'product_properties:BASE TABLE',
      'products:BASE TABLE',
      'search_lexicons:BASE TABLE',
      'search_vocabulary:BASE TABLE',
      'shops:BASE TABLE',
      'trusted_documents:BASE TABLE',
      'unmatched_feed_items:BASE TABLE',
    ]);
  });

  it('know the seven markets with their currencies and search languages', async () => {
    const markets = await database.db
      .selectFrom('markets')
      .select(['code', 'currency', sql<string>`search_config::text`.as('language')])
      .orderBy('code')
      .execute();
    expect(markets).toEqual([
      { code: 'dk', currency: 'DKK', language: 'danish' },
      { code: 'fi', currency: 'EUR', language: 'finnish' },
      { code: 'fr', currency: 'EUR', language: 'french' },
      { code: 'gb', currency: 'GBP', language: 'english' },
      { code: 'no', currency: 'NOK', language: 'norwegian' },
      { code: 'nz', currency: 'NZD', language: 'english' },
      { code: 'se', currency: 'SEK', language: 'swedish' },
    ]);
  });
});

describe.each(kinds)('0003 on %s, over an existing catalogue', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'empty', embedded: kind === 'embedded' });
  });
  afterAll(() => database?.dispose());

  it('stores each summary row’s name vector in its market’s language', async () => {
    const { db } = database;
    const before = new Migrator({
      db,
      provider: { getMigrations: async () => migrations },
    });
    const { error } = await before.migrateTo('0002_price_trend_order_index');
    expect(error).toBeUndefined();
    await insertBasics(db);
    await insertProduct(db, 1, { name: 'Väskor för Mobiltelefoner' });
    await sql`insert into product_market_summaries (product_id, market, category_id, popularity,
                available_offer_count, lowest_price, as_of)
              values (1, 'se', 2, 1, 1, 10, '2026-11-01'), (1, 'fr', 2, 1, 1, 10, '2026-11-01')`.execute(
      db,
    );

    // 0005 replaces name_vector with search_vector (test/search/migration.test.ts).
    const { results } = await before.migrateTo('0004_category_order_indexes');
    expect(results?.map((result) => result.migrationName)).toEqual([
      '0003_summary_name_vectors',
      '0004_category_order_indexes',
    ]);
    const { rows } = await sql<{ market: string; stored: string; expected: string }>`
      select s.market, s.name_vector::text as stored,
             to_tsvector(m.search_config, p.name)::text as expected
        from product_market_summaries s
        join products p on p.id = s.product_id join markets m on m.code = s.market
       order by s.market`.execute(db);
    expect(rows.map((row) => row.market)).toEqual(['fr', 'se']);
    for (const row of rows) expect(row.stored, row.market).toBe(row.expected);
    // Swedish stemming, not French: the languages differ in what they store.
    expect(rows[1]!.stored).toContain("'mobiltelefon'");
    expect(rows[0]!.stored).not.toEqual(rows[1]!.stored);
  });
});

describe.each(kinds)('0007 on %s', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'empty', embedded: kind === 'embedded' });
    await migrateToLatest(database.db);
    await insertBasics(database.db);
  });
  afterAll(() => database?.dispose());

  it('binds a client to an existing shop or to none, and deletes it with its shop', async () => {
    const { db } = database;
    const client = (id: string, shopId: number | null) => ({
      id,
      name: id,
      secret_hash: 'scrypt$1$1$1$c2FsdA==$aGFzaA==',
      shop_id: shopId,
    });
    await db
      .insertInto('api_clients')
      .values([client('partner-a', null), client('shop-1-a', 1), client('shop-2-a', 2)])
      .execute();
    await expect(
      db.insertInto('api_clients').values(client('shop-99-a', 99)).execute(),
    ).rejects.toThrow(/foreign key/);

    await db.deleteFrom('shops').where('id', '=', 1).execute();
    const left = await db
      .selectFrom('api_clients')
      .select(['id', 'shop_id'])
      .orderBy('id')
      .execute();
    expect(left).toEqual([
      { id: 'partner-a', shop_id: null },
      { id: 'shop-2-a', shop_id: 2 },
    ]);
  });
});

describe('the migration list', () => {
  it('names every migration file in schema/migrations', async () => {
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir(new URL('../schema/migrations', import.meta.url)))
      .filter((file) => /^\d{4}_.+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ''));
    expect(Object.keys(migrations)).toEqual(files.sort());
  });
});
