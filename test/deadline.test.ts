/**
 * Every request's bound in time, on a real database. On a server a statement is made slow the
 * honest way: another connection holds a lock on the table it reads, so it waits. Those tests
 * need a server whichever the pass: in a PGlite pass they run on a scratch cluster of their own.
 *
 * - A statement past STATEMENT_TIMEOUT_MS fails with SQLSTATE 57014: the answer is the
 *   documented 503 + Retry-After (TIMEOUT on /graphql), and the connection goes back to the
 *   pool healthy.
 * - A request past REQUEST_TIMEOUT_MS is answered the same way at its deadline, and once its
 *   waiting statement ends, it sends no further statement. An answer in parts (@defer) is
 *   bound the same way until its last part: a part past the deadline carries TIMEOUT errors.
 * - A client that goes away (its connection closed) stops its request's work the same way:
 *   no further statement; one that is gone before its request runs costs no statement at all.
 */
import { once } from 'node:events';
import { createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';
import { mergedParts, readParts } from './helpers/incremental.ts';
import { createScratchDatabase } from './helpers/scratch-database.ts';

/** The first statement of this page reads product_market_summaries; its loaders read more. */
const PAGE = '/v1/products?market=se&limit=5';
const PAGE_QUERY =
  '{ products(market: SE, first: 5) { edges { node { id name brand { name } category { name } } } } }';
const LOCKED_TABLE = 'product_market_summaries';
/** The products at once; their offers, and the offers' shops, in a later part. */
const DEFERRED_OFFERS_QUERY = `{ products(market: SE, first: 5) { edges { node { id name
  ... @defer { offers(first: 2) { edges { node { offerId shop { name } } } } } } } } }`;

/** The pass's database: a server's or PGlite. */
let database: TestDatabase;
/** A server database: the pass's own when it is one, else one on a scratch cluster. */
let serverDatabase: TestDatabase & { url: string };

beforeAll(async () => {
  database = await createTestDatabase({ contents: 'seeded' });
  serverDatabase =
    database.url === undefined
      ? await createScratchDatabase('seeded')
      : { ...database, url: database.url };
});

afterAll(async () => {
  if (serverDatabase?.url !== database?.url) await serverDatabase?.dispose();
  await database?.dispose();
});

interface RequestLine {
  msg: string;
  status: number;
}

/**
 * An app on `on` with these bounds, the response cache off; `logged` holds the request lines,
 * each written once its request's work is done.
 */
async function appWith(on: TestDatabase, env: Record<string, string>) {
  const config = loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', ...env });
  const logged: RequestLine[] = [];
  const destination = { write: (line: string) => logged.push(JSON.parse(line) as RequestLine) };
  const app = createApp({ config, database: on, logger: pino({ level: 'info' }, destination) });
  // Following the catalogue's changes starts with a statement of its own: outside too.
  await app.listening;
  // The market directory is read once per app: read it now, outside the requests measured.
  await app.fetch(new Request('http://test/v1/products?market=se&limit=1'));
  return { app, logged };
}

/** The request line of the page, once its request has ended. */
function pageLine(logged: RequestLine[]): Promise<RequestLine> {
  return until('the request line', async () =>
    logged.find((line) => line.msg.startsWith('GET /v1/products') && line.status !== 200),
  );
}

function graphqlRequest(query: string): Request {
  return new Request('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
}

/** A connection of the test's own holding an exclusive lock on a server table until released. */
async function lockTable(table: string) {
  const client = new pg.Client({ connectionString: serverDatabase.url });
  await client.connect();
  await client.query('begin');
  await client.query(`lock table ${table} in access exclusive mode`);
  return {
    /** Statements of other sessions waiting for a lock in the test database. */
    async waiting(): Promise<number> {
      const { rows } = await client.query<{ waiting: number }>(
        `select count(*)::int as waiting from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      );
      return rows[0]!.waiting;
    },
    async release() {
      await client.query('rollback');
      await client.end();
    },
  };
}

type Lock = Awaited<ReturnType<typeof lockTable>>;

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${what}: not after 10 s`);
}

/** Waits until some statement waits on the lock; answers how many do. */
function statementsWaiting(lock: Lock): Promise<number> {
  return until('a statement waiting on the lock', async () => {
    const waiting = await lock.waiting();
    return waiting > 0 ? waiting : undefined;
  });
}

/**
 * The statements the request still completes after the lock is released: the ones that were
 * waiting, and whatever it issued after them, for as long as it takes to answer a request
 * sent once they are done (the event loop has then moved well past them).
 */
async function statementsAfterRelease(app: App, lock: Lock, waiting: number): Promise<string[]> {
  const before = serverDatabase.statements.length;
  await lock.release();
  await until('the waiting statements to end', async () =>
    serverDatabase.statements.length - before >= waiting ? true : undefined,
  );
  const marker = serverDatabase.statements.length;
  await app.fetch(new Request('http://test/healthz'));
  await new Promise((resolve) => setTimeout(resolve, 200));
  return [
    ...serverDatabase.statements.slice(before, marker),
    ...serverDatabase.statements.slice(marker).filter((sql) => !/pg_stat_activity/.test(sql)),
  ];
}

describe('a statement past STATEMENT_TIMEOUT_MS (a lock holds it)', () => {
  let app: App;
  let lock: Lock | undefined;

  beforeAll(async () => {
    ({ app } = await appWith(serverDatabase, {
      STATEMENT_TIMEOUT_MS: '200',
      REQUEST_TIMEOUT_MS: '60000',
    }));
  });

  afterAll(async () => {
    await lock?.release().catch(() => undefined);
    await app?.dispose();
  });

  it('is a 503 with Retry-After on REST and TIMEOUT on /graphql, not a 500', async () => {
    lock = await lockTable(LOCKED_TABLE);
    const rest = await app.fetch(new Request(`http://test${PAGE}`));
    const graphql = await app.fetch(graphqlRequest(PAGE_QUERY));
    await lock.release();
    lock = undefined;

    expect(rest.status).toBe(503);
    expect(rest.headers.get('retry-after')).toBe('5');
    expect(await rest.json()).toMatchObject({
      error: { code: 'http.503', message: 'the request took too long' },
    });
    expect(graphql.status).toBe(503);
    expect(graphql.headers.get('retry-after')).toBe('5');
    const body = (await graphql.json()) as { errors: { message: string; extensions: object }[] };
    expect(body.errors[0]).toMatchObject({
      message: 'the request took too long',
      extensions: { code: 'TIMEOUT' },
    });
  });

  it('leaves every connection of the pool healthy: the next requests all succeed', async () => {
    // More requests at once than the pool has connections, so every connection serves one.
    const requests = Array.from({ length: 8 }, () => app.fetch(new Request(`http://test${PAGE}`)));
    const statuses = (await Promise.all(requests)).map((response) => response.status);
    expect(statuses).toEqual(Array(8).fill(200));
    expect(serverDatabase.pool.totalCount).toBeLessThanOrEqual(4);
  });
});

describe('a request past REQUEST_TIMEOUT_MS (a lock holds its first statement)', () => {
  let app: App;

  beforeAll(async () => {
    ({ app } = await appWith(serverDatabase, {
      STATEMENT_TIMEOUT_MS: '0',
      REQUEST_TIMEOUT_MS: '300',
    }));
  });

  afterAll(async () => {
    await app?.dispose();
  });

  it('without the lock, the page runs statements after its first', async () => {
    serverDatabase.statements.length = 0;
    const response = await app.fetch(new Request(`http://test${PAGE}`));
    expect(response.status).toBe(200);
    expect(serverDatabase.statements.length).toBeGreaterThan(2);
  });

  it('is answered 503 at the deadline, and sends no statement once the waiting ones end', async () => {
    const lock = await lockTable(LOCKED_TABLE);
    try {
      const response = await app.fetch(new Request(`http://test${PAGE}`));
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toMatchObject({
        error: { code: 'http.503', message: 'the request took too long' },
      });
      const waiting = await statementsWaiting(lock);
      const after = await statementsAfterRelease(app, lock, waiting);
      expect(after).toHaveLength(waiting);
      expect(after.every((sql) => sql.includes(LOCKED_TABLE))).toBe(true);
    } finally {
      await lock.release().catch(() => undefined);
    }
  });
  it('holds for an answer in parts: a deferred part past the deadline sends no statement, and says TIMEOUT', async () => {
    const lock = await lockTable('offers');
    try {
      const response = await app.fetch(
        new Request('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'multipart/mixed' },
          body: JSON.stringify({ query: DEFERRED_OFFERS_QUERY }),
        }),
      );
      // The products are answered at once; their offers wait on the lock, past the deadline.
      expect(response.status).toBe(200);
      const waiting = await statementsWaiting(lock);
      await new Promise((resolve) => setTimeout(resolve, 2 * 300));
      const after = await statementsAfterRelease(app, lock, waiting);
      expect(after).toHaveLength(waiting);
      expect(after.every((sql) => sql.includes('available_offers'))).toBe(true);
      const { data, errors } = mergedParts(await readParts(response, 'multipart/mixed'));
      expect((data as any).products.edges.length).toBeGreaterThan(0);
      expect(errors.length).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error).toMatchObject({
          message: 'the request took too long',
          extensions: { code: 'TIMEOUT' },
        });
        expect(error.extensions).not.toHaveProperty('http');
      }
    } finally {
      await lock.release().catch(() => undefined);
    }
  });
});

describe('a client that goes away mid-request (a lock holds its first statement)', () => {
  let app: App;
  let logged: RequestLine[];
  let server: Server;

  beforeAll(async () => {
    ({ app, logged } = await appWith(serverDatabase, {
      STATEMENT_TIMEOUT_MS: '0',
      REQUEST_TIMEOUT_MS: '60000',
    }));
    server = createServer(app);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterAll(async () => {
    server?.close();
    await app?.dispose();
  });

  it('sends no statement once its waiting ones end', async () => {
    const lock = await lockTable(LOCKED_TABLE);
    try {
      const { port } = server.address() as AddressInfo;
      const request = get(`http://127.0.0.1:${port}${PAGE}`, { agent: false });
      request.on('error', () => undefined);
      const waiting = await statementsWaiting(lock);
      request.destroy();
      // The server has seen the connection close (the request's socket is destroyed) once it
      // holds no connection.
      await until('the server to see the client go', async () => {
        const open = await new Promise<number>((resolve, reject) =>
          server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
        );
        return open === 0 ? true : undefined;
      });
      const before = serverDatabase.statements.length;
      await lock.release();
      // Its line is written once its work has ended: the waiting statements, then no other.
      expect((await pageLine(logged)).status).toBe(503);
      const after = serverDatabase.statements.slice(before);
      expect(after).toHaveLength(waiting);
      expect(after.every((sql) => sql.includes(LOCKED_TABLE))).toBe(true);
    } finally {
      await lock.release().catch(() => undefined);
    }
  });
});

describe(`a client gone before its request runs (on ${databaseKind})`, () => {
  let app: App;
  let logged: RequestLine[];

  beforeAll(async () => {
    ({ app, logged } = await appWith(database, {}));
  });

  afterAll(async () => {
    await app?.dispose();
  });

  it('costs no statement', async () => {
    database.statements.length = 0;
    const gone = new AbortController();
    gone.abort();
    // The adapter gives up on an aborted request at once; the app's work ends on its own.
    await expect(async () =>
      app.fetch(new Request(`http://test${PAGE}`, { signal: gone.signal })),
    ).rejects.toThrow();
    expect((await pageLine(logged)).status).toBe(503);
    expect(database.statements).toEqual([]);
  });
});
