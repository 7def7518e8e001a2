/**
 * PostGraphile v5 (bench/postgraphile) against the gateway on the seeded test catalogue: for
 * every request of every workload with a PostGraphile twin (P1–P4), and in another market,
 * PostGraphile's answer to its own document holds the same rows as the gateway's answer
 * (bench/verify.ts compareRows, which the bench runs before measuring), and a twin asking
 * for something else is caught.
 *
 * PostGraphile builds its schema by introspecting a Postgres server, so both run on a server
 * database: the pass's own under TEST_DATABASE_URL, a scratch cluster's in the PGlite pass.
 * PostGraphile is a real HTTP server on a pool of its own; the gateway is called in process.
 */
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPostGraphileServer,
  type PostGraphileServer,
} from '../../bench/postgraphile/server.ts';
import { compareRows, send, type HttpAnswer } from '../../bench/verify.ts';
import {
  readWorkloadInputs,
  workloads,
  type BenchRequest,
  type Workload,
  type WorkloadId,
  type WorkloadInputs,
} from '../../bench/workloads.ts';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { createScratchDatabase } from '../helpers/scratch-database.ts';

const PEER_WORKLOADS: WorkloadId[] = ['P1', 'P2', 'P3', 'P4'];

let database: TestDatabase;
let app: App;
let pool: pg.Pool;
let postgraphile: PostGraphileServer;
let postgraphileUrl: string;
let inputs: WorkloadInputs;
let all: Workload[];

/**
 * Ends `pool` once its connections are closed. pool.end() resolves when they are told to
 * close (all four still open, measured): dropping the database right after terminates one
 * still closing, and the pool raises that (57P01) as an 'error' nobody here listens to, since
 * during the test one is a failure.
 */
async function endPool(pool: pg.Pool): Promise<void> {
  const open = pool.totalCount;
  let closed = 0;
  const allClosed = new Promise<void>((resolve) => {
    if (open === 0) resolve();
    pool.on('remove', () => {
      if (++closed === open) resolve();
    });
  });
  await pool.end();
  await allClosed;
}

beforeAll(async () => {
  database =
    databaseKind === 'postgres'
      ? await createTestDatabase({ contents: 'seeded' })
      : await createScratchDatabase('seeded');
  app = createApp({
    config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0' }),
    database,
    logger: pino({ level: 'silent' }),
  });
  pool = new pg.Pool({ connectionString: database.url, max: 4 });
  postgraphile = await createPostGraphileServer(pool);
  await new Promise<void>((resolve) => postgraphile.server.listen(0, '127.0.0.1', resolve));
  postgraphileUrl = `http://127.0.0.1:${(postgraphile.server.address() as AddressInfo).port}`;
  const client = await database.pool.connect();
  try {
    inputs = await readWorkloadInputs(client);
  } finally {
    client.release();
  }
  all = workloads(inputs, { query: '', variables: {} });
});

afterAll(async () => {
  if (postgraphile) {
    postgraphile.server.closeAllConnections();
    await new Promise((resolve) => postgraphile.server.close(resolve));
    await postgraphile.release();
  }
  if (pool) await endPool(pool);
  await app?.dispose();
  await database?.dispose();
});

