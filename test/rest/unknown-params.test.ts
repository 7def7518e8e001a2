/**
 * Query parameters a route does not take: ignored (cache busters, tracking), unless one looks
 * like a misspelling of a parameter the route does take, which is a 400 naming both, checked
 * once where every route's parameters are read (src/rest/params.ts).
 */
import { describe, expect, it } from 'vitest';
import { likelyMeant, misspellingAllowance } from '../../src/rest/params.ts';
import { expectErrorBody, useRestCatalogue, type RestResponse } from '../helpers/rest.ts';

const rest = useRestCatalogue();

interface RouteCase {
  family: string;
  /** A request the route answers with 200. */
  path: string;
  partner?: boolean;
  /** A misspelled parameter and the name it misspells. */
  misspelled: [string, string];
}

const ROUTES: RouteCase[] = [
  {
    family: 'partner search',
    path: '/partner-search/products?market=se&ref=demo-ref&limit=2',
    partner: true,
    misspelled: ['productId', 'productIds'],
  },
  {
    family: 'partner search, one product',
    path: '/partner-search/products/41?market=se&ref=demo-ref',
    partner: true,
    misspelled: ['limt', 'limit'],
  },
  { family: 'suggestions', path: '/suggestions?market=se', misspelled: ['prodcut', 'product'] },
  {
    family: 'suggestions, filters',
    path: '/suggestions?market=se',
    misspelled: ['filter[price_trend][gt]', 'filter[price_trend][gte]'],
  },
  { family: 'categories', path: '/categories?market=se&q=b', misspelled: ['Q', 'q'] },
  { family: 'products', path: '/products?market=se&limit=2', misspelled: ['gtins', 'gtin'] },
  {
    family: 'products, filters',
    path: '/products?market=se&limit=2',
    misspelled: ['filter[categroy]', 'filter[category]'],
  },
  { family: 'products by id', path: '/products/41?market=se', misspelled: ['feilds', 'fields'] },
  {
    family: '/v1 products',
    path: '/v1/products?market=se&limit=2',
    misspelled: ['ofset', 'offset'],
  },
  { family: '/v1 category', path: '/v1/categories/3?market=se', misspelled: ['Market', 'market'] },
  {
    family: '/v1 category products',
    path: '/v1/categories/3/products?market=se&limit=2',
    misspelled: ['refs', 'ref'],
  },
];

const send = (route: RouteCase, path: string) =>
  route.partner ? rest.partner(path) : rest.get(path);

function expectMisspelling(response: RestResponse, given: string[], meant: string[]) {
  const error = expectErrorBody(response, 400);
  const names = (list: string[]) => list.map((name) => `"${name}"`).join(', ');
  const noun = given.length > 1 ? 'parameters' : 'parameter';
  expect(error.message).toBe(`unknown ${noun} ${names(given)}; did you mean ${names(meant)}?`);
  expect(error.details).toEqual(
    given.map((parameter) => ({ parameter, reason: 'unknown_parameter' })),
  );
}

describe.each(ROUTES)('$family', (route) => {
  it(`a misspelled parameter is a 400 naming the one meant`, async () => {
    const [given, meant] = route.misspelled;
    const response = await send(route, `${route.path}&${encodeURIComponent(given)}=1`);
    expectMisspelling(response, [given], [meant]);
    if (route.partner) expect(response.headers.get('api-version')).toBe('1.0.0');
  });

  it('cache busters and tracking parameters are ignored: the same answer', async () => {
    const plain = await send(route, route.path);
    expect(plain.status, plain.text).toBe(200);
    const decorated = await send(
      route,
      `${route.path}&_=1718000000000&utm_source=newsletter&utm_campaign=spring&fbclid=abc&cb=7&t=1`,
    );
    expect(decorated.status, decorated.text).toBe(200);
    // Paging links repeat the request's own parameters; everything else is the same.
    const { links: _plainLinks, meta: _plainMeta, ...plainRest } = plain.body;
    const { links: _links, meta: _meta, ...decoratedRest } = decorated.body;
    expect(decoratedRest).toEqual(plainRest);
  });
});

