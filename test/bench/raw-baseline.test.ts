/**
 * The raw-SQL baseline (bench/raw) against the gateway on the seeded test catalogue: for
 * every request of every workload with a raw twin, and for more markets, ids, pages and
 * searches than the bench sends, the baseline's status, content type and body bytes equal
 * the gateway's, and it ran exactly one statement per request.
 *
 * The baseline is a real HTTP server on the file's database pool (a server database under
 * TEST_DATABASE_URL, PGlite's node-postgres adapter otherwise); the gateway is called in
 * process. Both see the Host `test`, so their links agree.
 *
 * What the test catalogue cannot show: its 300 products are fewer than the search's front
 * rows (FRONT_ROWS), so the search never takes its index fallback here; bench/verify.ts
 * checks that path on the bench catalogue before every benchmark run.
 */
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRawServer, type RawServer } from '../../bench/raw/server.ts';
import { MARKET_CODES as RAW_MARKET_CODES, SEARCH_CONFIGS } from '../../bench/raw/params.ts';
import { taggedUrl } from '../../bench/raw/sql/offers.ts';
import { float, render } from '../../bench/raw/json-sql.ts';
import {
  FRONT_ROWS as RAW_FRONT_ROWS,
  MAX_QUERY_LENGTH as RAW_MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS as RAW_MAX_QUERY_TERMS,
  searchTermOf as rawSearchTermOf,
  splitQuery as rawSplitQuery,
} from '../../bench/raw/sql/suggestions.ts';
import { compareAnswers, send, type HttpAnswer } from '../../bench/verify.ts';
import {
  readWorkloadInputs,
  workloads,
  W2_DOCUMENT,
  W2_OPERATION,
  W4_DOCUMENT,
  W4_OPERATION,
  W4_REST_FIELDS,
  type BenchRequest,
  type WorkloadId,
  type WorkloadInputs,
} from '../../bench/workloads.ts';
import { FRONT_ROWS } from '../../src/db/repositories/product-search.ts';
import { tagUrlWithRef } from '../../src/graph/scope.ts';
import { MARKET_CODES } from '../../src/markets.ts';
import {
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  searchTermOf,
  splitQuery,
} from '../../src/search/text-search.ts';
import { useRestCatalogue } from '../helpers/rest.ts';

const rest = useRestCatalogue();
const HOST = 'test';

let raw: RawServer;
let rawUrl: string;
let inputs: WorkloadInputs;
let token: string;

beforeAll(async () => {
  raw = createRawServer({ pool: rest.catalogue.database.pool });
  await new Promise<void>((resolve) => raw.server.listen(0, '127.0.0.1', resolve));
  rawUrl = `http://127.0.0.1:${(raw.server.address() as AddressInfo).port}`;
  const client = await rest.catalogue.database.pool.connect();
  try {
    inputs = await readWorkloadInputs(client);
  } finally {
    client.release();
  }
  token = await rest.token();
});

afterAll(async () => {
  if (!raw) return;
  raw.server.closeAllConnections();
  await new Promise((resolve) => raw.server.close(resolve));
});

/** The gateway's answer to a bench request, through `app.fetch` as a client's would arrive. */
async function gatewayAnswer(request: BenchRequest): Promise<HttpAnswer> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.partner) headers.authorization = `Bearer ${token}`;
  const init: RequestInit = { method: request.method, headers };
  if (request.body !== undefined) init.body = request.body;
  const response = await rest.app.fetch(new Request(`http://${HOST}${request.path}`, init));
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? undefined,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/**
 * Both answers to one request; fails the test unless they are the same. Answers the gateway's
 * status and how many statements the baseline ran.
 */
async function expectSameAnswer(request: BenchRequest) {
  const gateway = await gatewayAnswer(request);
  const before = raw.statements;
  const answer = await send(rawUrl, request, HOST, token);
  const statements = raw.statements - before;
  const label = `${request.method} ${request.path} ${request.body ?? ''}`;
  expect(compareAnswers(gateway, answer), label).toBeUndefined();
  return { status: gateway.status, statements };
}

function workloadRequests(id: WorkloadId): BenchRequest[] {
  const workload = workloads(inputs, { query: '', variables: {} }).find((w) => w.id === id);
  if (!workload?.raw) throw new Error(`${id} is not a workload with a raw twin`);
  return workload.requests;
}

const RAW_WORKLOADS: WorkloadId[] = ['W1', 'W2', 'W3', 'W4-rest', 'W4-graphql', 'W6'];

function get(path: string, options: { partner?: boolean } = {}): BenchRequest {
  // A fixed request id: error bodies carry it, and then they compare byte for byte too.
  return { method: 'GET', path, headers: { 'x-request-id': 'raw-baseline-test' }, ...options };
}

