/**
 * The default response of every REST route against the specification's tables (section 2,
 * decisions 10, 12 and 13): the exact set of keys at every level, each value's JSON type and
 * nullability; then the HTTP details every route shares (content type, ETag and 304,
 * Cache-Control, API-Version, X-Request-Id, 404 and 405).
 */
import { describe, expect, it } from 'vitest';
import {
  CURRENCY,
  expectErrorBody,
  expectShape,
  restShapes,
  useRestCatalogue,
  type RestResponse,
} from '../helpers/rest.ts';

const rest = useRestCatalogue();
const se = restShapes('se');
const JSON_TYPE = 'application/json; charset=utf-8';
const SITE_SE = 'https://www.pricecompare.se/';

/** Values at a path such as `data[].offers[].price.includingShipping`. */
function valuesAt(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const segment of path.split('.')) {
    const many = segment.endsWith('[]');
    const key = many ? segment.slice(0, -2) : segment;
    current = current.flatMap((item) => {
      if (item === null || typeof item !== 'object') return [];
      const next = key === '' ? item : (item as Record<string, unknown>)[key];
      return many ? ((next as unknown[] | undefined) ?? []) : [next];
    });
  }
  return current;
}

/** The sample exercises both sides of a nullable field (so its nullability was checked). */
function expectBothNullAndNot(values: unknown[], what: string) {
  expect(
    values.some((value) => value === null),
    `${what}: some null`,
  ).toBe(true);
  expect(
    values.some((value) => value !== null && value !== undefined),
    `${what}: some set`,
  ).toBe(true);
}

function expectOk(response: RestResponse) {
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toBe(JSON_TYPE);
}

/** Every node of property trees, depth first. */
function propertyNodes(nodes: any[]): any[] {
  return nodes.flatMap((node) => [node, ...propertyNodes(node.properties ?? [])]);
}

/** A property's value has the JSON type its `type` names (null for groups, and when unset). */
function expectValuesMatchTypes(nodes: any[]) {
  for (const node of propertyNodes(nodes)) {
    const expected = { category: 'null', boolean: 'boolean', string: 'string', number: 'number' }[
      node.type as string
    ];
    if (node.type === 'property' || node.value === null) continue;
    expect(typeof node.value, `${node.name} (${node.type})`).toBe(expected);
  }
}

describe('partner search (spec 2.1–2.3)', () => {
  it('the list: links, paging and data, every product and offer as in the tables', async () => {
    const response = await rest.partner('/partner-search/products?market=se&ref=demo-ref&limit=50');
    expectOk(response);
    expectShape(response.body, se.partnerList);
    const { data } = response.body;
    expect(data).toHaveLength(50);
    expect(Object.keys(response.body)).toEqual(['links', 'paging', 'data']);
    for (const product of data) {
      expect(product.productPage.startsWith(SITE_SE)).toBe(true);
      expect(product.offers.length).toBeGreaterThan(0);
    }
    const offers = valuesAt(response.body, 'data[].offers[]');
    expect(offers.length).toBeGreaterThan(100);
    expectBothNullAndNot(valuesAt(offers, '[].memberPrice'), 'memberPrice');
    expectBothNullAndNot(valuesAt(offers, '[].salesPrice'), 'salesPrice');
    expectBothNullAndNot(valuesAt(offers, '[].originalPrice'), 'originalPrice');
  });

  it('one product: the product object itself, no envelope', async () => {
    const response = await rest.partner('/partner-search/products/48?market=se&ref=demo-ref');
    expectOk(response);
    expectShape(response.body, se.partnerProduct);
    expect(response.body.id).toBe(48);
    expect(response.body.offers.length).toBeGreaterThan(0);
  });

  it('in another market: prices in that market’s currency, pages on its site', async () => {
    const response = await rest.partner('/partner-search/products?market=gb&ref=demo-ref&limit=5');
    expectOk(response);
    expectShape(response.body, restShapes('gb').partnerList);
    for (const product of response.body.data) {
      expect(product.productPage.startsWith(SITE_SE)).toBe(false);
    }
  });
});

