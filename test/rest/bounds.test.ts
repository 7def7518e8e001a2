/**
 * Every bound of spec section 8 and section 4, just inside and just outside, and hostile
 * parameter values (empty, repeated, non-numbers, `-0`, huge numbers, control characters,
 * broken percent-encoding): each outside value is a 400 or 422 with the one error body
 * (decisions 3), never a 500. A property test sends arbitrary query strings to every route.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expectErrorBody, query, useRestCatalogue, type RestResponse } from '../helpers/rest.ts';

const rest = useRestCatalogue();

interface ListRoute {
  name: string;
  path: string;
  base: Record<string, string>;
  partner?: boolean;
  limit: { default: number; max: number };
  /** The paged list in a 200 body. */
  list: (body: any) => unknown[];
}

const LIST_ROUTES: ListRoute[] = [
  {
    name: 'partner search',
    path: '/partner-search/products',
    base: { market: 'se', ref: 'demo-ref' },
    partner: true,
    limit: { default: 10, max: 250 },
    list: (body) => body.data,
  },
  {
    name: 'partner search, one product (pages its offers)',
    path: '/partner-search/products/41',
    base: { market: 'se', ref: 'demo-ref' },
    partner: true,
    limit: { default: 10, max: 250 },
    list: (body) => body.offers,
  },
  {
    name: 'suggestions',
    path: '/suggestions',
    base: { market: 'se' },
    limit: { default: 5, max: 30 },
    list: (body) => body.data,
  },
  {
    name: 'categories',
    path: '/categories',
    base: { market: 'se', q: 'b' },
    limit: { default: 5, max: 30 },
    list: (body) => body.data,
  },
  {
    name: 'products',
    path: '/products',
    base: { market: 'se' },
    limit: { default: 10, max: 15 },
    list: (body) => body.data,
  },
  {
    name: 'generic products',
    path: '/v1/products',
    base: { market: 'se' },
    limit: { default: 30, max: 100 },
    list: (body) => body.items,
  },
  {
    name: 'generic category products',
    path: '/v1/categories/1/products',
    base: { market: 'se' },
    limit: { default: 30, max: 100 },
    list: (body) => body.items,
  },
  {
    name: 'generic categories',
    path: '/v1/categories',
    base: { market: 'se' },
    limit: { default: 30, max: 100 },
    list: (body) => body.items,
  },
];

/** A trimmed selection, so that big pages stay cheap (`fields` selects the same items). */
const CHEAP_FIELDS: Record<string, string> = {
  '/partner-search/products': 'id',
  '/partner-search/products/41': 'offers.url',
  '/suggestions': 'productId',
  '/categories': 'id',
  '/products': 'productId',
  '/v1/products': 'id',
  '/v1/categories/1/products': 'id',
  '/v1/categories': 'id',
};

function get(
  route: { path: string; partner?: boolean },
  params: Record<string, string | number> | [string, string | number][],
) {
  const path = `${route.path}${query(params)}`;
  return route.partner ? rest.partner(path) : rest.get(path);
}

/** GET with a raw query string (exactly as written: for broken encodings and repeats). */
function getRaw(route: { path: string; partner?: boolean }, rawQuery: string) {
  const path = `${route.path}?${rawQuery}`;
  return route.partner ? rest.partner(path) : rest.get(path);
}

function expectParamError(response: RestResponse, parameter: string, status = 400) {
  const error = expectErrorBody(response, status);
  expect(error.details, response.text).toBeDefined();
  expect(error.details!.map((detail) => detail.parameter)).toContain(parameter);
  return error;
}

function expectOk(response: RestResponse) {
  expect(response.status, response.text).toBe(200);
}

