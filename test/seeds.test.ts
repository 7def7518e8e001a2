/**
 * The seeded catalogue: deterministic, complete and within the rules. One database for the
 * file (a PGlite instance costs seconds and hundreds of megabytes), reseeded with --force
 * semantics between cases.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyClientSecret } from '../src/auth/client-secrets.ts';
import { createEmbeddedDatabase, openDatabase, type DatabaseHandle } from '../src/db/client.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { DEMO_CLIENT, seedCatalogue, type SeedReport } from '../seeds/index.ts';
import { deferDefinitions } from '../seeds/load/deferred-definitions.ts';
import { CATALOGUE_TABLES } from '../seeds/tables.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';

const PRODUCTS = 400;
const SEED = 7;
/** The seeds' "today", fixed so that the rows are the same on any day. */
const AS_OF = '2026-11-01';

/** md5 per table over every row, in a fixed order: equal checksums, equal tables. */
async function checksums(database: DatabaseHandle): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of [...CATALOGUE_TABLES, 'markets']) {
    const { rows } = await sql<{ checksum: string }>`
      select md5(coalesce(string_agg(t::text, E'\n' order by t::text), '')) as checksum
        from ${sql.table(table)} t`.execute(database.db);
    result[table] = rows[0]?.checksum ?? '';
  }
  return result;
}

/** Index and constraint definitions of the schema: the seed must leave them as it found them. */
async function schemaObjects(database: TestDatabase): Promise<string[]> {
  const { rows } = await sql<{ item: string }>`
    select indexdef as item from pg_indexes where schemaname = current_schema()
    union all
    select conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
           || case when convalidated then '' else ' NOT VALIDATED' end
      from pg_constraint where connamespace = current_schema()::regnamespace
    order by 1`.execute(database.db);
  return rows.map((row) => row.item);
}

/** A result row's columns as numbers: counts and averages arrive as strings from a server. */
function numbers<Row extends Record<string, unknown>>(
  row: Row | undefined,
): { [Column in keyof Row]: number } {
  return Object.fromEntries(
    Object.entries(row ?? {}).map(([column, value]) => [column, Number(value)]),
  ) as { [Column in keyof Row]: number };
}

async function count(database: TestDatabase, query: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`${sql.raw(query)}`.execute(database.db);
  return Number(rows[0]?.n ?? 0);
}