describe('suggestions (spec 2.4)', () => {
  it('each item: productId string, category rank integer, lowestPrice with includingShipping number|null', async () => {
    const response = await rest.get('/suggestions?market=se&limit=30');
    expectOk(response);
    expectShape(response.body, se.suggestions);
    expect(response.body.data).toHaveLength(30);
    expect(valuesAt(response.body, 'data[].lowestPrice')).not.toContain(null);
  });

  it('a text search answers the same shape', async () => {
    const response = await rest.get('/suggestions?market=se&product=samsung&limit=30');
    expectOk(response);
    expectShape(response.body, se.suggestions);
    expect(response.body.data.length).toBeGreaterThan(0);
  });

  it('the sample has shipping both stated and not stated', async () => {
    const pages = await Promise.all(
      [0, 30, 60].map((offset) =>
        rest.get(`/suggestions?market=se&limit=30&offset=${offset}&fields=lowestPrice`),
      ),
    );
    const values = pages.flatMap((page) =>
      valuesAt(page.body, 'data[].lowestPrice.price.includingShipping'),
    );
    expectBothNullAndNot(values, 'lowestPrice.price.includingShipping');
  });
});

describe('categories (spec 2.5, decisions 13)', () => {
  it('each item: id, name, slug, url and logo', async () => {
    const response = await rest.get('/categories?market=se&q=b');
    expectOk(response);
    expectShape(response.body, se.categories);
    expect(response.body.data.length).toBeGreaterThan(1);
    for (const category of response.body.data) {
      expect(category.url.startsWith(SITE_SE)).toBe(true);
    }
  });
});

describe('products (spec 2.6, decisions 9, 13)', () => {
  it('the list: links and data, offers, properties and core properties', async () => {
    const response = await rest.get('/products?market=se&limit=15');
    expectOk(response);
    expectShape(response.body, se.productsList);
    expect(Object.keys(response.body)).toEqual(['links', 'data']);
    const { data } = response.body;
    expect(data).toHaveLength(15);
    expect(valuesAt(data, '[].properties').length).toBe(15);
    expect(propertyNodes(data.flatMap((item: any) => item.properties)).length).toBeGreaterThan(15);
    expect(data.some((item: any) => item.coreProperties.length > 0)).toBe(true);
    for (const item of data) {
      expectValuesMatchTypes(item.properties);
      expectValuesMatchTypes(item.coreProperties);
    }
    const offers = data.flatMap((item: any) => item.offers);
    expectBothNullAndNot(valuesAt(offers, '[].price.includingShipping'), 'includingShipping');
    expect(offers.some((offer: any) => offer.alternativePrices.length > 0)).toBe(true);
  });

  it('one id: the product item itself', async () => {
    const response = await rest.get('/products/48?market=se');
    expectOk(response);
    expectShape(response.body, se.productItem);
    expect(response.body.productId).toBe('48');
  });

  it('several ids: {data: [...]} in the order given, duplicates collapsed, unknown left out', async () => {
    const response = await rest.get('/products/41,48,999999,41?market=se');
    expectOk(response);
    expectShape(response.body, se.productsData);
    expect(response.body.data.map((item: any) => item.productId)).toEqual(['41', '48']);
  });
});

describe('generic resources (spec 2.7, decisions 10, 12)', () => {
  it('/v1/products: meta.paging, items_total and the standard product fields', async () => {
    const response = await rest.get('/v1/products?market=se');
    expectOk(response);
    expectShape(response.body, se.genericList(se.genericProduct));
    expect(response.body.items).toHaveLength(30);
    expect(typeof response.body.meta.items_total).toBe('number');
    const prices = response.body.items.map((item: any) => item.price);
    expectBothNullAndNot(valuesAt(prices, '[].alternative'), 'price.alternative');
    for (const item of response.body.items) expect(item.uri.startsWith(SITE_SE)).toBe(true);
  });

  it('/v1/products/{id}: {meta: {}, items: [product]}', async () => {
    const response = await rest.get('/v1/products/48?market=se');
    expectOk(response);
    expectShape(response.body, se.genericSingle(se.genericProduct));
    expect(response.body.items).toHaveLength(1);
    expect(response.body.items[0].id).toBe(48);
  });

  it('/v1/categories/{id}: a leaf, with its path (root first) and parent', async () => {
    const response = await rest.get('/v1/categories/3?market=se');
    expectOk(response);
    expectShape(response.body, se.genericSingle(se.genericCategory));
    const [category] = response.body.items;
    expect(category.id).toBe('3');
    expect(Object.entries(category.path)).toEqual([
      ['1', 'Elektronik'],
      ['2', 'Mobiler & wearables'],
    ]);
    expect(category.parent).toEqual({ id: '2' });
    expect(category.products_total).toBeGreaterThan(0);
    expect(typeof category.lowest_price).toBe('number');
  });

  it('/v1/categories/{id}: a root has an empty path and a null parent', async () => {
    const response = await rest.get('/v1/categories/1?market=se');
    expectOk(response);
    expectShape(response.body, se.genericSingle(se.genericCategory));
    expect(response.body.items[0].path).toEqual({});
    expect(response.body.items[0].parent).toBeNull();
  });

  it('/v1/categories/{id}/products: the generic list of the category’s products', async () => {
    const response = await rest.get('/v1/categories/2/products?market=se');
    expectOk(response);
    expectShape(response.body, se.genericList(se.genericProduct));
    expect(response.body.items.length).toBeGreaterThan(0);
  });

  it('/v1/categories (decisions 1 lists it): the generic list of categories', async () => {
    const response = await rest.get('/v1/categories?market=se');
    expectOk(response);
    expectShape(response.body, se.genericList(se.genericCategory));
  });
});

