/**
 * Named prepared statements (src/db/prepared.ts): a statement run through `executePrepared`
 * is named once its text recurs, then parsed once per connection and reused, on a Postgres
 * server and on PGlite; it answers what it answers unnamed, is counted, bounded in time and
 * refused for a stopped request like any other statement, goes on after failing, is prepared
 * again on the connection that replaces one lost to a server restart; handles sharing one
 * PGlite instance share its one connection, used at once without seeing each other's
 * statements, and a pool opened later does not clash with an earlier one's names. Texts past the registry's bound run unnamed.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRequestContext } from '../../src/context.ts';
import { createEmbeddedDatabase, openDatabase } from '../../src/db/client.ts';
import {
  executePrepared,
  MAX_PREPARED_STATEMENTS,
  preparedStatementName,
  RUNS_BEFORE_NAMING,
} from '../../src/db/prepared.ts';
import { createMarketDirectory } from '../../src/db/repositories/markets.ts';
import type { Database } from '../../src/db/types.ts';
import { RequestStopped } from '../../src/request-deadline.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { createScratchCluster, requireServerBinaries } from '../helpers/scratch-cluster.ts';

requireServerBinaries("the restart test needs PostgreSQL 15's server binaries (initdb, pg_ctl)");

const onServer = databaseKind === 'postgres' ? it : () => undefined;

let database: TestDatabase;
let productIds: number[];

beforeAll(async () => {
  database = await createTestDatabase({ contents: 'seeded' });
  const { rows } = await sql<{ id: number }>`select id from products order by id`.execute(
    database.db,
  );
  productIds = rows.map((row) => row.id);
});
afterAll(() => database?.dispose());

/** A hot statement of the products-by-id kind, through the query builder. */
const productsById = (db: Kysely<Database>, ids: number[]) =>
  db
    .selectFrom('products')
    .selectAll()
    .where('id', '=', sql<number>`any(${ids})`)
    .orderBy('id');

/** A page of offers for some products, as a raw `sql` statement (compiled with the db). */
const offersPage = (ids: number[]) => sql<{ id: number; product_id: number; updated_at: string }>`
  select o.id, o.product_id, o.updated_at, o.price
    from available_offers o
    join unnest(${ids}::integer[]) as k(product_id) on o.product_id = k.product_id
   where o.market = 'se'
   order by o.product_id, o.price, o.id`;

/** The session's prepared statements of this text: how many, and how often each ran. */
async function preparedOnSession(db: Kysely<Database>, text: string) {
  const { rows } = await sql<{ name: string; executions: number }>`
    select name, (generic_plans + custom_plans)::int as executions
      from pg_prepared_statements where statement = ${text}`.execute(db);
  return rows;
}

/** A statement's name as a session of the test database holds it (see `preparingClient`). */
function onSessionAs(name: string | undefined) {
  return databaseKind === 'postgres' ? name : expect.stringMatching(new RegExp(`^h\\d+_${name}$`));
}

