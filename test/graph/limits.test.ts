/**
 * The bounds on every GraphQL document and request body (src/graph/limits.ts, docs/api.md
 * "Limits"): each refuses with its status and code before anything executes (no SQL), each
 * follows its setting, and nothing the service itself sends or shows (GraphiQL's
 * introspection, the example operations, every REST route's largest document) comes near one.
 */
import { getIntrospectionQuery, print } from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { EXAMPLE_OPERATIONS } from '../../src/graph/graphiql.ts';
import { restOperation } from '../../src/rest/engine.ts';
import { readParams } from '../../src/rest/params.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { demoTokenRequest, everyField } from '../helpers/rest.ts';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';

const NO_RATE_LIMIT = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0', RATE_LIMIT_CLIENT_PER_MINUTE: '0' };
const catalogue = useSeededCatalogue(NO_RATE_LIMIT);

const built: App[] = [];
afterAll(async () => {
  for (const app of built) await app.dispose();
});

/** Another app on the catalogue, with these settings. */
function appWith(env: Record<string, string>): App {
  const config = loadConfig({ ...NO_RATE_LIMIT, ...env });
  const app = createApp({
    config,
    database: catalogue.database,
    logger: pino({ level: 'silent' }),
  });
  built.push(app);
  return app;
}

interface Answer {
  status: number;
  body: GraphQLBody;
  text: string;
  /** The SQL statements the request ran. */
  statements: string[];
}

/** Sends a request to /graphql as it is and reads the answer, recording the SQL it ran. */
async function send(app: App, init: RequestInit, path = '/graphql'): Promise<Answer> {
  catalogue.statements.length = 0;
  const response = await app.fetch(new Request(`http://test${path}`, init));
  const text = await response.text();
  let body: GraphQLBody = {};
  try {
    body = JSON.parse(text) as GraphQLBody;
  } catch {
    // not JSON: tests look at `text`
  }
  return { status: response.status, body, text, statements: [...catalogue.statements] };
}

/**
 * POSTs a document as a GraphQL over HTTP client does, accepting
 * `application/graphql-response+json`: a refused document is a 400 (a legacy
 * `application/json` client gets the same error with a 200, tested below).
 */
function query(
  document: string,
  variables: Record<string, unknown> = {},
  app: App = catalogue.app,
  accept = 'application/graphql-response+json',
): Promise<Answer> {
  return send(app, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept },
    body: JSON.stringify({ query: document, variables }),
  });
}

/** The one error of a refused request: its status, code and reason, and that nothing ran. */
function expectRefused(answer: Answer, status: number, code: string, reason?: string) {
  expect(answer.status, answer.text.slice(0, 500)).toBe(status);
  expect(answer.body.data, answer.text.slice(0, 500)).toBeUndefined();
  expect(answer.body.errors).toHaveLength(1);
  const [error] = answer.body.errors!;
  expect(error!.extensions?.code).toBe(code);
  if (reason !== undefined) {
    expect(error!.extensions?.details).toEqual([{ parameter: 'query', reason }]);
  }
  expect(answer.statements).toEqual([]);
  return error!;
}

/** `document(bound)` is answered, `document(bound + 1)` refused for `reason`. */
async function expectBound(
  app: App,
  document: (size: number) => string,
  bound: number,
  reason: string,
) {
  expectAnswered(await query(document(bound), {}, app));
  const past = await query(document(bound + 1), {}, app);
  const error = expectRefused(past, 400, 'QUERY_TOO_COMPLEX', reason);
  expect(error.message).toMatch(/limit of \d+ exceeded/i);
}

function expectAnswered(answer: Answer) {
  expect(answer.status, answer.text.slice(0, 500)).toBe(200);
  expect(answer.body.errors, answer.text.slice(0, 500)).toBeUndefined();
}

// ---------------------------------------------------------------------------------------
// Documents just inside and just past each default bound

/** `{ markets { … } }` nested to `depth` selection levels (categories' parents, say). */
function ofDepth(depth: number): string {
  let selection = 'name';
  for (let level = 3; level < depth; level++) selection = `parent { ${selection} }`;
  return `{ category(market: SE, id: 1) { ${depth > 2 ? `parent { ${selection} }` : 'name'} } }`;
}