describe.each(LIST_ROUTES)('$name: limit and offset', (route) => {
  const withFields = { ...route.base, fields: CHEAP_FIELDS[route.path]! };

  it('the default limit applies when none is given', async () => {
    const [absent, more] = await Promise.all([
      get(route, withFields),
      get(route, { ...withFields, limit: route.limit.default + 1 }),
    ]);
    expectOk(absent);
    expectOk(more);
    const available = route.list(more.body).length;
    expect(route.list(absent.body)).toHaveLength(Math.min(route.limit.default, available));
    if (absent.body.paging) expect(absent.body.paging.limit).toBe(route.limit.default);
  });

  it('the maximum is accepted', async () => {
    const response = await get(route, { ...withFields, limit: route.limit.max });
    expectOk(response);
    expect(route.list(response.body).length).toBeLessThanOrEqual(route.limit.max);
    if (response.body.paging) expect(response.body.paging.limit).toBe(route.limit.max);
  });

  it('maximum + 1 is a 400 naming limit', async () => {
    const response = await get(route, { ...route.base, limit: route.limit.max + 1 });
    const error = expectParamError(response, 'limit');
    expect(error.message).toContain(String(route.limit.max));
  });

  it('limit=0 answers an empty list', async () => {
    const response = await get(route, { ...route.base, limit: 0 });
    expectOk(response);
    expect(route.list(response.body)).toEqual([]);
  });

  it('limit=1 answers one item', async () => {
    const response = await get(route, { ...withFields, limit: 1 });
    expectOk(response);
    expect(route.list(response.body)).toHaveLength(1);
  });

  it('offset=0 is the first page; offset=-1 is a 400', async () => {
    const [zero, absent, negative] = await Promise.all([
      get(route, { ...withFields, offset: 0 }),
      get(route, withFields),
      get(route, { ...route.base, offset: -1 }),
    ]);
    expectOk(zero);
    expect(route.list(zero.body)).toEqual(route.list(absent.body));
    expectParamError(negative, 'offset');
  });

  it.each([
    ['limit', '-1'],
    ['limit', '-0'],
    ['limit', '+1'],
    ['limit', '1.5'],
    ['limit', '1e1'],
    ['limit', '0x10'],
    ['limit', 'abc'],
    ['limit', ''],
    ['limit', '%201'],
    ['limit', '1%20'],
    ['limit', '99999999999999999999'],
    ['limit', '%F0%9F%98%80'],
    ['limit', '1%00'],
    ['offset', '-0'],
    ['offset', '1.0'],
    ['offset', 'NaN'],
    ['offset', ''],
    ['offset', '99999999999999999999'],
  ])('%s=%s is a 400', async (name, value) => {
    const response = await getRaw(route, `${query(route.base).slice(1)}&${name}=${value}`);
    expectParamError(response, name);
  });

  it('market in upper case (as GraphQL writes it) answers as in lower case', async () => {
    const [lower, upper] = await Promise.all([
      get(route, { ...withFields, limit: 1 }),
      get(route, { ...withFields, limit: 1, market: 'SE' }),
    ]);
    expectOk(lower);
    expectOk(upper);
    expect(upper.body).toEqual(lower.body);
  });

  it('a negative limit or offset is out of range; a non-integer is not an integer', async () => {
    const base = query(route.base).slice(1);
    for (const [name, value, reason] of [
      ['limit', '-1', 'out_of_range'],
      ['offset', '-5', 'out_of_range'],
      ['limit', '1.5', 'not_an_integer'],
      ['offset', 'abc', 'not_an_integer'],
    ]) {
      const error = expectParamError(await getRaw(route, `${base}&${name}=${value}`), name!);
      expect(error.details).toEqual([{ parameter: name, reason }]);
    }
  });

  it('a repeated parameter is a 400 (limit=1&limit=2, market twice)', async () => {
    const base = query(route.base).slice(1);
    expectParamError(await getRaw(route, `${base}&limit=1&limit=2`), 'limit');
    expectParamError(await getRaw(route, `${base}&limit=1&limit=1`), 'limit');
    expectParamError(await getRaw(route, `${base}&market=se`), 'market');
  });

  it('market: missing, mixed case, unknown, empty, control characters are 400s', async () => {
    const { market: _market, ...others } = route.base;
    const responses = await Promise.all([
      get(route, others),
      get(route, { ...route.base, market: 'Se' }),
      get(route, { ...route.base, market: 'xx' }),
      get(route, { ...route.base, market: 'us' }),
      get(route, { ...route.base, market: '' }),
      get(route, { ...route.base, market: 'se ' }),
      getRaw(route, `${query(others).slice(1)}&market=s%00e`),
      getRaw(route, `${query(others).slice(1)}&market=%E0%A4%A`),
    ]);
    for (const response of responses) expectParamError(response, 'market');
  });
});

