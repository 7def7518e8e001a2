/**
 * The `fields` parameter through the routes (spec 4.7, decisions 11, 12): the spec's own
 * examples on the generic product, then each route with its own names; unknown names,
 * syntax errors and the bounds (4 KB, depth 8, 200 names).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  expectErrorBody,
  expectShape,
  query,
  restShapes,
  t,
  useRestCatalogue,
  type RestResponse,
} from '../helpers/rest.ts';

const rest = useRestCatalogue();
const se = restShapes('se');

const GENERIC_PRODUCT_STANDARD = ['id', 'name', 'popularity', 'stock', 'uri', 'price'];
const GENERIC_PRODUCT_ALL = [
  ...GENERIC_PRODUCT_STANDARD,
  'brand',
  'category',
  'offers',
  'properties',
  'images',
  'gtins',
  'price_trend',
];
const GENERIC_CATEGORY_STANDARD = [
  'id',
  'name',
  'uri',
  'products_total',
  'lowest_price',
  'description',
  'logo',
  'path',
  'parent',
];

const sorted = (value: object) => Object.keys(value).sort();

function ok(response: RestResponse) {
  expect(response.status, response.text).toBe(200);
  return response.body;
}

/** The generic routes: one product, and a page of products. */
const GENERIC = [
  { name: '/v1/products/{id}', path: '/v1/products/48', extra: {} },
  { name: '/v1/products', path: '/v1/products', extra: { limit: 4 } },
] as const;

describe.each(GENERIC)('$name: the specification’s examples (4.7)', (route) => {
  const get = (fields?: string) =>
    rest.get(
      `${route.path}${query({ market: 'se', ...route.extra, ...(fields === undefined ? {} : { fields }) })}`,
    );
  let standard: any[];
  let withCategory: any[];

  beforeAll(async () => {
    standard = ok(await get()).items;
    withCategory = ok(await get('*,category')).items;
    expect(standard.length).toBeGreaterThan(0);
  });

  it('absent: the standard fields (id, name, popularity, stock, uri, price)', () => {
    for (const item of standard) expect(sorted(item)).toEqual([...GENERIC_PRODUCT_STANDARD].sort());
  });

  it('fields=id,name returns only id and name', async () => {
    const items = ok(await get('id,name')).items;
    expect(items).toEqual(standard.map(({ id, name }) => ({ id, name })));
  });

  it('fields=price.regular: price holds only regular', async () => {
    const items = ok(await get('price.regular')).items;
    expect(items).toEqual(standard.map((item) => ({ price: { regular: item.price.regular } })));
  });

  it('category(id,name) ≡ category.id,category.name ≡ category.id,category(name)', async () => {
    const [parenthesised, dotted, mixed, repeated] = await Promise.all([
      get('category(id,name)'),
      get('category.id,category.name'),
      get('category.id,category(name)'),
      get('category(id),category(name)'),
    ]);
    const expected = withCategory.map(({ category }) => ({
      category: { id: category.id, name: category.name },
    }));
    expect(ok(parenthesised).items).toEqual(expected);
    expect(ok(dotted).items).toEqual(expected);
    expect(ok(mixed).items).toEqual(expected);
    expect(ok(repeated).items).toEqual(expected);
  });

  it('fields=* is all standard data: the default response', async () => {
    const [star, absent] = await Promise.all([get('*'), get()]);
    expect(ok(star).items).toEqual(ok(absent).items);
    expect(JSON.stringify(star.body.items)).toBe(JSON.stringify(absent.body.items));
  });

  it('fields=category: only the sub-resource, with all its standard fields', async () => {
    const items = ok(await get('category')).items;
    for (const item of items) {
      expect(sorted(item)).toEqual(['category']);
      expect(sorted(item.category)).toEqual([...GENERIC_CATEGORY_STANDARD].sort());
      expectShape(item.category, se.genericCategory);
    }
    expect(items).toEqual(withCategory.map(({ category }) => ({ category })));
    const [star] = await Promise.all([get('category(*)')]);
    expect(ok(star).items).toEqual(items);
  });

  it('fields=*,category: the standard fields plus the full sub-resource', () => {
    withCategory.forEach((item, index) => {
      expect(sorted(item)).toEqual([...GENERIC_PRODUCT_STANDARD, 'category'].sort());
      const { category, ...rest } = item;
      expect(rest).toEqual(standard[index]);
      expectShape(category, se.genericCategory);
    });
  });

  it('spaces around tokens are ignored', async () => {
    const [spaced, plain] = await Promise.all([get(' id , name '), get('id,name')]);
    expect(ok(spaced).items).toEqual(ok(plain).items);
  });

  it('tabs and line breaks around tokens are white space too (decisions 11)', async () => {
    const [spaced, plain] = await Promise.all([get('id,\n\tname\r\n'), get('id,name')]);
    expect(ok(spaced).items).toEqual(ok(plain).items);
  });

  it('every further field of decisions 12 can be asked for', async () => {
    const response = await get(
      `*,${GENERIC_PRODUCT_ALL.slice(GENERIC_PRODUCT_STANDARD.length).join(',')}`,
    );
    const items = ok(response).items;
    for (const item of items) {
      expect(sorted(item)).toEqual([...GENERIC_PRODUCT_ALL].sort());
      expectShape(item.brand, t.nullable(t.object({ id: t.number, name: t.string })));
      expectShape(item.offers, t.array(se.productOffer));
      expectShape(item.properties, t.array(se.property));
      expectShape(item.images, se.imageUrls);
      expectShape(item.gtins, t.array({ kind: 'string', pattern: /^\d+$/ }));
      expectShape(item.price_trend, t.nullable(t.object({ percentage: t.nullable(t.number) })));
    }
  });

  it('an unknown name is a 422 listing the names allowed at that level', async () => {
    const top = expectErrorBody(await get('id,nope'), 422);
    expect(top.message).toContain('nope');
    for (const name of GENERIC_PRODUCT_ALL) expect(top.message).toContain(name);
    expect(top.details).toContainEqual(expect.objectContaining({ parameter: 'fields' }));

    const nested = expectErrorBody(await get('category(id,nope)'), 422);
    expect(nested.message).toContain('nope');
    for (const name of GENERIC_CATEGORY_STANDARD) expect(nested.message).toContain(name);

    expectErrorBody(await get('id.nope'), 422);
    expectErrorBody(await get('price.regular.amount'), 422);
  });
});