function withAliases(count: number): string {
  const fields = Array.from({ length: count }, (_, index) => `m${index}: code`).join(' ');
  return `{ markets { ${fields} } }`;
}

/** A product's global id, for documents that list ids. */
let productNodeId: string;
beforeAll(async () => {
  const { data } = await catalogue.graphql<{ products: { edges: { node: { id: string } }[] } }>(
    '{ products(market: SE, first: 1) { edges { node { id } } } }',
  );
  productNodeId = data!.products.edges[0]!.node.id;
});

/** `{ nodes(ids: [id id …]) { id } }`: 12 tokens around `count - 12` ids. */
function ofTokens(count: number): string {
  return `{ nodes(ids: [${`"${productNodeId}" `.repeat(count - 12)}]) { id } }`;
}

/** `count` inline fragments, each with a directive (a directive is not repeatable). */
function withDirectives(count: number): string {
  return `{ markets { ${'... on MarketInfo @include(if: true) { code } '.repeat(count)}} }`;
}

/** A page of `first` products (a number, or a variable) with 250 offers each. */
const pageOfOffers = (first: string) =>
  `products(market: SE, first: ${first}) { edges { node { offers(first: 250) { edges { node { offerId url price { value currency } } } } } } }`;

/** `copies` aliases of a page of 250 products with 250 offers each. */
function pagesOfOffers(copies: number): string {
  const pages = Array.from({ length: copies }, (_, index) => `p${index}: ${pageOfOffers('250')}`);
  return `{ ${pages.join(' ')} }`;
}

