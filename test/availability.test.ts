import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOCK_STATUSES } from '../src/db/types.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';
import { insertBasics, insertOffers, insertProduct } from './helpers/fixtures.ts';

describe(`the availability rule on ${databaseKind}`, () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
    await insertBasics(database.db);
    await insertProduct(database.db, 1);
    // Every stock status, once purchasable and once not: offer ids 1..12.
    await insertOffers(
      database.db,
      STOCK_STATUSES.flatMap((stock_status, index) => [
        { id: index * 2 + 1, product_id: 1, price: 100, stock_status, purchasable: true },
        { id: index * 2 + 2, product_id: 1, price: 100, stock_status, purchasable: false },
      ]),
    );
  });
  afterAll(() => database?.dispose());

  it('keeps purchasable offers that are not out of stock, UNKNOWN included', async () => {
    const rows = await database.db
      .selectFrom('available_offers')
      .select(['id', 'stock_status', 'purchasable'])
      .orderBy('id')
      .execute();
    expect(rows).toEqual([
      { id: 1, stock_status: 'IN_STOCK', purchasable: true },
      { id: 3, stock_status: 'LIMITED_STOCK', purchasable: true },
      { id: 5, stock_status: 'PREORDER', purchasable: true },
      { id: 7, stock_status: 'INCOMING', purchasable: true },
      { id: 9, stock_status: 'UNKNOWN', purchasable: true },
    ]);
  });

  it('rejects stock statuses and conditions outside the known sets', async () => {
    await expect(
      insertOffers(database.db, [
        { id: 100, product_id: 1, price: 1, stock_status: 'SOLD_OUT' as never },
      ]),
    ).rejects.toThrow(/check constraint/);
    await expect(
      insertOffers(database.db, [{ id: 101, product_id: 1, price: 1, condition: 'MINT' as never }]),
    ).rejects.toThrow(/check constraint/);
  });

  it('rejects negative prices and a currency that is not the market’s', async () => {
    await expect(
      insertOffers(database.db, [{ id: 102, product_id: 1, price: -1 }]),
    ).rejects.toThrow(/check constraint/);
    await expect(
      insertOffers(database.db, [
        { id: 103, product_id: 1, price: 1, market: 'se', currency: 'EUR' },
      ]),
    ).rejects.toThrow(/foreign key/);
  });

  it('rejects an offer whose shop sells in another market', async () => {
    await expect(
      insertOffers(database.db, [{ id: 104, product_id: 1, price: 1, market: 'no', shop_id: 1 }]),
    ).rejects.toThrow(/foreign key/);
  });
});