describe('executePrepared', () => {
  it('answers the rows the statement answers unnamed', async () => {
    const { db } = database;
    for (const ids of [productIds.slice(0, 20), productIds.slice(5, 8), []]) {
      expect(await executePrepared(db, productsById(db, ids))).toEqual(
        await productsById(db, ids).execute(),
      );
      const offers = await executePrepared(db, offersPage(ids));
      expect(offers).toEqual((await offersPage(ids).execute(db)).rows);
      if (ids.length > 0) expect(offers.length).toBeGreaterThan(ids.length);
    }
  });

  it('prepares a statement once per connection and reuses it', async () => {
    const { db } = database;
    const text = productsById(db, []).compile().sql;
    for (let run = 0; run < RUNS_BEFORE_NAMING; run++)
      await executePrepared(db, productsById(db, productIds.slice(0, 2)));
    const { before, after } = await db.connection().execute(async (connection) => {
      const before = await preparedOnSession(connection, text);
      for (const ids of [productIds.slice(0, 20), productIds.slice(20, 21), productIds.slice(1, 9)])
        await executePrepared(connection, productsById(connection, ids));
      return { before, after: await preparedOnSession(connection, text) };
    });
    // The connection may have run it named before: one statement either way, run 3 times more.
    expect(after).toEqual([
      {
        name: onSessionAs(preparedStatementName(text)),
        executions: (before[0]?.executions ?? 0) + 3,
      },
    ]);
  });

  it('is counted as a statement, and refused once the request has stopped', async () => {
    const { db } = database;
    const before = database.statementCount();
    await executePrepared(db, offersPage(productIds.slice(0, 3)));
    expect(database.statementCount()).toBe(before + 1);

    const controller = new AbortController();
    const context = createRequestContext(
      db,
      createMarketDirectory(db, loadConfig({}).siteUrls),
      'http://localhost',
      controller.signal,
    );
    await executePrepared(context.db, offersPage(productIds.slice(0, 3)));
    controller.abort(new RequestStopped('deadline'));
    await expect(executePrepared(context.db, offersPage(productIds.slice(0, 3)))).rejects.toThrow(
      RequestStopped,
    );
    await expect(executePrepared(context.db, productsById(context.db, [1]))).rejects.toThrow(
      RequestStopped,
    );
    expect(database.statementCount()).toBe(before + 2);
  });

  it('goes on after a run of the statement fails', async () => {
    const { db } = database;
    const tenDividedBy = (divisor: number) => sql<{ q: number }>`select 10 / ${divisor}::int as q`;
    for (let run = 0; run < RUNS_BEFORE_NAMING; run++)
      expect(await executePrepared(db, tenDividedBy(5))).toEqual([{ q: 2 }]);
    await expect(executePrepared(db, tenDividedBy(0))).rejects.toMatchObject({ code: '22012' });
    expect(await executePrepared(db, tenDividedBy(2))).toEqual([{ q: 5 }]);
  });

  onServer('is bounded by the statement timeout, and the connection goes on', async () => {
    const { db } = database;
    const sleep = (seconds: number) =>
      sql<{ slept: string }>`select pg_sleep(${seconds})::text as slept`;
    database.limitStatements(100);
    try {
      await expect(executePrepared(db, sleep(2))).rejects.toMatchObject({ code: '57014' });
      expect(await executePrepared(db, sleep(0))).toEqual([{ slept: '' }]);
    } finally {
      database.limitStatements(0);
    }
  });
});

describe('executePrepared across a server restart', () => {
  it('prepares the statement again on the new connection', async () => {
    const cluster = await createScratchCluster();
    const handle = await openDatabase({
      url: cluster.url(),
      poolSize: 1,
      onPoolError: () => undefined,
    });
    try {
      const { db } = handle;
      // A uniform key lookup in the catalogue every database has.
      const typesByOid = (oids: number[]) => sql<{ oid: number; typname: string }>`
        select oid::int, typname from pg_type where oid = any(${oids}::oid[]) order by oid`;
      const text = typesByOid([]).compile(db).sql;
      const session = () =>
        db.connection().execute((connection) => preparedOnSession(connection, text));
      const expected = [
        { oid: 23, typname: 'int4' },
        { oid: 25, typname: 'text' },
        { oid: 1184, typname: 'timestamptz' },
      ];

      // Named from its RUNS_BEFORE_NAMING-th run: two runs named.
      for (let run = 0; run <= RUNS_BEFORE_NAMING; run++)
        expect(await executePrepared(db, typesByOid([25, 23, 1184]))).toEqual(expected);
      expect(await session()).toEqual([{ name: preparedStatementName(text), executions: 2 }]);

      await cluster.restart();
      expect(await executePrepared(db, typesByOid([25, 23, 1184]))).toEqual(expected);
      expect(await session()).toEqual([{ name: preparedStatementName(text), executions: 1 }]);
    } finally {
      await handle.close();
      await cluster.destroy();
    }
  });
});