const PARTNER = { path: '/partner-search/products', partner: true };
const PARTNER_BASE = { market: 'se', ref: 'demo-ref' };

describe('partner search: productIds and gtins', () => {
  const ids = (count: number, from = 1) => Array.from({ length: count }, (_, i) => from + i);

  it('20 product ids are accepted, in the order given', async () => {
    const wanted = ids(20, 30).reverse();
    const response = await get(PARTNER, {
      ...PARTNER_BASE,
      productIds: wanted.join(','),
      limit: 250,
      fields: 'id',
    });
    expectOk(response);
    const got = response.body.data.map((product: any) => product.id);
    expect(got.length).toBeGreaterThan(0);
    expect(got).toEqual(wanted.filter((id) => got.includes(id)));
  });

  it('21 product ids, and anything off the pattern, are 400s', async () => {
    for (const value of [
      ids(21).join(','),
      '1,,2',
      '1,2,',
      ',1',
      'a',
      '-1',
      '1.5',
      '1 2',
      '1;2',
      '',
    ]) {
      expectParamError(await get(PARTNER, { ...PARTNER_BASE, productIds: value }), 'productIds');
    }
  });

  it('too many ids say too_many (as GraphQL does); a malformed list says pattern', async () => {
    for (const [name, value, reason] of [
      ['productIds', ids(21).join(','), 'too_many'],
      ['gtins', ids(11, 4_000_000_000_000).join(','), 'too_many'],
      ['productIds', '1,,2', 'pattern'],
      ['gtins', '1;2', 'pattern'],
    ] as const) {
      const error = expectParamError(await get(PARTNER, { ...PARTNER_BASE, [name]: value }), name);
      expect(error.details).toEqual([{ parameter: name, reason }]);
    }
    const path = `/products/${ids(21).join(',')}?market=se`;
    const error = expectParamError(await rest.get(path), 'productIds');
    expect(error.details).toEqual([{ parameter: 'productIds', reason: 'too_many' }]);
  });

  it('10 GTINs are accepted; 11, and anything off the pattern, are 400s', async () => {
    const rows = await rest.catalogue.database.db
      .selectFrom('gtins')
      .select(['gtin', 'product_id'])
      .orderBy('gtin')
      .limit(11)
      .execute();
    const ten = rows.slice(0, 10).map((row) => row.gtin);
    const response = await get(PARTNER, { ...PARTNER_BASE, gtins: ten.join(','), fields: 'id' });
    expectOk(response);
    expect(response.body.data.length).toBeGreaterThan(0);
    const eleven = rows.map((row) => row.gtin).join(',');
    for (const value of [eleven, '1,,2', 'abc', '123-4', '']) {
      expectParamError(await get(PARTNER, { ...PARTNER_BASE, gtins: value }), 'gtins');
    }
  });

  it('a product id beyond any product (or any Int) finds nothing', async () => {
    const response = await get(PARTNER, { ...PARTNER_BASE, productIds: '99999999999999999999' });
    expectOk(response);
    expect(response.body.data).toEqual([]);
  });

  it('ref is required and must be a sane id', async () => {
    expectParamError(await get(PARTNER, { market: 'se' }), 'ref');
    expectParamError(await get(PARTNER, { market: 'se', ref: '' }), 'ref');
    expectParamError(await getRaw(PARTNER, 'market=se&ref=demo-ref&ref=demo-ref'), 'ref');
  });

  it('an unknown fields name is a 400 here (partner search documents no 422)', async () => {
    const error = expectParamError(
      await get(PARTNER, { ...PARTNER_BASE, fields: 'id,nope' }),
      'fields',
      400,
    );
    expect(error.message).toContain('nope');
  });
});

