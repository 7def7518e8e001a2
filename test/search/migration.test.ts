/**
 * Migration 0005 over an existing catalogue: summary rows written under 0003's name vectors
 * get search vectors of name, brand and category names in their market's language, and the
 * vocabulary holds the catalogue's words.
 */
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { listSearchVocabulary } from '../../src/db/repositories/search-vocabulary.ts';
import { migrations } from '../../schema/migrations/index.ts';
import { createTestDatabase, serverUrl, type TestDatabase } from '../helpers/database.ts';
import { insertBasics, insertProduct } from '../helpers/fixtures.ts';

const kinds = serverUrl ? (['embedded', 'postgres'] as const) : (['embedded'] as const);

describe.each(kinds)('0005 on %s, over an existing catalogue', (kind) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'empty', embedded: kind === 'embedded' });
  });
  afterAll(() => database?.dispose());

  it('writes search vectors and the vocabulary', async () => {
    const { db } = database;
    const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
    expect((await migrator.migrateTo('0004_category_order_indexes')).error).toBeUndefined();
    await insertBasics(db);
    await insertProduct(db, 1, { name: 'Galaxy S24' });
    await sql`update brands set name = 'Samsung' where id = 1`.execute(db);
    await sql`insert into product_market_summaries (product_id, market, category_id, popularity,
                available_offer_count, lowest_price, as_of, name_vector)
              values (1, 'se', 2, 1, 1, 10, '2026-11-01', ''), (1, 'fr', 2, 1, 1, 10, '2026-11-01', '')`.execute(
      db,
    );

    expect(await migrateToLatest(db)).toContain('0005_search_vectors');
    const { rows } = await sql<{ market: string; vector: string }>`
      select market, search_vector::text as vector from product_market_summaries
       order by market`.execute(db);
    expect(rows.map((row) => row.market)).toEqual(['fr', 'se']);
    const [fr, se] = rows.map((row) => row.vector);
    // Name A, brand B, the leaf category C (translated and English), its parent D.
    expect(se).toContain("'galaxy':1A");
    expect(se).toContain("'samsung':3B");
    expect(se).toMatch(/'mobiltelefon':\d+C/);
    expect(se).toMatch(/'elektronik':\d+( |$)/); // D is the weight tsvector text leaves out
    expect(fr).toMatch(/'téléphon':\d+C/);
    const swedish = await listSearchVocabulary(db, 'swedish');
    expect(swedish).toEqual(
      expect.arrayContaining(['galaxy', 'samsung', 'mobiltelefoner', 'mobile']),
    );
    expect(swedish).not.toContain('s24'); // digits are never corrected towards
    expect(await listSearchVocabulary(db, 'french')).toContain('téléphones');
  });
});