describe('fields syntax errors and bounds (decisions 11)', () => {
  const get = (fields: string) => rest.get(`/v1/products/48${query({ market: 'se', fields })}`);

  it.each([
    ['id,,name', 3],
    ['id name', 3],
    ['category(id', 8],
    ['id)', 2],
    [',id', 0],
    ['category.*', 9],
    ['id,', 3],
    ['9id', 0],
    ['id;name', 2],
    ['()', 0],
  ])('%j is a 400 naming position %i', async (fields, position) => {
    const error = expectErrorBody(await get(fields), 400);
    expect(error.message).toMatch(/position \d+/);
    expect(error.message).toContain(`position ${position}`);
    expect(error.details).toContainEqual(expect.objectContaining({ parameter: 'fields' }));
  });

  it('empty or blank fields is a 400', async () => {
    expectErrorBody(await get(''), 400);
    expectErrorBody(await get('   '), 400);
  });

  it('4 KB is accepted, one character more is a 400', async () => {
    const within = `id${' '.repeat(4096 - 2)}`;
    expect(within).toHaveLength(4096);
    expect(ok(await get(within)).items[0]).toEqual({ id: 48 });
    expectErrorBody(await get(`${within} `), 400);
  });

  it('depth 8 passes the parser (then names nothing known: 422); depth 9 is a 400', async () => {
    const path = (depth: number) => Array.from({ length: depth }, () => 'a').join('.');
    const eight = expectErrorBody(await get(path(8)), 422);
    expect(eight.message).toContain('a');
    const nine = expectErrorBody(await get(path(9)), 400);
    expect(nine.message).toMatch(/deep|depth|nest/i);
    const nested = expectErrorBody(await get('a(a(a(a(a(a(a(a(a)))))))))'), 400);
    expect(nested.message).toMatch(/deep|depth|nest/i);
  });

  it('the deepest real path of a route works (properties, 7 names)', async () => {
    const fields = 'properties.properties.properties.properties.properties.properties.name';
    const response = await rest.get(`/products/48${query({ market: 'se', fields })}`);
    expect(sorted(ok(response))).toEqual(['properties']);
  });

  it('200 names are accepted, 201 are a 400', async () => {
    const names = (count: number) => Array.from({ length: count }, () => 'id').join(',');
    expect(ok(await get(names(200))).items[0]).toEqual({ id: 48 });
    const error = expectErrorBody(await get(names(201)), 400);
    expect(error.message).toContain('200');
  });
});

// ---------------------------------------------------------------------------------------
// The other routes, each with its own names

interface FieldsCase {
  fields: string;
  /** The expected item, derived from the default item (or, for extensions, checked). */
  expect: (standard: any) => unknown;
}

interface RouteCase {
  name: string;
  path: string;
  params: Record<string, string | number>;
  partner?: boolean;
  /** The items of a response. */
  items: (body: any) => any[];
  /** The part of the body around the items, which fields leaves alone. */
  envelope?: (body: any) => unknown;
  allowed: string[];
  unknownStatus: 400 | 422;
  cases: FieldsCase[];
}