describe('executePrepared on one PGlite instance under several handles', () => {
  it('answers each handle’s statements when used at once, and names them afresh per pool', async () => {
    const pglite = await createEmbeddedDatabase('memory://');
    const open = () => openDatabase({ pglite });
    const square = (n: number) => sql<{ square: number }>`select ${n}::int * ${n}::int as square`;
    const run = async (handle: Awaited<ReturnType<typeof open>>, n: number) => {
      for (let time = 0; time <= RUNS_BEFORE_NAMING; time++)
        expect(await executePrepared(handle.db, square(n))).toEqual([{ square: n * n }]);
    };
    try {
      // Two open together and used at once, one of them in a transaction: PGlite is one
      // session, so the handles share its one connection and neither sees the other's
      // statements (two pools' protocol messages interleaved, and a query waited for ever).
      const first = await open();
      const second = await open();
      const inTransaction = first.db.transaction().execute(async (trx) => {
        await sql`set local application_name = 'first-handle'`.execute(trx);
        await sql`select pg_sleep(0.05)`.execute(trx);
        return (
          await sql<{ name: string }>`select current_setting('application_name') as name`.execute(
            trx,
          )
        ).rows;
      });
      const names = Array.from({ length: 5 }, () =>
        sql<{ name: string }>`select current_setting('application_name') as name`.execute(
          second.db,
        ),
      );
      await Promise.all([
        ...Array.from({ length: 10 }, (_, n) => run(n % 2 ? first : second, n)),
        inTransaction,
        ...names,
      ]);
      expect(await inTransaction).toEqual([{ name: 'first-handle' }]);
      for (const { rows } of await Promise.all(names))
        expect(rows).not.toEqual([{ name: 'first-handle' }]);
      // Closing one leaves the other's connection open; a pool opened after both closed parses
      // its own names.
      await first.close();
      await run(second, 2);
      await second.close();
      const third = await open();
      await run(third, 3);
      await third.close();
      const { rows } = await pglite.query<{ name: string }>(
        'select name from pg_prepared_statements order by name',
      );
      const name = preparedStatementName(square(0).compile(third.db).sql);
      expect(rows.map((row) => row.name.replace(/^h\d+_/, 'h_'))).toEqual(
        Array<string>(2).fill(`h_${name}`),
      );
      expect(new Set(rows.map((row) => row.name)).size).toBe(2);
    } finally {
      await pglite.close();
    }
  });
});

describe('the registry of statement names', () => {
  it('names a text once it recurs', async () => {
    const { db } = database;
    const once = sql<{ recurring: number }>`select ${42}::int as recurring`;
    const text = once.compile(db).sql;
    const named = await db.connection().execute(async (connection) => {
      const named = [];
      for (let run = 1; run <= RUNS_BEFORE_NAMING + 1; run++) {
        await executePrepared(connection, once);
        named.push({
          run,
          name: preparedStatementName(text),
          onSession: (await preparedOnSession(connection, text)).length,
        });
      }
      return named;
    });
    const name = preparedStatementName(text);
    expect(name).toMatch(/^q_[0-9a-f]{24}$/);
    expect(named).toEqual(
      Array.from({ length: RUNS_BEFORE_NAMING + 1 }, (_, index) => {
        const isNamed = index + 1 >= RUNS_BEFORE_NAMING;
        return {
          run: index + 1,
          name: isNamed ? name : undefined,
          onSession: isNamed ? 1 : 0,
        };
      }),
    );
  });

  it('runs texts past its bound unnamed', async () => {
    // The registry is the process's: this test fills it, so it comes last in the file.
    const probe = (n: number) => sql<{ n: number }>`select ${sql.lit(n)}::int as n, ${n}::int as m`;
    const { db } = database;
    const text = (n: number) => probe(n).compile(db).sql;
    const answers = await db.connection().execute(async (connection) => {
      const rows = [];
      for (let n = 0; n <= MAX_PREPARED_STATEMENTS; n++)
        for (let run = 0; run < RUNS_BEFORE_NAMING; run++)
          rows.push(...(await executePrepared(connection, probe(n))));
      const { rows: session } = await sql<{ statements: number; first: number; last: number }>`
        select count(*)::int as statements,
               count(*) filter (where statement = ${text(0)})::int as first,
               count(*) filter (where statement = ${text(MAX_PREPARED_STATEMENTS)})::int as last
          from pg_prepared_statements`.execute(connection);
      return { rows, session: session[0]! };
    });
    expect(answers.rows.map((row) => row.n)).toEqual(
      Array.from({ length: MAX_PREPARED_STATEMENTS + 1 }, (_, n) =>
        Array<number>(RUNS_BEFORE_NAMING).fill(n),
      ).flat(),
    );
    // The first probe took a free name; the last found none left (the texts of the tests
    // above hold some).
    expect(preparedStatementName(text(0))).toBeDefined();
    expect(preparedStatementName(text(MAX_PREPARED_STATEMENTS))).toBeUndefined();
    // The session holds the named ones, never more than the bound.
    expect(answers.session).toMatchObject({ first: 1, last: 0 });
    expect(answers.session.statements).toBeLessThanOrEqual(MAX_PREPARED_STATEMENTS);
  });
});