describe('partner search, one product: path id', () => {
  it.each(['abc', '-1', '1.5', '1e3', '0x10', '+1', '%201', '%00'])(
    '/partner-search/products/%s is a 400',
    async (id) => {
      const response = await rest.partner(`/partner-search/products/${id}?market=se&ref=demo-ref`);
      expectParamError(response, 'productId');
    },
  );

  it('an id beyond any Int is refused (400) or not found (404), never a 500', async () => {
    const response = await rest.partner(
      '/partner-search/products/99999999999999999999?market=se&ref=demo-ref',
    );
    expect([400, 404]).toContain(response.status);
    expectErrorBody(response, response.status);
  });
});

describe('products: gtin and products by id', () => {
  it('10 GTINs are accepted; 11 are a 400', async () => {
    const rows = await rest.catalogue.database.db
      .selectFrom('gtins')
      .select('gtin')
      .orderBy('gtin', 'desc')
      .limit(11)
      .execute();
    const gtins = rows.map((row) => row.gtin);
    const ok = await rest.get(
      `/products${query({ market: 'se', gtin: gtins.slice(0, 10).join(','), fields: 'productId' })}`,
    );
    expectOk(ok);
    expect(ok.body.data.length).toBeGreaterThan(0);
    expectParamError(
      await rest.get(`/products${query({ market: 'se', gtin: gtins.join(',') })}`),
      'gtin',
    );
    expectParamError(await rest.get('/products?market=se&gtin=12a'), 'gtin');
    expectParamError(await rest.get('/products?market=se&gtin='), 'gtin');
  });

  it('20 ids are accepted; 21 are a 400', async () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    const ok = await rest.get(`/products/${twenty.join(',')}?market=se&fields=productId`);
    expectOk(ok);
    expect(ok.body.data.length).toBeGreaterThan(0);
    expect(ok.body.data.length).toBeLessThanOrEqual(20);
    const response = await rest.get(`/products/${[...twenty, 21].join(',')}?market=se`);
    expectParamError(response, 'productIds');
  });

  it.each(['abc', '1,,2', '1,', '-1', '1.5', '1%20', '%00'])(
    '/products/%s is a 400',
    async (ids) => {
      expectParamError(await rest.get(`/products/${ids}?market=se`), 'productIds');
    },
  );

  it.each([
    '/v1/products/abc',
    '/v1/products/-1',
    '/v1/categories/1.5',
    '/v1/categories/Laptops/products',
    '/v1/categories/0',
    '/v1/categories/99999999999999999999/products',
  ])('%s is a 400', async (path) => {
    expectParamError(await rest.get(`${path}?market=se`), 'id');
  });

  it('/v1/categories/{id} takes the slug filter[category] takes, like its id', async () => {
    const [row] = await rest.catalogue.database.db
      .selectFrom('categories')
      .select(['id', 'slug'])
      .where('is_leaf', '=', true)
      .orderBy('id')
      .limit(1)
      .execute();
    for (const below of ['', '/products']) {
      const [byId, bySlug] = await Promise.all([
        rest.get(`/v1/categories/${row!.id}${below}?market=se`),
        rest.get(`/v1/categories/${row!.slug}${below}?market=se`),
      ]);
      expectOk(byId);
      expect(bySlug.body.items).toEqual(byId.body.items);
      expect(bySlug.body.items.length).toBeGreaterThan(0);
      expectErrorBody(await rest.get(`/v1/categories/no-such-slug${below}?market=se`), 404);
    }
  });
});