describe('the reports the issue was about', () => {
  it('/products with gtins instead of gtin no longer answers the popular products', async () => {
    const response = await rest.get('/products?market=se&gtins=7350000000019');
    expectMisspelling(response, ['gtins'], ['gtin']);
    expect(response.headers.get('x-request-id')).toBe(response.body.error.request_id);
  });

  it('/suggestions with prodcut instead of product no longer answers the deals', async () => {
    expectMisspelling(
      await rest.get('/suggestions?market=se&prodcut=phone'),
      ['prodcut'],
      ['product'],
    );
  });
});

describe('the check', () => {
  it('names every misspelling of a request at once, in the order given', async () => {
    const response = await rest.get('/suggestions?market=se&lmit=2&prodcut=phone&_=1');
    expectMisspelling(response, ['lmit', 'prodcut'], ['limit', 'product']);
  });

  it('comes before the other checks: a misspelled required parameter is named as such', async () => {
    const response = await rest.get('/products?markt=se&limit=99');
    expectMisspelling(response, ['markt'], ['market']);
  });

  it('takes letter case and a plural s as misspellings', async () => {
    expectMisspelling(await rest.get('/v1/products?market=se&LIMIT=2'), ['LIMIT'], ['limit']);
    expectMisspelling(await rest.get('/v1/products?market=se&Fields=id'), ['Fields'], ['fields']);
    expectMisspelling(await rest.get('/v1/products?market=se&markets=se'), ['markets'], ['market']);
    expectMisspelling(await rest.get('/products?market=se&GTINS=1'), ['GTINS'], ['gtin']);
  });

  it('a repeated misspelling is named once', async () => {
    expectMisspelling(await rest.get('/suggestions?market=se&lmit=1&lmit=2'), ['lmit'], ['limit']);
  });

  it('leaves short names alone beyond letter case and plural', async () => {
    // One edit from `q` is any one-letter name; `_` is the usual cache buster.
    for (const name of ['_', 'a', 'qq', 'id', 'query']) {
      const response = await rest.get(`/categories?market=se&q=b&${name}=1`);
      expect(response.status, `${name}: ${response.text}`).toBe(200);
    }
    expectMisspelling(await rest.get('/categories?market=se&q=b&qs=1'), ['qs'], ['q']);
    // Two edits from `ref` reach unrelated words.
    const key = await rest.get('/v1/products?market=se&limit=1&key=abc');
    expect(key.status, key.text).toBe(200);
  });

  it('does not take a path parameter for a query parameter', async () => {
    const response = await rest.get('/v1/products/41?market=se&ids=1');
    expect(response.status, response.text).toBe(200);
  });

  it('comes after authentication: partner search without a token is still a 401', async () => {
    const response = await rest.get('/partner-search/products?market=se&ref=demo-ref&gtin=1');
    expectErrorBody(response, 401);
  });
});

describe('the rule (likelyMeant)', () => {
  const suggestions = [
    'market',
    'product',
    'category',
    'limit',
    'offset',
    'ref',
    'filter[category]',
    'filter[price_trend]',
    'filter[price_trend][gte]',
    'filter[price_trend][lte]',
    'fields',
  ];

  it('allows no edit below three characters, one up to four, two beyond', () => {
    expect([1, 2, 3, 4, 5, 24].map((length) => misspellingAllowance('x'.repeat(length)))).toEqual([
      0, 0, 1, 1, 2, 2,
    ]);
    expect(likelyMeant('lmt', suggestions)).toBe('limit'); // two edits
    expect(likelyMeant('lm', suggestions)).toBeUndefined(); // three
    expect(likelyMeant('rf', suggestions)).toBe('ref'); // one
    expect(likelyMeant('rfe', suggestions)).toBeUndefined(); // a swap is two edits
    expect(likelyMeant('x', ['q'])).toBeUndefined();
    expect(likelyMeant('Q', ['q'])).toBe('q');
  });

  it('picks the nearest, the first declared on a tie', () => {
    expect(likelyMeant('filter[price_trend][lt]', suggestions)).toBe('filter[price_trend][lte]');
    expect(likelyMeant('filter[price_trend][gt]', suggestions)).toBe('filter[price_trend][gte]');
    expect(likelyMeant('filter[price_trend][te]', suggestions)).toBe('filter[price_trend][gte]');
    expect(likelyMeant('products', ['productIds', 'product'])).toBe('product');
  });

  it('ignores what is far from every name', () => {
    for (const name of ['utm_source', 'fbclid', 'gclid', 'callback', 'nocache', 'timestamp']) {
      expect(likelyMeant(name, suggestions), name).toBeUndefined();
    }
  });
});