describe('the default bounds', () => {
  it('are graphql-armor’s, but for depth, with a cost budget and 100 KB bodies', () => {
    expect(loadConfig({})).toMatchObject({
      graphqlMaxDepth: 11,
      graphqlMaxAliases: 15,
      graphqlMaxTokens: 1000,
      graphqlMaxDirectives: 50,
      graphqlMaxCost: 1_000_000,
      graphqlMaxBodyBytes: 100 * 1024,
    });
  });

  const bounds = [
    { name: 'depth', document: ofDepth, bound: 11, reason: 'too_deep' },
    { name: 'aliases', document: withAliases, bound: 15, reason: 'too_many_aliases' },
    { name: 'tokens', document: ofTokens, bound: 1000, reason: 'too_many_tokens' },
    { name: 'directives', document: withDirectives, bound: 50, reason: 'too_many_directives' },
    // Two pages cost 876,502, three 1,314,753.
    { name: 'cost', document: pagesOfOffers, bound: 2, reason: 'too_costly' },
  ];
  for (const { name, document, bound, reason } of bounds) {
    it(`${name}: answers a document at the bound, refuses one past it (400, nothing run)`, () =>
      expectBound(catalogue.app, document, bound, reason));
  }

  it('refuses the same way to a legacy application/json client, with a 200 (GraphQL over HTTP)', async () => {
    for (const { document, bound, reason } of bounds) {
      const past = await query(document(bound + 1), {}, catalogue.app, 'application/json');
      expectRefused(past, 200, 'QUERY_TOO_COMPLEX', reason);
    }
  });

  it('counts the depth of fields: a fragment is not a level of its own', async () => {
    expectAnswered(await query(`{ ...Root } fragment Root on Query ${ofDepth(11)}`));
    const past = await query(`{ ...Root } fragment Root on Query ${ofDepth(12)}`);
    expectRefused(past, 400, 'QUERY_TOO_COMPLEX', 'too_deep');
  });

  it('refuses a document past several bounds with one of them', async () => {
    const answer = await query(`{ a: markets { code } ${ofTokens(1000).slice(1)}`);
    expectRefused(answer, 400, 'QUERY_TOO_COMPLEX', 'too_many_tokens');
  });

  it('counts the variables in the cost: a page’s size multiplies what is below it', async () => {
    const page = `query Page($first: Int!) { ${pageOfOffers('$first')} }`;
    expectAnswered(await query(page, { first: 10 }));
    expectRefused(
      await query(page, { first: 250 }, appWith({ GRAPHQL_MAX_COST: '100000' })),
      400,
      'QUERY_TOO_COMPLEX',
      'too_costly',
    );
  });

  it('counts a list of ids by its length, and lets an over-large page be the argument’s error', async () => {
    const nodes = (count: number) =>
      `{ nodes(ids: [${`"${productNodeId}" `.repeat(count)}]) { id } }`;
    const strict = appWith({ GRAPHQL_MAX_COST: '50' });
    expectAnswered(await query(nodes(20), {}, strict));
    expectRefused(await query(nodes(60), {}, strict), 400, 'QUERY_TOO_COMPLEX', 'too_costly');

    const tooLarge = await query('{ products(market: SE, first: 100000) { totalCount } }');
    expect(tooLarge.body.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });
});

describe('configured bounds', () => {
  const settings = [
    { setting: 'GRAPHQL_MAX_DEPTH', value: 3, document: ofDepth, reason: 'too_deep' },
    { setting: 'GRAPHQL_MAX_ALIASES', value: 1, document: withAliases, reason: 'too_many_aliases' },
    { setting: 'GRAPHQL_MAX_TOKENS', value: 40, document: ofTokens, reason: 'too_many_tokens' },
    {
      setting: 'GRAPHQL_MAX_DIRECTIVES',
      value: 1,
      document: withDirectives,
      reason: 'too_many_directives',
    },
    // products + first × (edges + node + name): 10 for 3 products, 13 for 4.
    {
      setting: 'GRAPHQL_MAX_COST',
      value: 10,
      document: (first: number) =>
        `{ products(market: SE, first: ${first}) { edges { node { name } } } }`,
      bound: 3,
      reason: 'too_costly',
    },
  ];
  for (const { setting, value, document, bound, reason } of settings) {
    it(`${setting}=${value}: the setting, not the default`, () =>
      expectBound(appWith({ [setting]: String(value) }), document, bound ?? value, reason));
  }

  it('holds REST requests to the cost budget too', async () => {
    const app = appWith({ GRAPHQL_MAX_COST: '10' });
    const answer = await send(app, { method: 'GET' }, '/v1/products?market=se&limit=20');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      error: {
        code: 'http.400',
        message: expect.stringMatching(/^Query cost limit of 10 exceeded/),
        details: [{ parameter: 'query', reason: 'too_costly' }],
      },
    });
    expect(answer.statements).toEqual([]);
  });

  it('refuses a body over GRAPHQL_MAX_BODY_BYTES', async () => {
    const app = appWith({ GRAPHQL_MAX_BODY_BYTES: '2048' });
    expectAnswered(await query(`{ markets { code } }${' '.repeat(1900)}`, {}, app));
    const answer = await query(`{ markets { code } }${' '.repeat(2100)}`, {}, app);
    expectRefused(answer, 413, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('are checked when the service starts', () => {
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '0' })).toThrow(/GRAPHQL_MAX_DEPTH/);
    expect(() => loadConfig({ GRAPHQL_MAX_COST: 'lots' })).toThrow(/GRAPHQL_MAX_COST/);
    expect(() => loadConfig({ GRAPHQL_MAX_BODY_BYTES: '10' })).toThrow(/GRAPHQL_MAX_BODY_BYTES/);
  });
});

// ---------------------------------------------------------------------------------------
// Hostile requests

/** `{a{a{a…}}}`: `levels` selection sets, each opened by a field. */
function nestedBraces(levels: number): string {
  return `${'{a'.repeat(levels)}${'}'.repeat(levels)}`;
}