function post(query: string, operationName: string, variables: Record<string, unknown>) {
  return {
    method: 'POST' as const,
    path: '/graphql',
    body: JSON.stringify({ query, operationName, variables }),
    headers: { 'content-type': 'application/json' },
  };
}

async function query<Row>(text: string, values: unknown[] = []): Promise<Row[]> {
  const result = await rest.catalogue.database.pool.query(text, values);
  return result.rows as Row[];
}

describe('the workloads with a raw twin', () => {
  it('are the ones this file checks', () => {
    const withTwin = workloads(inputs, { query: '', variables: {} }).filter((w) => w.raw);
    expect(withTwin.map((w) => w.id)).toEqual(RAW_WORKLOADS);
  });

  for (const id of RAW_WORKLOADS) {
    it(`${id}: the same status, content type and bytes as the gateway, in one statement`, async () => {
      const requests = workloadRequests(id);
      expect(requests.length).toBeGreaterThan(0);
      for (const request of requests) {
        const { status, statements } = await expectSameAnswer(request);
        expect(status, request.path).toBe(200);
        expect(statements, request.path).toBe(1);
      }
    });
  }
});

describe('beyond the bench requests', () => {
  it('W1: other markets, pages, limits and a ref on offer and alternative-price URLs', async () => {
    for (const path of [
      '/products?market=nz&limit=15',
      '/products?market=fi&limit=7&offset=7',
      '/products?market=se&limit=15&offset=15&ref=partner~1.x',
      '/products?market=dk',
      '/products?market=se&limit=0',
      '/products?market=gb&limit=15&offset=100000',
    ]) {
      const { status, statements } = await expectSameAnswer(get(path));
      expect([status, statements], path).toEqual([200, 1]);
    }
  });

  it('W2: another market, a category with sub-categories, an unknown category', async () => {
    const [root] = await query<{ id: number }>(
      'select id from categories where parent_id is null order by id limit 1',
    );
    for (const variables of [
      { market: 'NZ', category: inputs.categoryIds[0]! },
      { market: 'FI', category: root!.id },
      { market: 'SE', category: 999_999 },
    ]) {
      const { status, statements } = await expectSameAnswer(
        post(W2_DOCUMENT, W2_OPERATION, variables),
      );
      expect([status, statements]).toEqual([200, 1]);
    }
  });

  it('W3: other markets and languages, prefixes, typos, pages, no match', async () => {
    const names = await query<{ market: string; name: string }>(
      `select s.market, p.name from product_market_summaries s join products p on p.id = s.product_id
        where s.market in ('nz', 'fi') order by s.popularity desc, s.product_id limit 6`,
    );
    const searches = names.flatMap(({ market, name }) => {
      const words = name.toLowerCase().split(/\s+/);
      const [first = '', second = ''] = words;
      // A letter missing from the longest word: found by similarity only (the third tier).
      const longest = words.reduce((a, b) => (b.length > a.length ? b : a), '');
      const typo = longest.length >= 7 ? `${longest.slice(0, 3)}${longest.slice(4)}` : longest;
      return [
        `market=${market}&product=${encodeURIComponent(`${first} ${second}`)}`,
        `market=${market}&product=${encodeURIComponent(first.slice(0, 3))}&limit=30&offset=1`,
        `market=${market}&product=${encodeURIComponent(typo)}&limit=3`,
      ];
    });
    for (const search of [...searches, 'market=gb&product=zzzzqqq', 'market=se&product=%21%21']) {
      const { status, statements } = await expectSameAnswer(get(`/suggestions?${search}`));
      expect(status, search).toBe(200);
      // A query without letters or digits matches nothing without asking the database.
      expect(statements, search).toBe(search.endsWith('%21%21') ? 0 : 1);
    }
  });

  it('W4: a product without offers in the market, and an unknown one (404 / null)', async () => {
    const [product] = await query<{ id: number }>(
      `select p.id from products p
        where not exists (select 1 from available_offers o
                           where o.product_id = p.id and o.market = 'nz')
        order by p.id limit 1`,
    );
    expect(product).toBeDefined();
    for (const id of [product!.id, inputs.lookupIds[0]!, 999_999]) {
      const lookup = await expectSameAnswer(
        get(`/v1/products/${id}?market=nz&fields=${W4_REST_FIELDS}`),
      );
      expect(lookup.statements).toBe(1);
      expect(lookup.status).toBe(id === 999_999 ? 404 : 200);
      const graphql = await expectSameAnswer(post(W4_DOCUMENT, W4_OPERATION, { market: 'NZ', id }));
      expect([graphql.status, graphql.statements]).toEqual([200, 1]);
    }
  });

  it('W6: duplicates, unknown and out-of-range ids, pages, another market', async () => {
    const ids = inputs.partnerIds;
    for (const path of [
      `market=nz&ref=demo-ref&limit=20&productIds=${ids.join(',')}`,
      `market=fi&ref=demo-ref&limit=3&offset=2&productIds=${ids.slice(0, 8).join(',')}`,
      `market=se&ref=demo-ref&productIds=${ids[0]},${ids[0]},999999,99999999999,0,${ids[1]}`,
      `market=se&ref=demo-ref&limit=0&productIds=${ids.slice(0, 2).join(',')}`,
    ]) {
      const { status, statements } = await expectSameAnswer(
        get(`/partner-search/products?${path}`, { partner: true }),
      );
      expect([status, statements], path).toEqual([200, 1]);
    }
  });

  it('anything else is a 404 without SQL', async () => {
    for (const request of [
      get('/v1/categories?market=se'),
      post('{ markets { code } }', 'Markets', {}),
      post(`${W4_DOCUMENT} `, W4_OPERATION, { market: 'SE', id: 1 }),
    ]) {
      const before = raw.statements;
      const answer = await send(rawUrl, request, HOST, token);
      expect(answer.status).toBe(404);
      expect(raw.statements).toBe(before);
    }
  });

  it('serves its metrics and readiness', async () => {
    expect((await send(rawUrl, get('/readyz'), HOST)).status).toBe(200);
    const metrics = await send(rawUrl, get('/metrics'), HOST);
    const text = metrics.body.toString('utf8');
    expect(text).toMatch(new RegExp(`^catalogue_sql_statements_total ${raw.statements}$`, 'm'));
    expect(text).toMatch(/^process_resident_memory_bytes \d+$/m);
  });
});