const pick =
  (...names: string[]) =>
  (item: any) =>
    Object.fromEntries(names.map((name) => [name, item[name]]));

const ROUTES: RouteCase[] = [
  {
    name: 'partner search list',
    path: '/partner-search/products',
    params: { market: 'se', ref: 'demo-ref', limit: 4 },
    partner: true,
    items: (body) => body.data,
    envelope: ({ links, paging }) => ({
      paging,
      next: links.next === null,
      prev: links.prev === null,
    }),
    allowed: ['id', 'name', 'brand', 'offers', 'productPage', 'category', 'rankWithinCategory'],
    unknownStatus: 400,
    cases: [
      { fields: 'id,name', expect: pick('id', 'name') },
      { fields: 'offers.url', expect: (p) => ({ offers: p.offers.map(pick('url')) }) },
      {
        fields: 'offers(currentPrice.value,shop.id)',
        expect: (p) => ({
          offers: p.offers.map((o: any) => ({
            currentPrice: { value: o.currentPrice.value },
            shop: { id: o.shop.id },
          })),
        }),
      },
      { fields: 'category(id,name)', expect: pick('category') },
      { fields: 'category.id,category.name', expect: pick('category') },
      { fields: '*', expect: (p) => p },
      { fields: 'brand', expect: pick('brand') },
      { fields: '*,brand', expect: (p) => p },
    ],
  },
  {
    name: 'partner search, one product',
    path: '/partner-search/products/48',
    params: { market: 'se', ref: 'demo-ref' },
    partner: true,
    items: (body) => [body],
    allowed: ['id', 'name', 'brand', 'offers', 'productPage', 'category', 'rankWithinCategory'],
    unknownStatus: 400,
    cases: [
      { fields: 'id,name', expect: pick('id', 'name') },
      {
        fields: 'id,offers(url,stockStatus)',
        expect: (p) => ({ id: p.id, offers: p.offers.map(pick('url', 'stockStatus')) }),
      },
      { fields: '*', expect: (p) => p },
    ],
  },
  {
    name: 'suggestions',
    path: '/suggestions',
    params: { market: 'se', limit: 4 },
    items: (body) => body.data,
    allowed: ['productId', 'productName', 'category', 'brand', 'images', 'lowestPrice'],
    unknownStatus: 422,
    cases: [
      { fields: 'productId,productName', expect: pick('productId', 'productName') },
      {
        fields: 'lowestPrice.price.value',
        expect: (s) => ({ lowestPrice: { price: { value: s.lowestPrice.price.value } } }),
      },
      {
        fields: 'category(id,name)',
        expect: (s) => ({ category: pick('id', 'name')(s.category) }),
      },
      {
        fields: 'category.id,category.name',
        expect: (s) => ({ category: pick('id', 'name')(s.category) }),
      },
      { fields: '*', expect: (s) => s },
      { fields: 'lowestPrice', expect: pick('lowestPrice') },
      {
        fields: 'lowestPrice(shop(id))',
        expect: (s) => ({ lowestPrice: { shop: { id: s.lowestPrice.shop.id } } }),
      },
    ],
  },
  {
    name: 'categories',
    path: '/categories',
    params: { market: 'se', q: 'b' },
    items: (body) => body.data,
    allowed: ['id', 'name', 'slug', 'url', 'logo'],
    unknownStatus: 422,
    cases: [
      { fields: 'id,slug', expect: pick('id', 'slug') },
      { fields: 'logo.small', expect: (c) => ({ logo: c.logo && { small: c.logo.small } }) },
      { fields: '*', expect: (c) => c },
      { fields: 'logo', expect: pick('logo') },
    ],
  },
  {
    name: 'products list',
    path: '/products',
    params: { market: 'se', limit: 3 },
    items: (body) => body.data,
    envelope: ({ links }) => ({ next: links.next === null, prev: links.prev === null }),
    allowed: [
      'productId',
      'productName',
      'category',
      'brand',
      'images',
      'offers',
      'properties',
      'coreProperties',
    ],
    unknownStatus: 422,
    cases: [
      { fields: 'productId,productName', expect: pick('productId', 'productName') },
      { fields: 'offers.url', expect: (p) => ({ offers: p.offers.map(pick('url')) }) },
      {
        fields: 'offers(price.value,shop(id,name))',
        expect: (p) => ({
          offers: p.offers.map((o: any) => ({
            price: { value: o.price.value },
            shop: pick('id', 'name')(o.shop),
          })),
        }),
      },
      {
        fields: 'category(id,name)',
        expect: (p) => ({ category: pick('id', 'name')(p.category) }),
      },
      {
        fields: 'category.id,category.name',
        expect: (p) => ({ category: pick('id', 'name')(p.category) }),
      },
      { fields: '*', expect: (p) => p },
      { fields: 'offers', expect: pick('offers') },
      {
        fields: 'properties(name,type)',
        expect: (p) => ({ properties: p.properties.map(pick('name', 'type')) }),
      },
    ],
  },
  {
    name: 'products by id (several)',
    path: '/products/48,41',
    params: { market: 'se' },
    items: (body) => body.data,
    allowed: ['productId', 'productName', 'offers'],
    unknownStatus: 422,
    cases: [
      { fields: 'productId', expect: pick('productId') },
      { fields: '*', expect: (p) => p },
      { fields: 'coreProperties', expect: pick('coreProperties') },
    ],
  },
  {
    name: 'products by id (one)',
    path: '/products/48',
    params: { market: 'se' },
    items: (body) => [body],
    allowed: ['productId', 'productName', 'offers'],
    unknownStatus: 422,
    cases: [
      { fields: 'productId,brand', expect: pick('productId', 'brand') },
      { fields: '*', expect: (p) => p },
    ],
  },
  {
    name: 'generic category',
    path: '/v1/categories/3',
    params: { market: 'se' },
    items: (body) => body.items,
    envelope: ({ meta }) => meta,
    allowed: GENERIC_CATEGORY_STANDARD,
    unknownStatus: 422,
    cases: [
      { fields: 'id,path', expect: pick('id', 'path') },
      { fields: 'parent.id', expect: pick('parent') },
      { fields: '*', expect: (c) => c },
    ],
  },
  {
    name: 'generic category products',
    path: '/v1/categories/2/products',
    params: { market: 'se', limit: 3 },
    items: (body) => body.items,
    envelope: ({ meta }) => ({
      total: meta.items_total,
      next: meta.paging.next === null,
      prev: meta.paging.prev === null,
    }),
    allowed: GENERIC_PRODUCT_ALL,
    unknownStatus: 422,
    cases: [
      { fields: 'id,name', expect: pick('id', 'name') },
      { fields: 'price.regular', expect: (p) => ({ price: { regular: p.price.regular } }) },
      { fields: '*', expect: (p) => p },
    ],
  },
];