describe('hostile requests', () => {
  it('refuses a 1 MB document before reading it whole: 413', async () => {
    const answer = await query(`{ ${'markets { code } '.repeat(60_000)}}`);
    expectRefused(answer, 413, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('refuses a 1 MB body sent without a length (chunked) as it arrives: 413', async () => {
    const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(new TextEncoder().encode('{"query": "{ markets { code } }'));
        if (sent++ < 16) controller.enqueue(chunk);
        else {
          controller.enqueue(new TextEncoder().encode('"}'));
          controller.close();
        }
      },
    });
    const answer = await send(catalogue.app, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expectRefused(answer, 413, 'REQUEST_ENTITY_TOO_LARGE');
  });

  it('takes no uploads: multipart and other bodies are 415', async () => {
    const form = new FormData();
    form.set('operations', JSON.stringify({ query: '{ markets { code } }' }));
    form.set('map', '{}');
    const multipart = await send(catalogue.app, { method: 'POST', body: form });
    expectRefused(multipart, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const text = await send(catalogue.app, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{ markets { code } }',
    });
    expectRefused(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers braces nested thousands deep with 400, not a parser crash', async () => {
    for (const levels of [2_000, 10_000]) {
      const answer = await query(nestedBraces(levels));
      expectRefused(answer, 400, 'QUERY_TOO_COMPLEX', 'too_many_tokens');
    }
    // 50,000 levels are 150 KB: refused unread.
    expectRefused(await query(nestedBraces(50_000)), 413, 'REQUEST_ENTITY_TOO_LARGE');
    // With the token bound lifted, the depth bound or the parser's own guard still answers.
    const lifted = appWith({ GRAPHQL_MAX_TOKENS: '1000000', GRAPHQL_MAX_BODY_BYTES: '1000000' });
    const messages = new Map<number, string>();
    for (const levels of [1_000, 2_000, 50_000]) {
      const answer = await query(nestedBraces(levels), {}, lifted);
      messages.set(levels, expectRefused(answer, 400, 'QUERY_TOO_COMPLEX', 'too_deep').message);
    }
    expect(messages.get(1_000)).toBe('Query depth limit of 11 exceeded, found 1000.');
    expect(messages.get(50_000)).toBe('Document nested too deeply to parse.');
  });

  it('answers an operation type the schema does not have with 400', async () => {
    const error = expectRefused(await query('mutation { __typename }'), 400, 'BAD_USER_INPUT');
    expect(error.message).toMatch(/no mutation type/);
  });

  it('never echoes a long name back', async () => {
    const name = 'x'.repeat(90_000);
    const answer = await query(`{ ${name} }`);
    expect(answer.text.length).toBeLessThan(1000);
    expect(answer.body.errors?.[0]?.message).toBe(
      `Cannot query field "${'x'.repeat(64)}…" on type "Query".`,
    );
    const syntax = await query(`{ "${name}" }`);
    expect(syntax.body.errors?.[0]?.message).toBe(
      `Syntax Error: Expected Name, found String "${'x'.repeat(64)}…".`,
    );
  });

  it('answers a malformed request with 400 and nothing of the parser’s own words', async () => {
    const invalidJson = await send(catalogue.app, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: '{"query": ',
    });
    const error = expectRefused(invalidJson, 400, 'BAD_REQUEST');
    expect(error.extensions).not.toHaveProperty('originalError');
    for (const body of [
      { query: null },
      { query: 42 },
      {},
      { query: '{ markets { code } }', variables: 'x' },
    ]) {
      const answer = await send(catalogue.app, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
      expectRefused(answer, 400, 'BAD_REQUEST');
    }
  });

  it('answers variables or extensions that are not JSON, in a query string or a form, with 400', async () => {
    const query = encodeURIComponent('{ markets { code } }');
    for (const parameters of ['variables=x', 'variables=%7B', 'extensions=x']) {
      const answer = await send(
        catalogue.app,
        { headers: { accept: 'application/json' } },
        `/graphql?query=${query}&${parameters}`,
      );
      expectRefused(answer, 400, 'BAD_REQUEST');
    }
    const form = await send(catalogue.app, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: `query=${query}&variables=%7B`,
    });
    expectRefused(form, 400, 'BAD_REQUEST');
  });

  it('answers variables nested deeper than the cache key can hold, uncached', async () => {
    // 10,000 levels fit the body limit but not the cache key serialiser's stack.
    const nested = `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`;
    const post = (document: string) =>
      send(catalogue.app, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
        },
        body: `{"query":${JSON.stringify(document)},"variables":{"a":${nested}}}`,
      });
    // Declared, it reaches the key and then its own coercion error; undeclared, it is ignored.
    const declared = await post('query Deep($a: Boolean!) { markets @include(if: $a) { code } }');
    expect(declared.status, declared.text.slice(0, 500)).toBe(400);
    expect(declared.body.errors?.[0]?.message).toMatch(/\$a/);
    expectAnswered(await post('{ markets { code } }'));
  });
});

// ---------------------------------------------------------------------------------------
// What the service itself sends or shows stays inside every bound

