/**
 * Feed runs under faults, on real processes and a real PostgreSQL server: the service
 * (`node --import tsx src/main.ts serve`) killed with SIGKILL in the middle of a run, the
 * server restarted under a run, a run interrupted too often, and SIGTERM during a run. After
 * each, the run is applied whole or not at all: the shop's offers (item, product, price,
 * withdrawn or not) are exactly as before the run or exactly as its feed says, never a mix;
 * the run is resumed (one more attempt), marked `failed` with its reason, or handed back.
 *
 * "In the middle" is made certain, not hoped for: the test's own session holds a lock the run
 * needs (a row of the shop's offers the feed changes, or the shops table), and the signal or
 * restart comes once the run's session is seen waiting for it inside its transaction. Once,
 * nothing is held: a long run is killed as soon as it has written in its transaction, and
 * whichever side of its commit the kill fell, the run's record and the offers agree. What the
 * offers should be is worked out from the feed's own rows, not read from the service.
 *
 * The process cases need a server database (and the restart a scratch cluster of the server's
 * binaries): they run on the server pass only, as the other server-only cases do. A run given
 * up after its attempts runs in-process on both databases.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi, type TestContext } from 'vitest';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { openDatabase } from '../../src/db/client.ts';
import { FEED_RUN_LOCK_SPACE } from '../../src/db/repositories/feed-run-locks.ts';
import {
  appendFeedRunBody,
  createFeedRun,
  startFeedRun,
} from '../../src/db/repositories/feed-runs.ts';
import type { Database } from '../../src/db/types.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import { MAX_ATTEMPTS } from '../../src/feeds/run-worker.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import {
  childEnv,
  freePort,
  jsonLogLines,
  startNode,
  untilOutput,
  type StartedProcess,
} from '../helpers/process.ts';
import { createScratchCluster, requireServerBinaries } from '../helpers/scratch-cluster.ts';
import { fillScratchDatabase } from '../helpers/scratch-database.ts';
import { shopToken } from './shop-client.ts';
import { feedOfShop, itemsTsv, newItem, productsNotAtShop, swedishShops } from './shop-feed.ts';

requireServerBinaries("the restart case needs PostgreSQL 15's server binaries (initdb, pg_ctl)");

const onServer = databaseKind === 'postgres' ? it : () => undefined;

/** Generous: a process starting, or a run resumed, on a loaded two-core machine. */
const PATIENCE_MS = 60_000;
const CASE_TIMEOUT_MS = 150_000;

/** A shop's offer as the test compares it. */
interface OfferRow {
  item_id: string;
  product_id: number;
  price: number;
  withdrawn_at: string | null;
}

/** A run's record, as far as the test reads it. */
interface RunRow {
  state: string;
  attempts: number;
  reason: string | null;
}

/** The shop's offers, every one of them (withdrawn too), in item order. */
async function offersOf(db: Kysely<Database>, shopId: number): Promise<OfferRow[]> {
  return db
    .selectFrom('offers')
    .select(['item_id', 'product_id', 'price', 'withdrawn_at'])
    .where('shop_id', '=', shopId)
    .orderBy('item_id')
    .execute();
}

/** The offers on sale (not withdrawn): item → product and price. */
function liveOffers(
  rows: readonly OfferRow[],
): Record<string, { productId: number; price: number }> {
  return Object.fromEntries(
    rows
      .filter((row) => row.withdrawn_at === null)
      .map((row) => [row.item_id, { productId: row.product_id, price: row.price }]),
  );
}

async function runOf(db: Kysely<Database>, runId: string): Promise<RunRow> {
  return db
    .selectFrom('feed_runs')
    .select(['state', 'attempts', 'reason'])
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
}

/** A full feed that changes a shop's offers, and the offers it makes, worked out from its rows. */
interface ChangingFeed {
  body: Buffer;
  /** An item whose price the feed changes: its offer row is written by the run. */
  changedItemId: string;
  /** What the shop's live offers are once the feed is applied. */
  live: Record<string, { productId: number; price: number }>;
}

/**
 * The shop's plain offers (no sale, no shipping price, in stock) with three of them dearer,
 * two left out (withdrawn by a full feed, as is every offer not in it), and new items for
 * products the shop does not offer yet: one each, and `moreItems` more spread over them (a
 * shop may sell a product under several items), for a run that takes a while.
 */