describe(`the catalogue seed on ${databaseKind}`, () => {
  let database: TestDatabase;
  let report: SeedReport;
  let firstChecksums: Record<string, string>;
  let objectsBefore: string[];

  beforeAll(async () => {
    database = await createTestDatabase();
    objectsBefore = await schemaObjects(database);
    report = await seedCatalogue(database, {
      scale: 'sample',
      seed: SEED,
      products: PRODUCTS,
      asOf: AS_OF,
    });
    firstChecksums = await checksums(database);
  });
  afterAll(() => database?.dispose());

  it('reports the rows it wrote, one per row in each table', async () => {
    expect(report).toMatchObject({ scale: 'sample', seed: SEED });
    for (const [table, rows] of Object.entries(report.rows)) {
      expect(await count(database, `select count(*) as n from ${table}`), table).toBe(rows);
    }
    expect(report.rows.products).toBe(PRODUCTS);
    expect(Object.keys(report.rows).sort()).toEqual([...CATALOGUE_TABLES].sort());
  });

  it('puts back every index and foreign key it set aside, validated', async () => {
    expect(await schemaObjects(database)).toEqual(objectsBefore);
    expect(
      await count(database, `select count(*) as n from pg_tables where tablename like 'seed_%'`),
    ).toBe(0);
  });

  it('covers all seven markets with shops, offers, history and summaries', async () => {
    for (const table of ['shops', 'offers', 'price_history', 'product_market_summaries']) {
      const { rows } = await sql<{ market: string }>`
        select distinct market from ${sql.table(table)} order by market`.execute(database.db);
      expect(
        rows.map((row) => row.market),
        table,
      ).toEqual(['dk', 'fi', 'fr', 'gb', 'no', 'nz', 'se']);
    }
    // Prices are in the market's currency (also a foreign key, checked here all the same).
    expect(
      await count(
        database,
        `select count(*) as n from offers o join markets m on m.code = o.market
          where m.currency <> o.currency`,
      ),
    ).toBe(0);
  });

  it('sells every product somewhere, about 3.5 markets on average, Sweden most', async () => {
    const { rows } = await sql<{ unsold: number; markets: number }>`
      select count(*) filter (where n is null) as unsold, avg(n) as markets
        from products p
        left join (select product_id, count(*) as n from price_history group by product_id) h
          on h.product_id = p.id`.execute(database.db);
    expect(Number(rows[0]?.unsold)).toBe(0);
    expect(Number(rows[0]?.markets)).toBeGreaterThan(3.1);
    expect(Number(rows[0]?.markets)).toBeLessThan(3.9);
    const perMarket = await sql<{ market: string }>`
      select market from price_history group by market order by count(*) desc, market`.execute(
      database.db,
    );
    expect(perMarket.rows[0]?.market).toBe('se');
    expect(perMarket.rows.at(-1)?.market).toBe('nz');
  });

  it('builds a category tree of roots, groups and at least twelve leaves with valid slugs', async () => {
    const { rows } = await sql<{ depth: number; leaves: number; all_leaves: boolean }>`
      with recursive tree as (
        select id, is_leaf, 1 as depth from categories where parent_id is null
        union all
        select c.id, c.is_leaf, t.depth + 1 from categories c join tree t on c.parent_id = t.id)
      select max(depth) as depth, count(*) filter (where is_leaf) as leaves,
             bool_and(is_leaf = (depth = 3)) as all_leaves
        from tree`.execute(database.db);
    expect(rows[0]).toMatchObject({ depth: 3, all_leaves: true });
    expect(Number(rows[0]?.leaves)).toBeGreaterThanOrEqual(12);
    expect(
      await count(
        database,
        `select count(*) as n from categories
          where slug !~ '^[a-z0-9]+(-[a-z0-9]+)*$' or name = '' or description is null`,
      ),
    ).toBe(0);
    expect(
      await count(
        database,
        `select count(*) as n from products p join categories c on c.id = p.category_id
          where not c.is_leaf`,
      ),
    ).toBe(0);
  });

  it('ranks products within their category 1..n in popularity order', async () => {
    const { rows } = await sql<{ bad: number }>`
      select count(*) as bad from (
        select rank_within_category,
               row_number() over (partition by category_id order by popularity desc) as by_popularity,
               count(*) over (partition by category_id) as size,
               max(rank_within_category) over (partition by category_id) as top
          from products) ranked
       where rank_within_category <> by_popularity or top <> size`.execute(database.db);
    expect(Number(rows[0]?.bad)).toBe(0);
    // Brands and names come from the product's category.
    expect(
      await count(
        database,
        `select count(*) as n from products where brand_id is null or name = ''`,
      ),
    ).toBe(0);
  });

  it('gives 1–2 valid, unique GTIN-13s to most products and none to a few', async () => {
    expect(
      await count(
        database,
        `select count(*) as n from gtins where not gtin_is_valid(gtin) or length(gtin) <> 13`,
      ),
    ).toBe(0);
    const { rows } = await sql<{ gtins: number; products: number }>`
      select coalesce(n, 0) as gtins, count(*) as products
        from products p left join (select product_id, count(*) as n from gtins group by 1) g
          on g.product_id = p.id
       group by 1 order by 1`.execute(database.db);
    expect(rows.map((row) => Number(row.gtins))).toEqual([0, 1, 2]);
    expect(Number(rows[1]?.products)).toBeGreaterThan(PRODUCTS / 2);
  });

  it('has 1–15 offers per product and market, about six on average at the sample scale', async () => {
    const { rows } = await sql<{ low: number; high: number; mean: number }>`
      select min(n) as low, max(n) as high, avg(n) as mean
        from (select count(*) as n from offers group by product_id, market) o`.execute(database.db);
    expect(Number(rows[0]?.low)).toBe(1);
    expect(Number(rows[0]?.high)).toBeLessThanOrEqual(15);
    expect(Number(rows[0]?.mean)).toBeGreaterThan(5);
    expect(Number(rows[0]?.mean)).toBeLessThan(7);
  });

  it('makes about one offer in ten unavailable (out of stock or not purchasable)', async () => {
    const { rows } = await sql<{ share: number }>`
      select avg(case when purchasable and stock_status <> 'OUT_OF_STOCK' then 0 else 1 end) as share
        from offers`.execute(database.db);
    expect(Number(rows[0]?.share)).toBeGreaterThan(0.07);
    expect(Number(rows[0]?.share)).toBeLessThan(0.13);
  });

  it('prices offers plausibly: mostly new, with shipping, sales and alternative prices', async () => {
    const { rows } = await sql<{
      new_share: number;
      shipping_below_price: number;
      without_shipping: number;
      on_sale: number;
      member_prices: number;
      with_original: number;
      stale: number;
      conditions: number;
      statuses: number;
    }>`
      select avg((condition = 'CONDITION_NEW')::int) as new_share,
             count(*) filter (where price_including_shipping < price) as shipping_below_price,
             count(*) filter (where price_including_shipping is null) as without_shipping,
             count(*) filter (where sales_price is not null and sales_price_start is not null) as on_sale,
             count(*) filter (where member_price is not null) as member_prices,
             count(*) filter (where original_price > price) as with_original,
             count(*) filter (where updated_at > ${AS_OF}::timestamptz
                                 or updated_at < ${AS_OF}::timestamptz - interval '3 days') as stale,
             count(distinct condition) as conditions,
             count(distinct stock_status) as statuses
        from offers`.execute(database.db);
    const facts = numbers(rows[0]);
    expect(facts.new_share).toBeGreaterThan(0.85);
    expect(facts).toMatchObject({ shipping_below_price: 0, stale: 0, conditions: 4, statuses: 6 });
    for (const fact of ['without_shipping', 'on_sale', 'member_prices', 'with_original'] as const) {
      expect(facts[fact], fact).toBeGreaterThan(0);
    }
    expect(report.rows.offer_alternative_prices).toBeGreaterThan(0);
    // Offer URLs point at the shop's own site.
    expect(
      await count(
        database,
        `select count(*) as n from offers o join shops s on s.id = o.shop_id
          where o.url not like s.url || '/%'`,
      ),
    ).toBe(0);
  });

  it('builds property trees 2–3 levels deep with typed, category-specific leaves', async () => {
    const { rows } = await sql<{ depth: number; products: number }>`
      with recursive tree as (
        select product_id, node_id, 1 as depth from product_properties where parent_node_id is null
        union all
        select p.product_id, p.node_id, t.depth + 1
          from product_properties p
          join tree t on t.product_id = p.product_id and p.parent_node_id = t.node_id)
      select depth, count(*) as products
        from (select product_id, max(depth) as depth from tree group by product_id) d
       group by depth order by depth`.execute(database.db);
    expect(rows.map((row) => Number(row.depth))).toEqual([2, 3]);
    expect(rows.reduce((sum, row) => sum + Number(row.products), 0)).toBe(PRODUCTS);
    // Groups carry no value; leaves carry one of their type; node ids run 1..n per product.
    expect(
      await count(
        database,
        `select count(*) as n from product_properties
          where (type = 'category') <> (num_nonnulls(value_boolean, value_string, value_number) = 0)`,
      ),
    ).toBe(0);
    expect(
      await count(
        database,
        `select count(*) as n from (select product_id from product_properties group by product_id
                                     having max(node_id) <> count(*)) gaps`,
      ),
    ).toBe(0);
    const tvs = await sql<{ name: string; unit: string }>`
      select distinct pp.name, pp.unit from product_properties pp
        join products p on p.id = pp.product_id join categories c on c.id = p.category_id
       where c.slug = 'tvs' and pp.is_core order by 1`.execute(database.db);
    expect(tvs.rows).toContainEqual({ name: 'Screen size', unit: 'inch' });
    expect(
      await count(
        database,
        `select count(*) as n from product_properties where is_core and comment is null`,
      ),
    ).toBe(0);
  });

  it('writes 90 days of history ending at the current lowest price', async () => {
    const { rows } = await sql<{
      wrong_start: number;
      wrong_length: number;
      wrong_tail: number;
      no_offers: number;
    }>`
      select count(*) filter (where first_day <> ${AS_OF}::date - 90) as wrong_start,
             count(*) filter (where cardinality(daily_lowest_prices) <> 90) as wrong_length,
             count(*) filter (where daily_lowest_prices[90] <> current.lowest) as wrong_tail,
             count(*) filter (where current.lowest is null) as no_offers
        from price_history h
        left join lateral (select min(price) as lowest from available_offers o
                            where o.product_id = h.product_id and o.market = h.market) current
          on true`.execute(database.db);
    const facts = numbers(rows[0]);
    expect(facts).toMatchObject({ wrong_start: 0, wrong_length: 0 });
    // Where no offer is available, the tail is the cheapest unavailable one: not comparable.
    expect(facts.wrong_tail).toBe(0);
  });

  it('lets refreshProductMarketSummaries find strong positive, negative and flat trends', async () => {
    const { rows } = await sql<{
      falling_prices: number;
      rising_prices: number;
      flat: number;
      summaries: number;
      wrong_day: number;
    }>`
      select count(*) filter (where price_trend_percentage >= 10) as falling_prices,
             count(*) filter (where price_trend_percentage <= -3) as rising_prices,
             count(*) filter (where abs(price_trend_percentage) < 3) as flat,
             count(*) as summaries,
             count(*) filter (where as_of <> ${AS_OF}::date) as wrong_day
        from product_market_summaries`.execute(database.db);
    const { falling_prices, rising_prices, flat, summaries, wrong_day } = numbers(rows[0]);
    expect(wrong_day).toBe(0);
    expect(falling_prices / summaries).toBeGreaterThan(0.05);
    expect(rising_prices / summaries).toBeGreaterThan(0.02);
    expect(flat / summaries).toBeGreaterThan(0.5);
  });

  it('creates the demo partner with a verifiable secret and its ref', async () => {
    const client = await database.db
      .selectFrom('api_clients')
      .innerJoin('api_client_refs', 'api_client_refs.client_id', 'api_clients.id')
      .select(['api_clients.id', 'secret_hash', 'ref'])
      .executeTakeFirstOrThrow();
    expect(client).toMatchObject({ id: DEMO_CLIENT.id, ref: DEMO_CLIENT.ref });
    expect(await verifyClientSecret(DEMO_CLIENT.secret, client.secret_hash)).toBe(true);
    expect(await verifyClientSecret('wrong-secret', client.secret_hash)).toBe(false);
  });

  it('rejects a seed outside 0..2^32 − 1 before touching the catalogue', async () => {
    await expect(
      seedCatalogue(database, { scale: 'sample', seed: -1, products: 10, asOf: AS_OF }),
    ).rejects.toThrow(RangeError);
    expect(await count(database, 'select count(*) as n from products')).toBe(PRODUCTS);
  });

  it('leaves an empty but whole catalogue when a seed fails half-way', async () => {
    // A progress stream that fails once the rows are loaded, before indexes are rebuilt.
    const failing = {
      write(text: string) {
        if (text.includes('analyzing the loaded tables')) throw new Error('disk full');
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    await expect(
      seedCatalogue(database, {
        scale: 'sample',
        seed: SEED,
        products: 50,
        asOf: AS_OF,
        progress: failing,
      }),
    ).rejects.toThrow('disk full');
    expect(await count(database, 'select count(*) as n from products')).toBe(0);
    expect(await count(database, 'select count(*) as n from offers')).toBe(0);
    expect(await schemaObjects(database)).toEqual(objectsBefore);
  });

  it('restores the indexes and keys a killed seed had set aside', async () => {
    // What a seed killed during loading leaves: definitions journalled and dropped.
    const client = await database.pool.connect();
    try {
      await client.query('begin');
      await deferDefinitions(client, CATALOGUE_TABLES);
      await client.query('commit');
    } finally {
      client.release();
    }
    expect(await schemaObjects(database)).not.toEqual(objectsBefore);
    await seedCatalogue(database, { scale: 'sample', seed: SEED, products: 50, asOf: AS_OF });
    expect(await schemaObjects(database)).toEqual(objectsBefore);
  });

  it('replaces the catalogue with identical rows when seeded again with the same seed and date', async () => {
    const again = await seedCatalogue(database, {
      scale: 'sample',
      seed: SEED,
      products: PRODUCTS,
      asOf: AS_OF,
    });
    expect(again.rows).toEqual(report.rows);
    expect(await checksums(database)).toEqual(firstChecksums);
  });

  it('gives different rows in every generated table for a different seed', async () => {
    await seedCatalogue(database, {
      scale: 'sample',
      seed: SEED + 1,
      products: PRODUCTS,
      asOf: AS_OF,
    });
    const other = await checksums(database);
    // Brands and categories are the vocabulary itself; markets are the migration's.
    for (const table of CATALOGUE_TABLES) {
      if (table === 'brands' || table === 'categories' || table === 'api_client_refs') continue;
      expect(other[table], table).not.toBe(firstChecksums[table]);
    }
    expect(other.markets).toBe(firstChecksums.markets);
  });

  it('dates everything from the as-of date: history ends the day before it', async () => {
    const later = '2027-03-15';
    const seeded = await seedCatalogue(database, {
      scale: 'sample',
      seed: SEED,
      products: PRODUCTS,
      asOf: later,
    });
    expect(seeded.asOf).toBe(later);
    const { rows } = await sql<{
      last_days: string[];
      summary_days: string[];
      updated_after: number;
      updated_before_window: number;
      sales_started_after: number;
      created: string;
    }>`
      select (select array_agg(distinct (first_day + cardinality(daily_lowest_prices) - 1)::text)
                from price_history) as last_days,
             (select array_agg(distinct as_of::text) from product_market_summaries)
               as summary_days,
             (select count(*) from offers where updated_at >= ${later}::timestamptz)
               as updated_after,
             (select count(*) from offers
               where updated_at < ${later}::timestamptz - interval '3 days')
               as updated_before_window,
             (select count(*) from offers where sales_price_start > ${later}::timestamptz)
               as sales_started_after,
             (select created_at::date::text from api_clients) as created`.execute(database.db);
    expect(rows[0]).toEqual({
      last_days: ['2027-03-14'],
      summary_days: [later],
      updated_after: 0,
      updated_before_window: 0,
      sales_started_after: 0,
      created: later,
    });
    // Only the dates moved: the same products, offers and prices as at AS_OF.
    const prices = async () => {
      const { rows: digest } = await sql<{ digest: string }>`
        select md5(string_agg(id || ':' || price, ',' order by id)) as digest
          from offers`.execute(database.db);
      return digest[0]?.digest;
    };
    const laterPrices = await prices();
    const laterChecksums = await checksums(database);
    await seedCatalogue(database, { scale: 'sample', seed: SEED, products: PRODUCTS, asOf: AS_OF });
    expect(await prices()).toBe(laterPrices);
    expect(laterChecksums.products).toBe(firstChecksums.products);
    expect(laterChecksums.offers).not.toBe(firstChecksums.offers);
  });

  it('refuses an as-of date that is not a calendar day before touching the catalogue', async () => {
    for (const asOf of ['2026-02-30', '1.11.2026', '']) {
      await expect(
        seedCatalogue(database, { scale: 'sample', seed: SEED, products: 10, asOf }),
      ).rejects.toThrow(RangeError);
    }
    expect(await count(database, 'select count(*) as n from products')).toBe(PRODUCTS);
  });

  // Each bulk path exists on one kind of database only: the suite registers the one that
  // applies (CI runs the suite on both, so both paths are checked on every run).
  const onEmbedded = databaseKind === 'embedded' ? it : () => undefined;
  const onServer = databaseKind === 'postgres' ? it : () => undefined;

  onEmbedded("loads the same rows through array inserts as through PGlite's own COPY", async () => {
    // The test database's handle exposes its PGlite instance, so the COPY path ran above; a
    // handle without it takes the array-insert path.
    const pglite = await createEmbeddedDatabase('memory://');
    const { pglite: _instance, ...withoutInstance } = await openDatabase({ pglite });
    const { db, close } = withoutInstance;
    try {
      await migrateToLatest(db);
      await seedCatalogue(withoutInstance, {
        scale: 'sample',
        seed: SEED,
        products: PRODUCTS,
        asOf: AS_OF,
      });
      expect(await checksums(withoutInstance)).toEqual(firstChecksums);
    } finally {
      await close();
      await pglite.close();
    }
  });

  onServer(
    'loads the same rows through parallel COPY streams as through one connection',
    async () => {
      // The test database's pool has 4 connections, too few for one COPY per table: a second
      // handle with a bigger pool takes the parallel path.
      const wide = await openDatabase({ url: database.url, poolSize: 8 });
      try {
        await seedCatalogue(wide, { scale: 'sample', seed: SEED, products: PRODUCTS, asOf: AS_OF });
      } finally {
        await wide.close();
      }
      expect(await checksums(database)).toEqual(firstChecksums);
    },
  );
});