/** The gateway's answer to a bench request, through `app.fetch` as a client's would arrive. */
async function gatewayAnswer(request: BenchRequest): Promise<HttpAnswer> {
  const response = await app.fetch(
    new Request(`http://test${request.path}`, {
      method: request.method,
      headers: request.headers,
      body: request.body,
    }),
  );
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

const peerAnswer = (request: BenchRequest) => send(postgraphileUrl, request, 'test');

function workload(id: WorkloadId): Workload {
  const found = all.find((w) => w.id === id);
  if (!found?.peer) throw new Error(`${id} is not a workload with a PostGraphile twin`);
  return found;
}

/** The same request with its `market` variable (if any) set to `market`. */
function inMarket(request: BenchRequest, market: string): BenchRequest {
  const body = JSON.parse(request.body!) as { variables: Record<string, unknown> };
  if (!('market' in body.variables)) return request;
  body.variables.market = market;
  return { ...request, body: JSON.stringify(body) };
}

describe('the workloads with a PostGraphile twin', () => {
  it('are P1–P4, each request with one twin', () => {
    const withTwin = all.filter((w) => w.peer);
    expect(withTwin.map((w) => w.id)).toEqual(PEER_WORKLOADS);
    for (const w of withTwin) expect(w.peer!.requests.length, w.id).toBe(w.requests.length);
  });

  it('draw categories from across the market’s popularity range', () => {
    expect(inputs.categoryIds.length).toBe(3);
    expect(new Set(inputs.categoryIds).size).toBe(3);
    expect(workload('P1').requests.length).toBe(3);
    expect(inputs.treeCategoryIds.length).toBeGreaterThan(3);
    expect(new Set(inputs.treeCategoryIds).size).toBe(inputs.treeCategoryIds.length);
  });

  for (const id of PEER_WORKLOADS) {
    it(`${id}: PostGraphile answers its twin with the gateway's rows`, async () => {
      const w = workload(id);
      for (const [index, request] of w.requests.entries()) {
        const gateway = await gatewayAnswer(request);
        const twin = w.peer!.requests[index]!;
        expect(compareRows(w, gateway, await peerAnswer(twin)), `${id} #${index}`).toBeUndefined();
        // Rows worth comparing: the pages and products reach down to offers and shops.
        const rows = w.peer!.gatewayRows(JSON.parse(gateway.body.toString('utf8')).data);
        if (id !== 'P4')
          expect(
            rows.some((row) => row.includes(' from shop ')),
            id,
          ).toBe(true);
      }
    });
  }

  it('P1 and P3 in another market: the same rows too', async () => {
    for (const id of ['P1', 'P3'] as const) {
      const w = workload(id);
      for (const [index, request] of w.requests.entries()) {
        const gateway = await gatewayAnswer(inMarket(request, 'NZ'));
        const peer = await peerAnswer(inMarket(w.peer!.requests[index]!, 'nz'));
        expect(compareRows(w, gateway, peer), `${id} #${index} in nz`).toBeUndefined();
      }
    }
  });
});

describe('the row check', () => {
  it('names where a twin asking for another category parts from the gateway', async () => {
    const w = workload('P1');
    const gateway = await gatewayAnswer(w.requests[0]!);
    const other = await peerAnswer(w.peer!.requests.at(-1)!);
    expect(compareRows(w, gateway, other)).toMatch(/^rows differ at row 0 /);
  });

  it('takes an answer with errors, or with no rows, as a difference', async () => {
    const w = workload('P4');
    const gateway = await gatewayAnswer(w.requests[0]!);
    const broken = await peerAnswer({
      ...w.peer!.requests[0]!,
      body: JSON.stringify({ query: '{ productByRowId(rowId: 1) { noSuchField } }' }),
    });
    expect(compareRows(w, gateway, broken)).toMatch(/^postgraphile answered/);
    const unknownCategory: HttpAnswer = {
      status: 200,
      contentType: 'application/json; charset=utf-8',
      body: Buffer.from('{"data":{"category":null}}'),
    };
    expect(compareRows(workload('P1'), unknownCategory, unknownCategory)).toBe(
      'the gateway answered no rows: nothing to compare',
    );
  });

  it('serves its metrics and readiness', async () => {
    expect((await send(postgraphileUrl, { method: 'GET', path: '/readyz' }, 'test')).status).toBe(
      200,
    );
    const metrics = await send(postgraphileUrl, { method: 'GET', path: '/metrics' }, 'test');
    const text = metrics.body.toString('utf8');
    expect(text).toMatch(
      new RegExp(`^catalogue_sql_statements_total ${postgraphile.statements}$`, 'm'),
    );
    expect(postgraphile.statements).toBeGreaterThan(0);
  });
});