// ---------------------------------------------------------------------------------------
// HTTP details

const DATA_ROUTES: { path: string; partner?: boolean }[] = [
  { path: '/partner-search/products?market=se&ref=demo-ref&limit=3', partner: true },
  { path: '/partner-search/products/48?market=se&ref=demo-ref', partner: true },
  { path: '/suggestions?market=se' },
  { path: '/categories?market=se&q=b' },
  { path: '/products?market=se&limit=2' },
  { path: '/products/48?market=se' },
  { path: '/products/48,41?market=se' },
  { path: '/v1/products?market=se&limit=2' },
  { path: '/v1/products/48?market=se' },
  { path: '/v1/categories/3?market=se' },
  { path: '/v1/categories/3/products?market=se&limit=2' },
];

const fetchRoute = (route: { path: string; partner?: boolean }, headers = {}) =>
  route.partner ? rest.partner(route.path, { headers }) : rest.get(route.path, { headers });

describe('HTTP details', () => {
  it.each(DATA_ROUTES)(
    '$path: JSON, ETag, Cache-Control, X-Request-Id; 304 on a match',
    async (route) => {
      const first = await fetchRoute(route);
      expectOk(first);
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
      const cacheControl = first.headers.get('cache-control');
      expect(cacheControl).toMatch(/max-age=\d+/);
      expect(cacheControl).toContain(route.partner ? 'private' : 'public');
      expect(first.headers.get('x-request-id')).toBeTruthy();
      expect(first.headers.get('api-version')).toBe(route.partner ? '1.0.0' : null);

      const again = await fetchRoute(route, { 'if-none-match': etag! });
      expect(again.status).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('x-request-id')).toBeTruthy();
      if (route.partner) expect(again.headers.get('api-version')).toBe('1.0.0');

      const listed = await fetchRoute(route, { 'if-none-match': `"other", W/${etag}` });
      expect(listed.status).toBe(304);

      const other = await fetchRoute(route, { 'if-none-match': '"not-this-one"' });
      expectOk(other);
      expect(other.text).toBe(first.text);
      expect(other.headers.get('etag')).toBe(etag);
    },
  );

  it('the ETag changes with the answer', async () => {
    const one = await rest.get('/v1/products/48?market=se');
    const other = await rest.get('/v1/products/41?market=se');
    const trimmed = await rest.get('/v1/products/48?market=se&fields=id');
    expect(new Set([one, other, trimmed].map((r) => r.headers.get('etag'))).size).toBe(3);
  });

  it('partner search answers API-Version 1.0.0 on its errors too', async () => {
    const responses = await Promise.all([
      rest.get('/partner-search/products?market=se&ref=demo-ref'), // 401
      rest.get('/partner-search/products?market=se&ref=demo-ref', { token: 'not.a.token' }), // 401
      rest.partner('/partner-search/products?market=se&ref=someone-else'), // 403
      rest.partner('/partner-search/products?market=se&ref=demo-ref&limit=251'), // 400
      rest.partner('/partner-search/products?market=se&ref=demo-ref&fields=nope'), // 400
      rest.partner('/partner-search/products/999999?market=se&ref=demo-ref'), // 404
      rest.request('POST', '/partner-search/products?market=se&ref=demo-ref', { token: 'demo' }), // 405
    ]);
    expect(responses.map((r) => r.status)).toEqual([401, 401, 403, 400, 400, 404, 405]);
    for (const response of responses) {
      expectErrorBody(response, response.status);
      expect(response.headers.get('api-version'), `${response.status}`).toBe('1.0.0');
    }
  });

  it('X-Request-Id on every response, echoed when the client sends a sane one', async () => {
    const sane = 'client-42.trace:7_A';
    const responses = await Promise.all([
      rest.get('/suggestions?market=se&limit=1', { headers: { 'x-request-id': sane } }),
      rest.get('/suggestions?market=xx', { headers: { 'x-request-id': sane } }),
      rest.get('/no/such/route', { headers: { 'x-request-id': sane } }),
      rest.request('POST', '/suggestions?market=se', { headers: { 'x-request-id': sane } }),
      rest.get('/partner-search/products?market=se&ref=demo-ref', {
        headers: { 'x-request-id': sane },
      }),
      rest.request('POST', '/partner-search/token', { headers: { 'x-request-id': sane } }),
    ]);
    for (const response of responses) {
      expect(response.headers.get('x-request-id'), `${response.status}`).toBe(sane);
      if (response.status < 400) continue;
      // The token endpoint answers in RFC 6749's shape, with the id as an extension member.
      const body =
        response.body.error?.request_id !== undefined ? response.body.error : response.body;
      expect(body.request_id).toBe(sane);
    }
  });

  it('an insane X-Request-Id is replaced by a fresh one', async () => {
    for (const given of ['has spaces', 'x'.repeat(129), 'semi;colon', '']) {
      const response = await rest.get('/suggestions?market=xx', {
        headers: { 'x-request-id': given },
      });
      const id = response.headers.get('x-request-id');
      expect(id).toBeTruthy();
      expect(id).not.toBe(given);
      expect(id).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
      expect(response.body.error.request_id).toBe(id);
    }
  });

  it('each response has its own request id', async () => {
    const [one, two] = await Promise.all([
      rest.get('/suggestions?market=se&limit=1'),
      rest.get('/suggestions?market=se&limit=1'),
    ]);
    expect(one.headers.get('x-request-id')).not.toBe(two.headers.get('x-request-id'));
  });

  it.each([
    ['POST', '/suggestions?market=se'],
    ['POST', '/categories?market=se&q=b'],
    ['PUT', '/products?market=se'],
    ['DELETE', '/products/48?market=se'],
    ['POST', '/v1/products?market=se'],
    ['PATCH', '/v1/products/48?market=se'],
    ['POST', '/v1/categories/3?market=se'],
    ['POST', '/v1/categories/3/products?market=se'],
    ['POST', '/partner-search/products/48?market=se&ref=demo-ref'],
  ])('%s %s: 405 with Allow: GET', async (method, path) => {
    const response = await rest.request(method, path, { token: 'demo' });
    const error = expectErrorBody(response, 405);
    expect(error.message).toContain(method);
    const allow = (response.headers.get('allow') ?? '').split(/\s*,\s*/);
    expect(allow).toContain('GET');
    expect(allow).not.toContain(method);
  });

  it.each([
    '/nope',
    '/v2/products?market=se',
    '/products/48/offers?market=se',
    '/v1',
    '/partner-search',
  ])('%s: 404 with the error body', async (path) => {
    expectErrorBody(await rest.get(path), 404);
  });

  it.each([
    ['/partner-search/products/999999?market=se&ref=demo-ref', true],
    ['/products/999999?market=se', false],
    ['/v1/products/999999?market=se', false],
    ['/v1/categories/999999?market=se', false],
    ['/v1/categories/999999/products?market=se', false],
  ] as const)('%s: an unknown product or category is a 404', async (path, partner) => {
    const response = partner ? await rest.partner(path) : await rest.get(path);
    const error = expectErrorBody(response, 404);
    expect(error.message).toContain('999999');
  });

  it('currencies follow the market (decisions 4)', async () => {
    for (const market of ['no', 'fi', 'nz'] as const) {
      const response = await rest.get(`/suggestions?market=${market}&limit=5`);
      expectOk(response);
      expectShape(response.body, restShapes(market).suggestions);
      for (const price of valuesAt(response.body, 'data[].lowestPrice.price')) {
        expect((price as { currency: string }).currency).toBe(CURRENCY[market]);
      }
    }
  });
});
