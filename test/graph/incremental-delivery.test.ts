/**
 * Incremental delivery (@defer, @stream) on a seeded catalogue, through `app.fetch` as a
 * client sends it: a product list shows its products first and their offers and history in
 * later parts, over multipart/mixed and over an event stream; the parts merge into the answer
 * of the same document without the directives, and run the same SQL: loaders batch within a
 * deferred part, so the statements are as many for 20 products as for 1. A client that takes
 * no stream gets the whole answer at once. The bounds (cost, depth), the deadline (in
 * test/deadline.test.ts), the response cache and ETags hold as for any document.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { Defer20220824Handler } from '@apollo/client/incremental';
import { pino } from 'pino';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { mergedParts, readParts, type Transport } from '../helpers/incremental.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

// Counts statements per request: the response cache would answer repeated documents.
const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });

/** A product page for each product: the product now, its offers and its history later. */
const DEFERRED_PRODUCTS = /* GraphQL */ `
  query ProductsInParts($ids: [Int!]!) {
    products(market: SE, ids: $ids) {
      edges {
        node {
          productId
          name
          brand {
            name
          }
          category {
            name
          }
          offerSummary {
            offerCount
          }
          ... @defer(label: "offers") {
            offers(first: 10) {
              totalCount
              edges {
                node {
                  offerId
                  url
                  price {
                    value
                    currency
                  }
                  shop {
                    name
                  }
                }
              }
            }
          }
          ... @defer(label: "history") {
            priceTrend {
              percentage
            }
            priceHistory(days: 30) {
              date
              lowestPrice {
                value
              }
            }
          }
        }
      }
    }
  }
`;

/** The same document asking for everything at once. */
const WHOLE_PRODUCTS = DEFERRED_PRODUCTS.replace(/ @defer\(label: "\w+"\)/g, '');

const STREAMED_OFFERS = /* GraphQL */ `
  query OffersStreamed($id: Int!) {
    product(market: SE, id: $id) {
      name
      offers(first: 10) {
        edges @stream(initialCount: 1) {
          node {
            offerId
            shop {
              name
            }
          }
        }
      }
    }
  }
`;

const TRANSPORTS: Transport[] = ['multipart/mixed', 'text/event-stream'];