describe('the rules the baseline restates', () => {
  it('search constants, query parsing, markets and their languages are the gateway’s', async () => {
    expect([RAW_FRONT_ROWS, RAW_MAX_QUERY_TERMS, RAW_MAX_QUERY_LENGTH]).toEqual([
      FRONT_ROWS,
      MAX_QUERY_TERMS,
      MAX_QUERY_LENGTH,
    ]);
    for (const text of ['  Väskor  usb-c\tGALAXY ', "o'neil \\ & | ! :*", 'ﬁ Å 2x']) {
      expect(rawSplitQuery(text)).toEqual(splitQuery(text));
      for (const term of splitQuery(text))
        expect(rawSearchTermOf(term)).toEqual(searchTermOf(term));
    }
    expect(RAW_MARKET_CODES).toEqual(MARKET_CODES);
    const markets = await query<{ code: string; search_config: string }>(
      'select code, search_config::text from markets order by code',
    );
    expect(Object.fromEntries(markets.map((m) => [m.code, m.search_config]))).toEqual(
      Object.fromEntries(Object.entries(SEARCH_CONFIGS).sort()),
    );
  });

  it('numbers print as JSON.stringify prints them, in every range', async () => {
    const values = [
      0,
      -0,
      1,
      -1,
      0.1,
      6.6,
      12000,
      1e-4,
      9.99e-5,
      1.5e-6,
      1e-6,
      9.99999e-7,
      1e-7,
      1.2345e-9,
      1e15,
      1.2345678901234567e15,
      123456789012345680000,
      1e21,
      -1.5e300,
      5e-324,
      0.30000000000000004,
      2 ** 53,
      NaN,
      Infinity,
      -Infinity,
    ];
    const [row] = await query<{ printed: string[] }>(
      `select array(select ${render(float('v'))} from unnest($1::float8[]) with ordinality as x(v, n)
                     order by n) as printed`,
      [values.map(String)],
    );
    expect(row!.printed).toEqual(values.map((value) => JSON.stringify(value)));
  });

  it('offer URLs carry the ref as tagUrlWithRef writes it', async () => {
    const urls = [
      'https://www.shop.se/p/1',
      'https://www.shop.se/p/1?variant=2',
      'https://www.shop.se/p/1?ref=old&variant=2&ref=older',
      'https://www.shop.se/p/1?a=1&&b&ref',
      'https://www.shop.se/p/1#top',
      'https://www.shop.se/p/1?x=1#top',
    ];
    for (const ref of ['demo-ref', 'a~b._-Z9', null]) {
      const [row] = await query<{ tagged: string[] }>(
        `select array(select ${taggedUrl('u', '$2::text')}
                        from unnest($1::text[]) with ordinality as x(u, n) order by n) as tagged`,
        [urls, ref],
      );
      expect(row!.tagged).toEqual(urls.map((url) => tagUrlWithRef(url, ref)));
    }
  });
});