async function changingFeed(
  db: Kysely<Database>,
  shopId: number,
  moreItems = 0,
): Promise<ChangingFeed> {
  const before = await offersOf(db, shopId);
  const productOf = new Map(before.map((row) => [row.item_id, row.product_id]));
  const plain = (await feedOfShop(db, shopId)).filter(
    (item) => item.sale === null && item.shippingPrice === null && item.availability === 'in_stock',
  );
  expect(plain.length).toBeGreaterThan(6);
  const kept = plain
    .slice(0, -2)
    .map((item, index) => (index < 3 ? { ...item, price: item.price + 10 } : item));
  const products = await productsNotAtShop(db, shopId, 'gtin', 40);
  expect(products.length).toBeGreaterThan(10);
  const added = Array.from({ length: products.length + moreItems }, (_, index) => {
    const product = products[index % products.length]!;
    productOf.set(`fault-${shopId}-${index}`, product.productId);
    return newItem(`fault-${shopId}-${index}`, product, 100 + (index % 500));
  });
  const items: FeedItem[] = [...kept, ...added];
  return {
    body: itemsTsv(items, 'SEK'),
    changedItemId: kept[0]!.itemId,
    live: Object.fromEntries(
      items.map((item) => [
        item.itemId,
        { productId: productOf.get(item.itemId)!, price: item.price },
      ]),
    ),
  };
}

/** The service as a process on `databaseUrl`, killed (if still running) when the test ends. */
interface Service {
  process: StartedProcess;
  send(path: string, init?: RequestInit): Promise<Response>;
  expectAlive(): void;
}