describe.each(ROUTES)('$name: fields', (route) => {
  const get = (fields?: string) => {
    const path = `${route.path}${query({ ...route.params, ...(fields === undefined ? {} : { fields }) })}`;
    return route.partner ? rest.partner(path) : rest.get(path);
  };
  let standardBody: any;

  beforeAll(async () => {
    standardBody = ok(await get());
    expect(route.items(standardBody).length).toBeGreaterThan(0);
  });

  it.each(route.cases.map((c) => [c.fields, c] as const))('fields=%s', async (_fields, c) => {
    const body = ok(await get(c.fields));
    expect(route.items(body)).toEqual(route.items(standardBody).map(c.expect));
    if (route.envelope) expect(route.envelope(body)).toEqual(route.envelope(standardBody));
  });

  it(`an unknown name is a ${route.unknownStatus} listing the allowed names`, async () => {
    const error = expectErrorBody(await get('nope'), route.unknownStatus);
    expect(error.message).toContain('nope');
    for (const name of route.allowed) expect(error.message).toContain(name);
  });

  it('a syntax error is a 400 with its position', async () => {
    const error = expectErrorBody(await get('a,(b'), 400);
    expect(error.message).toContain('position 2');
  });
});

describe('fields with non-standard names of the products routes', () => {
  it('*,gtins,popularity,productPage extends the product item', async () => {
    const response = await rest.get('/products/48?market=se&fields=*,gtins,popularity,productPage');
    const body = ok(response);
    expectShape(
      body,
      t.object({
        productId: t.string,
        productName: t.string,
        category: t.object({ id: t.string, name: t.string, rank: t.integer }),
        brand: t.nullable(t.object({ name: t.string })),
        images: se.imageUrls,
        offers: t.array(se.productOffer),
        properties: t.array(se.property),
        coreProperties: t.array(se.coreProperty),
        gtins: t.array(t.string),
        popularity: t.integer,
        productPage: t.url,
      }),
    );
  });

  it('offers(*,offerName,productCondition,stockStatus) extends each offer', async () => {
    const body = ok(
      await rest.get(
        '/products/48?market=se&fields=offers(*,offerName,productCondition,stockStatus)',
      ),
    );
    expect(body.offers.length).toBeGreaterThan(0);
    for (const offer of body.offers) {
      expect(typeof offer.offerName).toBe('string');
      expect(typeof offer.productCondition).toBe('string');
      expect(offer.stockStatus).not.toBe('OUT_OF_STOCK');
      expect(typeof offer.url).toBe('string');
    }
  });
});