describe('suggestions: product, price trend, category', () => {
  const suggestions = (params: Record<string, string | number>) =>
    rest.get(`/suggestions${query({ market: 'se', ...params })}`);

  it('a search of 8 terms is accepted; 9 terms are a 400', async () => {
    const eight = 'samsung galaxy s25 plus 512gb white phone new';
    expectOk(await suggestions({ product: eight }));
    const error = expectParamError(await suggestions({ product: `${eight} extra` }), 'product');
    expect(error.message).toContain('8');
  });

  it('filter[price_trend] and filter[price_trend][gte] keep percentages ≥ N', async () => {
    for (const name of ['filter[price_trend]', 'filter[price_trend][gte]']) {
      const response = await suggestions({
        [name]: 20,
        limit: 30,
        fields: 'lowestPrice.priceTrend',
      });
      expectOk(response);
      const percentages = response.body.data.map(
        (item: any) => item.lowestPrice.priceTrend.percentage,
      );
      expect(percentages.length).toBeGreaterThan(0);
      for (const percentage of percentages) expect(percentage).toBeGreaterThanOrEqual(20);
    }
  });

  it('filter[price_trend][lte] keeps percentages ≤ N, and combines with [gte]', async () => {
    const [lte, both] = await Promise.all([
      suggestions({
        'filter[price_trend][lte]': -2.5,
        limit: 30,
        fields: 'lowestPrice.priceTrend',
      }),
      suggestions({
        'filter[price_trend][gte]': -5,
        'filter[price_trend][lte]': 5.5,
        limit: 30,
        fields: 'lowestPrice.priceTrend',
      }),
    ]);
    expectOk(lte);
    expectOk(both);
    const of = (response: RestResponse) =>
      response.body.data.map((item: any) => item.lowestPrice.priceTrend.percentage as number);
    expect(of(lte).length).toBeGreaterThan(0);
    for (const percentage of of(lte)) expect(percentage).toBeLessThanOrEqual(-2.5);
    expect(of(both).length).toBeGreaterThan(0);
    for (const percentage of of(both)) {
      expect(percentage).toBeGreaterThanOrEqual(-5);
      expect(percentage).toBeLessThanOrEqual(5.5);
    }
  });

  it('price trend numbers: -0 and decimals are numbers; anything else is a 400', async () => {
    expectOk(await suggestions({ 'filter[price_trend]': '-0', fields: 'productId' }));
    expectOk(await suggestions({ 'filter[price_trend][lte]': '-12.25', fields: 'productId' }));
    for (const value of [
      '',
      'abc',
      '1e3',
      'NaN',
      'Infinity',
      '--1',
      '1,5',
      '0x1',
      '99999999999999999999',
    ]) {
      for (const name of [
        'filter[price_trend]',
        'filter[price_trend][gte]',
        'filter[price_trend][lte]',
      ]) {
        expectParamError(await suggestions({ [name]: value }), name);
      }
    }
  });

  it('filter[price_trend] and filter[price_trend][gte] together are a 400', async () => {
    const response = await suggestions({ 'filter[price_trend]': 1, 'filter[price_trend][gte]': 2 });
    expectParamError(response, 'filter[price_trend][gte]');
  });

  it('the deprecated category works like filter[category] and sets a Deprecation header', async () => {
    const [deprecated, current, byId] = await Promise.all([
      suggestions({ category: 'mobile-phones', limit: 30 }),
      suggestions({ 'filter[category]': 'mobile-phones', limit: 30 }),
      suggestions({ 'filter[category]': '3', limit: 30 }),
    ]);
    expectOk(deprecated);
    expectOk(current);
    expect(deprecated.body).toEqual(current.body);
    expect(byId.body).toEqual(current.body);
    expect(current.body.data.length).toBeGreaterThan(0);
    for (const item of current.body.data) expect(item.category.id).toBe('3');
    expect(deprecated.headers.get('deprecation')).toBeTruthy();
    expect(current.headers.get('deprecation')).toBeNull();
  });

  it('category and filter[category] together are a 400', async () => {
    const response = await suggestions({
      category: 'mobile-phones',
      'filter[category]': 'tablets',
    });
    expectParamError(response, 'filter[category]');
  });

  it('an unknown category is a 422 naming the parameter the request used', async () => {
    const viaFilter = await suggestions({ 'filter[category]': 'no-such-category' });
    expectParamError(viaFilter, 'filter[category]', 422);
    const viaDeprecated = await suggestions({ category: 'no-such-category' });
    expectParamError(viaDeprecated, 'category', 422);
    expectParamError(await suggestions({ 'filter[category]': '999999' }), 'filter[category]', 422);
    // Beyond the id column's range: still unknown, not a database error.
    const huge = await suggestions({ 'filter[category]': '99999999999999999999' });
    expectParamError(huge, 'filter[category]', 422);
  });

  it('odd unicode in product: an emoji is a search (no 5xx); NUL and broken escapes are 400s', async () => {
    const emoji = await rest.get('/suggestions?market=se&product=%F0%9F%98%80');
    expect([200, 400, 422]).toContain(emoji.status);
    if (emoji.status === 200) expect(emoji.body.data).toEqual(expect.any(Array));
    else expectErrorBody(emoji, emoji.status);
    for (const raw of ['%00', 'a%00b', '%E0%A4%A', 'a%FFb', '%C0%AF', '%1F', '%7F', '%ED%A0%80']) {
      expectParamError(await rest.get(`/suggestions?market=se&product=${raw}`), 'product');
    }
  });

  it('empty values are 400s', async () => {
    for (const name of ['product', 'category', 'filter[category]', 'ref', 'fields']) {
      expectParamError(await suggestions({ [name]: '' }), name);
    }
  });
});