describe('the service’s own documents', () => {
  it('GraphiQL’s introspection passes', async () => {
    const options = {
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
    };
    for (const document of [getIntrospectionQuery(), getIntrospectionQuery(options)]) {
      const answer = await query(document);
      expectAnswered(answer);
      expect(answer.body.data).toHaveProperty('__schema.queryType.name', 'Query');
    }
  });

  for (const example of EXAMPLE_OPERATIONS) {
    it(`the GraphiQL example ${example.name} passes`, async () => {
      expectAnswered(await query(example.document, example.variables));
    });
  }

  describe('every REST route’s largest request', () => {
    let token: string;
    const examples = { productId: '', productIds: '', gtins: '', categoryId: '', categoryWord: '' };

    beforeAll(async () => {
      const tokenAnswer = await catalogue.app.fetch(demoTokenRequest('http://test'));
      token = ((await tokenAnswer.json()) as { access_token: string }).access_token;
      const { data } = await catalogue.graphql<{
        products: {
          edges: {
            node: {
              productId: number;
              gtins: string[];
              category: { categoryId: number; name: string };
            };
          }[];
        };
      }>(
        '{ products(market: SE, first: 20) { edges { node { productId gtins category { categoryId name } } } } }',
      );
      const products = data!.products.edges.map((edge) => edge.node);
      examples.productId = String(products[0]!.productId);
      examples.productIds = products.map((product) => product.productId).join(',');
      examples.gtins = products
        .flatMap((product) => product.gtins)
        .slice(0, 10)
        .join(',');
      examples.categoryId = String(products[0]!.category.categoryId);
      examples.categoryWord = products[0]!.category.name.split(/\s+/)[0]!;
    });

    /** Each route at its largest: its maximum page, its longest lists, every field. */
    const largest: Record<string, () => string[]> = {
      partnerSearchProducts: () => [
        `/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&limit=250&productIds=${examples.productIds}`,
        `/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&limit=250&gtins=${examples.gtins}`,
      ],
      partnerSearchProduct: () => [
        `/partner-search/products/${examples.productId}?market=se&ref=${DEMO_CLIENT.ref}&limit=250`,
      ],
      suggestions: () => [`/suggestions?market=se&product=${examples.categoryWord}&limit=30`],
      categories: () => [`/categories?market=se&q=${examples.categoryWord}&limit=30`],
      products: () => [
        `/products?market=se&limit=15`,
        `/products?market=se&gtin=${examples.gtins}`,
      ],
      productsById: () => [
        `/products/${examples.productIds.split(',').slice(0, 10).join(',')}?market=se`,
      ],
      genericProducts: () => [`/v1/products?market=se&limit=100`],
      genericProduct: () => [`/v1/products/${examples.productId}?market=se`],
      genericCategories: () => [`/v1/categories?market=se&limit=100`],
      genericCategory: () => [`/v1/categories/${examples.categoryId}?market=se`],
      genericCategoryProducts: () => [
        `/v1/categories/${examples.categoryId}/products?market=se&limit=100`,
      ],
    };

    it('covers every route', () => {
      expect(Object.keys(largest).sort()).toEqual(restRoutes.map((route) => route.id).sort());
    });

    for (const route of restRoutes) {
      it(`${route.id}: answered over REST, and its document passes /graphql's bounds`, async () => {
        for (const path of largest[route.id]!()) {
          const url = new URL(
            `${path}&fields=${encodeURIComponent(everyField(route.resource))}`,
            'http://test',
          );
          const headers: Record<string, string> =
            route.access === 'partner' ? { authorization: `Bearer ${token}` } : {};
          const rest = await send(catalogue.app, { headers }, url.pathname + url.search);
          expect(rest.status, `${path}: ${rest.text.slice(0, 300)}`).toBe(200);

          const { plan, buildDocument } = restOperation(
            route,
            readParams(route.params, url.searchParams, pathParamsOf(route.path, url.pathname)),
          );
          const graphql = await query(print(buildDocument()), plan.variables);
          expectAnswered(graphql);
        }
      });
    }
  });
});

function pathParamsOf(template: string, pathname: string): Record<string, string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
  const found = new RegExp(`^${template.replace(/\{\w+\}/g, '([^/]+)')}$`).exec(pathname)!;
  return Object.fromEntries(
    names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]),
  );
}
