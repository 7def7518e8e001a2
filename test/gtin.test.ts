import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';
import { insertBasics, insertProduct } from './helpers/fixtures.ts';

describe(`GTIN check digits on ${databaseKind}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await insertBasics(database.db);
    await insertProduct(database.db, 1);
  });
  afterAll(() => database?.dispose());

  const isValid = async (gtin: string) =>
    (
      await sql<{ valid: boolean | null }>`select gtin_is_valid(${gtin}) as valid`.execute(
        database.db,
      )
    ).rows[0]?.valid;

  it.each([
    ['4006381333931', true], // GTIN-13 (EAN)
    ['0012345678905', true], // GTIN-13 with leading zeros
    ['036000291452', true], // GTIN-12 (UPC-A)
    ['96385074', true], // GTIN-8
    ['10012345678902', true], // GTIN-14
    ['4006381333932', false], // wrong check digit
    ['400638133393', false], // 12 digits, wrong check digit
    ['4006381333', false], // 10 digits: no such GTIN length
    ['40063813339311', false], // 14 digits, wrong check digit
    ['400638133393A', false],
    ['', false],
  ])('%s is %s', async (gtin, expected) => {
    expect(await isValid(gtin)).toBe(expected);
  });

  it('refuses to store an invalid GTIN and a duplicate one', async () => {
    await database.db
      .insertInto('gtins')
      .values({ gtin: '4006381333931', product_id: 1 })
      .execute();
    await expect(
      database.db.insertInto('gtins').values({ gtin: '4006381333932', product_id: 1 }).execute(),
    ).rejects.toThrow(/check constraint/);
    await expect(
      database.db.insertInto('gtins').values({ gtin: '4006381333931', product_id: 1 }).execute(),
    ).rejects.toThrow(/duplicate key/);
  });
});