describe('products and categories: filters', () => {
  it('an unknown category on products is a 422 naming filter[category]', async () => {
    const response = await rest.get('/products?market=se&filter%5Bcategory%5D=no-such-category');
    expectParamError(response, 'filter[category]', 422);
  });

  it('filter[category] on products keeps that category (and those below it)', async () => {
    const response = await rest.get(
      `/products${query({ market: 'se', 'filter[category]': 'phones-and-wearables', limit: 15, fields: 'category.id' })}`,
    );
    expectOk(response);
    expect(response.body.data.length).toBeGreaterThan(0);
    for (const item of response.body.data) expect(['3', '4', '5']).toContain(item.category.id);
  });

  it('categories: q is required, and not empty', async () => {
    expectParamError(await rest.get('/categories?market=se'), 'q');
    expectParamError(await rest.get('/categories?market=se&q='), 'q');
    expectParamError(await rest.get('/categories?market=se&q=%00'), 'q');
    expectParamError(await rest.get('/categories?market=se&q=%E0%A4%A'), 'q');
  });
});

describe('broken percent-encoding and control characters in path ids', () => {
  it.each([
    '/products/%E0%A4%A',
    '/products/%ZZ',
    '/products/1%2',
    '/v1/products/%E0%A4%A',
    '/v1/categories/%ZZ',
    '/v1/categories/%/products',
    '/partner-search/products/%E0%A4%A',
  ])('%s answers 400 or 404 with the error body, never a 500', async (path) => {
    const response = await rest.partner(`${path}?market=se&ref=demo-ref`);
    expect([400, 404], `${response.status} ${response.text}`).toContain(response.status);
    expectErrorBody(response, response.status);
  });
});

// ---------------------------------------------------------------------------------------
// Property: arbitrary query strings never make a route fail