async function startService(
  test: TestContext,
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<Service> {
  const port = await freePort();
  const started = startNode(
    ['--import', 'tsx', 'src/main.ts', 'serve'],
    childEnv({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      // The seeded catalogue stays as it is: only the feed changes the offers.
      CATALOGUE_CLOCK: 'false',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      ...env,
    }),
  );
  test.onTestFinished(async () => void (await started.kill()));
  await untilOutput(
    started,
    'listening',
    () => jsonLogLines(started).find((line) => line.msg === 'listening'),
    PATIENCE_MS,
  );
  return {
    process: started,
    send: (path, init) => fetch(`http://127.0.0.1:${port}${path}`, init),
    expectAlive() {
      if (started.hasExited()) {
        throw new Error(`the service exited:\n${started.stdout()}\n${started.stderr()}`);
      }
    },
  };
}

/** The run id of a full feed PUT without waiting (202). */
async function putFeed(
  service: Service,
  token: string,
  shopId: number,
  body: Uint8Array | ReadableStream<Uint8Array>,
): Promise<string> {
  const response = await service.send(`/feeds/shops/${shopId}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/tab-separated-values' },
    body: body as BodyInit,
    ...({ duplex: 'half' } as object),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { runId: string }).runId;
}

/** A session of the test's own that holds a lock until released (or its server goes away). */
async function holdLock(url: string, statement: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('begin');
  await client.query(statement, values);
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await client.query('rollback').catch(() => undefined);
      await client.end().catch(() => undefined);
    },
  };
}

/** The session that holds the shop's run lock (the worker applying its run), if any. */
async function runSession(db: Kysely<Database>, shopId: number) {
  const { rows } = await sql<{ pid: number; waiting: string | null; wrote: boolean }>`
    select a.pid, a.wait_event_type as waiting, a.backend_xid is not null as wrote
      from pg_locks l join pg_stat_activity a on a.pid = l.pid
     where l.locktype = 'advisory' and l.granted and l.objsubid = 2
       and l.classid = ${FEED_RUN_LOCK_SPACE} and l.objid = ${shopId}`.execute(db);
  return rows[0];
}

/**
 * Waits until the run is `running` and its session waits for a lock the test holds; with
 * `written`, inside a transaction that has written already.
 */
async function untilRunWaits(
  db: Kysely<Database>,
  runId: string,
  shopId: number,
  written: boolean,
): Promise<void> {
  await vi.waitFor(
    async () => {
      expect((await runOf(db, runId)).state).toBe('running');
      const session = await runSession(db, shopId);
      expect(session).toMatchObject({ waiting: 'Lock', ...(written ? { wrote: true } : {}) });
    },
    { timeout: PATIENCE_MS, interval: 50 },
  );
}

/** Waits until the run is in one of `states`, and answers it. */
async function untilRunIs(
  db: Kysely<Database>,
  runId: string,
  states: string[],
  service?: Service,
): Promise<RunRow> {
  return vi.waitFor(
    async () => {
      service?.expectAlive();
      const run = await runOf(db, runId);
      expect(states).toContain(run.state);
      return run;
    },
    { timeout: PATIENCE_MS, interval: 100 },
  );
}

/** Waits until the run has ended; expects it applied on this attempt, the offers as fed. */
async function expectApplied(
  db: Kysely<Database>,
  run: { runId: string; shopId: number; feed: ChangingFeed },
  attempts: number,
  service?: Service,
): Promise<void> {
  const ended = await untilRunIs(db, run.runId, ['applied', 'failed', 'rejected'], service);
  expect(ended).toEqual({ state: 'applied', attempts, reason: null });
  expect(liveOffers(await offersOf(db, run.shopId))).toEqual(run.feed.live);
}

/**
 * A service on the database at `url`, and a run of a changing feed of the shop in it, caught
 * writing the offers: the test's session holds the offer row the feed changes (until the test
 * ends, or `held.release()`), and the run's session waits for it in its transaction.
 */
async function runCaughtWriting(
  test: TestContext,
  db: Kysely<Database>,
  url: string,
  shopId: number,
  env: Record<string, string> = {},
) {
  const feed = await changingFeed(db, shopId);
  const before = await offersOf(db, shopId);
  const service = await startService(test, url, env);
  const token = await shopToken(db, service.send, shopId);
  const held = await holdLock(
    url,
    'select 1 from offers where shop_id = $1 and item_id = $2 for update',
    [shopId, feed.changedItemId],
  );
  test.onTestFinished(() => held.release());
  const runId = await putFeed(service, token, shopId, feed.body);
  await untilRunWaits(db, runId, shopId, true);
  return { shopId, feed, before, service, held, runId };
}

describe(`feed runs under faults on ${databaseKind}`, () => {
  let database: TestDatabase;
  let shops: number[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'seeded' });
    shops = await swedishShops(database.db);
  });
  afterAll(() => database?.dispose());

  it(
    `a run left running after ${MAX_ATTEMPTS} starts is failed, saying it was interrupted, and changes nothing`,
    async () => {
      const { db } = database;
      const shopId = shops[0]!;
      const feed = await changingFeed(db, shopId);
      const before = await offersOf(db, shopId);
      // As dead workers leave it: received, queued, started MAX_ATTEMPTS times, never finished.
      const runId = randomUUID();
      await createFeedRun(db, {
        runId,
        shopId,
        kind: 'full',
        format: 'tsv',
        gzip: false,
        receivedAt: new Date(),
        state: 'queued',
      });
      await appendFeedRunBody(db, runId, 0, feed.body);
      for (let start = 0; start < MAX_ATTEMPTS; start++) await startFeedRun(db, runId);

      const app = createApp({
        config: loadConfig({ CATALOGUE_CLOCK: 'false' }),
        database,
        logger: pino({ level: 'silent' }),
      });
      try {
        await app.startFeedRuns();
        const run = await untilRunIs(db, runId, ['failed', 'applied', 'rejected']);
        expect(run).toEqual({
          state: 'failed',
          attempts: MAX_ATTEMPTS,
          reason: expect.stringMatching(/^interrupted 3 times .*: not applied$/),
        });
      } finally {
        await app.stopFeedRuns(1000);
        await app.dispose();
      }
      expect(await offersOf(db, shopId)).toEqual(before);
      const bodies = await db
        .selectFrom('feed_run_bodies')
        .select('sequence')
        .where('run_id', '=', runId)
        .execute();
      expect(bodies).toEqual([]);
    },
    CASE_TIMEOUT_MS,
  );

  onServer(
    'SIGKILL while a run writes the offers: nothing of it is applied, and the next process applies it whole',
    async (test) => {
      const { db } = database;
      const run = await runCaughtWriting(test, db, database.url!, shops[1]!);
      run.service.process.child.kill('SIGKILL');
      expect(await run.service.process.exited).toBeNull();
      await run.held.release();
      // Postgres ends the killed process's sessions (its transaction rolled back, its lock
      // on the shop's runs released) once it sees their client gone.
      await vi.waitFor(async () => expect(await runSession(db, run.shopId)).toBeUndefined(), {
        timeout: PATIENCE_MS,
        interval: 50,
      });
      expect(await offersOf(db, run.shopId)).toEqual(run.before);
      expect(await runOf(db, run.runId)).toMatchObject({ state: 'running', attempts: 1 });

      const next = await startService(test, database.url!);
      await expectApplied(db, run, 2, next);
    },
    CASE_TIMEOUT_MS,
  );

  onServer(
    'SIGKILL once a long run has written in its transaction, with nothing held: the run and the offers are both as before, or both applied; the next process leaves it applied',
    async (test) => {
      const { db } = database;
      const url = database.url!;
      const shopId = shops[4]!;
      const feed = await changingFeed(db, shopId, 10_000);
      const before = await offersOf(db, shopId);
      const first = await startService(test, url);
      const runId = await putFeed(
        first,
        await shopToken(db, first.send, shopId),
        shopId,
        feed.body,
      );
      // The run's session has written (its staged rows) in its open transaction; the kill
      // may still come after its commit on a fast machine, and then the run must say so.
      await vi.waitFor(
        async () => expect(await runSession(db, shopId)).toMatchObject({ wrote: true }),
        {
          timeout: PATIENCE_MS,
          interval: 10,
        },
      );
      first.process.child.kill('SIGKILL');
      await first.process.exited;
      await vi.waitFor(async () => expect(await runSession(db, shopId)).toBeUndefined(), {
        timeout: PATIENCE_MS,
        interval: 50,
      });
      const killed = await runOf(db, runId);
      const offers = await offersOf(db, shopId);
      console.info(
        `killed mid-run: the run was left ${killed.state} (attempts ${killed.attempts})`,
      );
      if (killed.state === 'applied') {
        expect(liveOffers(offers)).toEqual(feed.live);
      } else {
        expect(killed).toMatchObject({ state: 'running', attempts: 1 });
        expect(offers).toEqual(before);
      }

      const next = await startService(test, url);
      await expectApplied(db, { runId, shopId, feed }, killed.state === 'applied' ? 1 : 2, next);
    },
    CASE_TIMEOUT_MS,
  );

  onServer(
    'SIGTERM while a run writes the offers: the run finishes before the process exits 0',
    async (test) => {
      const { db } = database;
      const run = await runCaughtWriting(test, db, database.url!, shops[2]!, {
        SHUTDOWN_DRAIN_SECONDS: '60',
      });
      run.service.process.child.kill('SIGTERM');
      await untilOutput(run.service.process, 'shutting down', (stdout) =>
        stdout.includes('"msg":"shutting down"') ? true : undefined,
      );
      await run.held.release();
      expect(await run.service.process.exited).toBe(0);
      await expectApplied(db, run, 1);
    },
    CASE_TIMEOUT_MS,
  );

  onServer(
    'SIGTERM while a run waits past the grace: it is handed back untouched, the process exits 0, and the next process applies it',
    async (test) => {
      const { db } = database;
      const url = database.url!;
      const shopId = shops[3]!;
      const feed = await changingFeed(db, shopId);
      const before = await offersOf(db, shopId);
      // A grace of 8 s (half the drain time); the run waits for the test's lock beyond it, and
      // is handed back within the other half. A run's statements have no bound (the service's
      // statement timeout would fail a run that waits this long).
      const first = await startService(test, url, { SHUTDOWN_DRAIN_SECONDS: '16' });
      const token = await shopToken(db, first.send, shopId);

      // The body's first bytes, then (once the run is recorded, so the request has read its
      // shop) the shops table locked, so that the run waits before it reads its body.
      let sendRest!: () => void;
      const [head, rest] = [feed.body.subarray(0, 100), feed.body.subarray(100)];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
          sendRest = () => {
            controller.enqueue(rest);
            controller.close();
          };
        },
      });
      const putting = putFeed(first, token, shopId, body);
      const runId = await vi.waitFor(
        async () => {
          const row = await db
            .selectFrom('feed_runs')
            .select('run_id')
            .where('shop_id', '=', shopId)
            .where('state', '=', 'receiving')
            .executeTakeFirst();
          expect(row).toBeDefined();
          return row!.run_id;
        },
        { timeout: PATIENCE_MS, interval: 20 },
      );
      const held = await holdLock(url, 'lock table shops in access exclusive mode');
      test.onTestFinished(() => held.release());
      sendRest();
      expect(await putting).toBe(runId);
      await untilRunWaits(db, runId, shopId, false);
      first.process.child.kill('SIGTERM');
      await untilOutput(
        first.process,
        'the grace over',
        (stdout) => (stdout.includes('still running after the grace') ? true : undefined),
        PATIENCE_MS,
      );
      await held.release();
      expect(await first.process.exited).toBe(0);
      expect(await runOf(db, runId)).toEqual({ state: 'queued', attempts: 0, reason: null });
      expect(await offersOf(db, shopId)).toEqual(before);

      const next = await startService(test, url);
      await expectApplied(db, { runId, shopId, feed }, 1, next);
    },
    CASE_TIMEOUT_MS,
  );
  onServer(
    'Postgres restarted while a run writes the offers: the service lives on; the run is applied whole by a later attempt, or failed with its reason, never half',
    async (test) => {
      // A server of its own: the suite's shared server must stay up.
      const cluster = await createScratchCluster();
      test.onTestFinished(() => cluster.destroy());
      const url = await fillScratchDatabase(cluster, 'seeded');
      const handle = await openDatabase({ url });
      test.onTestFinished(() => handle.close());
      const { db } = handle;
      const run = await runCaughtWriting(test, db, url, (await swedishShops(db))[0]!);
      // Every session ends, the test's too: its lock goes with it.
      await cluster.restart();

      const ended = await untilRunIs(db, run.runId, ['applied', 'failed', 'rejected'], run.service);
      console.info(`after the restart the run ended ${ended.state} (attempts ${ended.attempts})`);
      if (ended.state === 'applied') {
        await expectApplied(db, run, 2);
      } else {
        expect(ended).toEqual({ state: 'failed', attempts: 1, reason: expect.any(String) });
        expect(await offersOf(db, run.shopId)).toEqual(run.before);
      }
      run.service.expectAlive();
    },
    CASE_TIMEOUT_MS,
  );
});