async function request(app: App, body: unknown, accept: string): Promise<Response> {
  return app.fetch(
    new Request('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    }),
  );
}

/** The statements of the last request, white space collapsed, each expected once, sorted. */
function statementsRunOnce(): string[] {
  const sql = catalogue.statements.map((statement) => statement.replace(/\s+/g, ' ').trim());
  expect(new Set(sql).size, sql.join('\n')).toBe(sql.length);
  return sql.sort();
}

/** Runs the document over the transport: its parts, and the SQL it ran once the body ended. */
async function inParts(query: string, variables: Record<string, unknown>, transport: Transport) {
  const response = await catalogue.post({ query, variables }, { accept: transport });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(new RegExp(`^${transport}`));
  const parts = await readParts(response, transport);
  return { parts, sql: statementsRunOnce() };
}

async function whole(query: string, variables: Record<string, unknown>) {
  const body = await catalogue.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return { data: body.data, sql: statementsRunOnce() };
}

let ids: number[];

beforeAll(async () => {
  const body = await catalogue.graphql<{ products: { edges: { node: { productId: number } }[] } }>(
    '{ products(market: SE, first: 20) { edges { node { productId } } } }',
  );
  ids = body.data!.products.edges.map((edge) => edge.node.productId);
  expect(ids).toHaveLength(20);
});

describe.each(TRANSPORTS)('over %s', (transport) => {
  it('shows the products first, then their offers and history, merging into the whole answer', async () => {
    const { parts } = await inParts(DEFERRED_PRODUCTS, { ids }, transport);
    const [first, ...later] = parts;
    expect(first!.hasNext).toBe(true);
    const products = (first!.data as any).products.edges.map((edge: any) => edge.node);
    expect(products).toHaveLength(20);
    for (const product of products) {
      expect(product.name).toEqual(expect.any(String));
      expect(product).not.toHaveProperty('offers');
      expect(product).not.toHaveProperty('priceHistory');
    }
    const labels = later.flatMap((part) => part.incremental ?? []).map((patch) => patch.label);
    expect(labels.filter((label) => label === 'offers')).toHaveLength(20);
    expect(labels.filter((label) => label === 'history')).toHaveLength(20);
    expect(later.at(-1)!.hasNext).toBe(false);

    const merged = mergedParts(parts);
    expect(merged.errors).toEqual([]);
    expect(merged.data).toEqual((await whole(WHOLE_PRODUCTS, { ids })).data);
  });

  it('runs the SQL of the whole answer: one statement per relation, for 1 product as for 20', async () => {
    const one = await inParts(DEFERRED_PRODUCTS, { ids: ids.slice(0, 1) }, transport);
    const twenty = await inParts(DEFERRED_PRODUCTS, { ids }, transport);
    const wholeTwenty = await whole(WHOLE_PRODUCTS, { ids });
    expect(twenty.sql).toEqual(one.sql);
    expect(twenty.sql).toEqual(wholeTwenty.sql);
    // Every product's offers in one statement: the products' own, compiled (src/graph/compile:
    // a page of each product's offers as its subquery), deferred part included.
    const offerPages = twenty.sql.filter((sql) =>
      /ranked where position|from available_offers o where o.product_id/.test(sql),
    );
    expect(offerPages).toHaveLength(1);
    expect(offerPages[0]).toMatch(/^select \(select json_build_object/);
  });

  it('streams a list item by item (@stream), merging into the whole list', async () => {
    const { parts } = await inParts(STREAMED_OFFERS, { id: ids[0] }, transport);
    const edges = (parts[0]!.data as any).product.offers.edges;
    expect(edges).toHaveLength(1);
    expect(parts.length).toBeGreaterThan(1);
    const merged = mergedParts(parts);
    const plain = await whole(STREAMED_OFFERS.replace(' @stream(initialCount: 1)', ''), {
      id: ids[0],
    });
    expect(merged.data).toEqual(plain.data);
  });

  it('carries no ETag', async () => {
    const response = await request(
      catalogue.app,
      { query: DEFERRED_PRODUCTS, variables: { ids } },
      transport,
    );
    expect(response.headers.get('etag')).toBeNull();
    await readParts(response, transport);
  });
});

describe('a client that takes no stream (application/json)', () => {
  it('gets the whole answer at once, running the SQL of the document without the directives', async () => {
    const deferred = await whole(DEFERRED_PRODUCTS, { ids });
    const plain = await whole(WHOLE_PRODUCTS, { ids });
    expect(deferred.data).toEqual(plain.data);
    expect(deferred.sql).toEqual(plain.sql);
    // Nothing runs on after the answer.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(catalogue.statements).toHaveLength(plain.sql.length);
  });
});

describe('bounds', () => {
  let limited: App;
  let maxCost: number;

  beforeAll(async () => {
    // The cost of the whole document, found by a bound it passes; the limit just below it.
    const probe = await request(
      createApp({
        config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', GRAPHQL_MAX_COST: '1' }),
        database: catalogue.database,
        logger: pino({ level: 'silent' }),
      }),
      { query: WHOLE_PRODUCTS, variables: { ids } },
      'application/json',
    );
    const found = /found (\d+)/.exec(((await probe.json()) as any).errors[0].message)![1]!;
    maxCost = Number(found) - 1;
    limited = createApp({
      config: loadConfig({
        RESPONSE_CACHE_TTL_SECONDS: '0',
        GRAPHQL_MAX_COST: String(maxCost),
        // The products' page is 8 fields deep.
        GRAPHQL_MAX_DEPTH: '8',
      }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    // Its first reading of the API clients done, so that no request of the tests counts it.
    await limited.listening;
  });

  it.each(TRANSPORTS)(
    'a deferred fragment counts in the cost: over the bound, nothing runs (%s)',
    async (transport) => {
      catalogue.statements.length = 0;
      const response = await request(
        limited,
        { query: DEFERRED_PRODUCTS, variables: { ids } },
        transport,
      );
      const { errors } = mergedParts(await readParts(response, transport));
      expect(errors).toMatchObject([
        {
          message: expect.stringContaining(`Query cost limit of ${maxCost} exceeded`),
          extensions: { code: 'QUERY_TOO_COMPLEX' },
        },
      ]);
      expect(catalogue.statements).toEqual([]);
    },
  );

  it('a deferred fragment counts in the depth', async () => {
    const deep = `{ product(market: SE, id: 1) { ... @defer { offers(first: 1) {
      edges { node { shop { offers(first: 1) { edges { node { offerId } } } } } } } } } }`;
    const response = await request(limited, { query: deep }, 'multipart/mixed');
    const { errors } = mergedParts(await readParts(response, 'multipart/mixed'));
    expect(errors).toMatchObject([{ extensions: { code: 'QUERY_TOO_COMPLEX' } }]);
  });
});

describe('with the response cache on', () => {
  let cached: App;

  beforeAll(async () => {
    cached = createApp({
      config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '60' }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    await request(cached, { query: '{ markets { code } }' }, 'application/json');
  });

  async function statementsOf(body: unknown, accept: string, transport?: Transport) {
    catalogue.statements.length = 0;
    const response = await request(cached, body, accept);
    if (transport) await readParts(response, transport);
    else await response.text();
    return catalogue.statements.length;
  }

  it('an answer in parts is never stored: each request runs again, in parts', async () => {
    const body = { query: DEFERRED_PRODUCTS, variables: { ids: ids.slice(0, 3) } };
    for (const transport of TRANSPORTS) {
      expect(await statementsOf(body, transport, transport)).toBeGreaterThan(0);
      expect(await statementsOf(body, transport, transport)).toBeGreaterThan(0);
    }
  });

  it('the whole answer a JSON client got is stored as that of the document without the directives', async () => {
    const variables = { ids: ids.slice(3, 6) };
    const body = { query: DEFERRED_PRODUCTS, variables };
    expect(await statementsOf(body, 'application/json')).toBeGreaterThan(0);
    expect(await statementsOf(body, 'application/json')).toBe(0);
    // A client taking a stream still gets it in parts, executed.
    for (const transport of TRANSPORTS) {
      catalogue.statements.length = 0;
      const parts = await readParts(await request(cached, body, transport), transport);
      expect(parts.length).toBeGreaterThan(1);
      expect(catalogue.statements.length).toBeGreaterThan(0);
    }
  });
});

describe('Apollo Client (HttpLink, the 2022-08-24 @defer handler)', () => {
  const PRODUCT_PAGE = gql`
    query ProductPage($id: Int!) {
      product(market: SE, id: $id) {
        productId
        name
        ... @defer {
          offers(first: 5) {
            totalCount
            edges {
              node {
                offerId
                shop {
                  name
                }
              }
            }
          }
        }
      }
    }
  `;

  it('shows the product before its deferred offers, then both', async () => {
    const client = new ApolloClient({
      cache: new InMemoryCache(),
      link: new HttpLink({
        uri: 'http://test/graphql',
        fetch: async (input, init) => catalogue.app.fetch(new Request(input, init)),
      }),
      incrementalHandler: new Defer20220824Handler(),
    });
    const seen: { dataState: string; data: any }[] = [];
    await new Promise<void>((resolve, reject) => {
      const subscription = client
        .watchQuery({ query: PRODUCT_PAGE, variables: { id: ids[0] } })
        .subscribe({
          next(result) {
            seen.push({ dataState: result.dataState, data: result.data });
            if (result.dataState !== 'complete') return;
            subscription.unsubscribe();
            resolve();
          },
          error: reject,
        });
    });
    const withData = seen.filter((result) => result.data?.product);
    expect(withData.map((result) => result.dataState)).toEqual(['streaming', 'complete']);
    const [streaming, complete] = withData;
    expect(streaming!.data.product).toMatchObject({ productId: ids[0], name: expect.any(String) });
    expect(streaming!.data.product.offers).toBeUndefined();
    expect(complete!.data.product.name).toBe(streaming!.data.product.name);
    expect(complete!.data.product.offers.edges.length).toBeGreaterThan(0);
    client.stop();
  });
});