const ROUTES_FOR_PROPERTIES = [
  { path: '/partner-search/products', partner: true, names: ['productIds', 'gtins'] },
  { path: '/partner-search/products/48', partner: true, names: [] },
  {
    path: '/suggestions',
    names: [
      'product',
      'category',
      'filter[category]',
      'filter[price_trend]',
      'filter[price_trend][gte]',
      'filter[price_trend][lte]',
    ],
  },
  { path: '/categories', names: ['q'] },
  { path: '/products', names: ['gtin', 'filter[category]'] },
  { path: '/products/48,41', names: [] },
  { path: '/products/48', names: [] },
  { path: '/v1/products', names: [] },
  { path: '/v1/products/48', names: [] },
  { path: '/v1/categories', names: [] },
  { path: '/v1/categories/3', names: [] },
  { path: '/v1/categories/3/products', names: [] },
];

const COMMON_NAMES = ['market', 'ref', 'limit', 'offset', 'fields'];

/** encodeURIComponent, with a lone surrogate sent as the (invalid) UTF-8 bytes it would be. */
function encode(value: string): string {
  return [...value]
    .map((char) => {
      try {
        return encodeURIComponent(char);
      } catch {
        return '%ED%A0%80';
      }
    })
    .join('');
}

const interestingValues = fc.constantFrom(
  'se',
  'SE',
  'nz',
  '',
  '0',
  '-0',
  '-1',
  '1',
  '31',
  '101',
  '251',
  '1e3',
  '1.5',
  '99999999999999999999',
  'NaN',
  '%00',
  '%E0%A4%A',
  '%F0%9F%98%80',
  '%',
  '%%',
  '%2',
  '*',
  'id,name',
  'category(id,name)',
  '*,category',
  'offers.url',
  '((',
  'a.b.c.d.e.f.g.h.i',
  'demo-ref',
  'other-ref',
  'mobile-phones',
  '3',
  '1,2,3',
  '1,,2',
  'samsung galaxy',
);

const queryValue = fc.oneof(
  interestingValues,
  fc.string({ unit: 'binary', maxLength: 12 }).map(encode),
  fc.stringMatching(/^[%0-9A-Fa-f,.()*a-z[\]+-]{0,12}$/),
);

function queryString(names: string[]) {
  const name = fc.oneof(
    fc.constantFrom(...COMMON_NAMES, ...names),
    fc.string({ unit: 'grapheme-ascii', maxLength: 6 }).map(encode),
  );
  return fc
    .tuple(fc.boolean(), fc.array(fc.tuple(name, queryValue), { maxLength: 5 }))
    .map(([withBase, pairs]) => {
      const parts = pairs.map(([n, v]) => `${encode(n)}=${v}`);
      return (withBase ? ['market=se', 'ref=demo-ref', ...parts] : parts).join('&');
    });
}

async function expectNoServerError(response: RestResponse) {
  expect(response.status, response.text).toBeLessThan(500);
  if (response.status >= 400) expectErrorBody(response, response.status);
}

describe('property: arbitrary query strings never yield a 5xx', () => {
  it.each(ROUTES_FOR_PROPERTIES)('$path', async (route) => {
    await fc.assert(
      fc.asyncProperty(queryString(route.names), async (raw) => {
        const path = `${route.path}?${raw}`;
        await expectNoServerError(route.partner ? await rest.partner(path) : await rest.get(path));
      }),
      { numRuns: 12 },
    );
  });

  it('arbitrary path ids never yield a 5xx', async () => {
    const segment = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 8 }).map(encode),
      fc.stringMatching(/^[%0-9A-Fa-f,.a-z-]{1,10}$/),
    );
    const template = fc.constantFrom(
      '/products/{}',
      '/v1/products/{}',
      '/v1/categories/{}',
      '/v1/categories/{}/products',
      '/partner-search/products/{}',
    );
    await fc.assert(
      fc.asyncProperty(template, segment, async (path, id) => {
        const response = await rest.partner(`${path.replace('{}', id)}?market=se&ref=demo-ref`);
        await expectNoServerError(response);
      }),
      { numRuns: 40 },
    );
  });
});
