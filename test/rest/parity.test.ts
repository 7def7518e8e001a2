/**
 * Parity: each REST answer equals what the same GraphQL operation on /graphql gives, mapped to
 * the REST shape by hand here (not with the REST layer's own declarations), so the REST
 * mapping is checked independently: names, conversions (ids as strings, lower-case property
 * types), nesting, nulls, paging.
 */
import { describe, expect, it } from 'vitest';
import { query, useRestCatalogue } from '../helpers/rest.ts';

const rest = useRestCatalogue();

// --- GraphQL selections, written out -----------------------------------------------------

const PERIOD = '{ value currency start end }';
const LOGO = '{ small large }';
const PARTNER_OFFER = `url offerName productCondition price { value currency }
  memberPrice ${PERIOD} salesPrice ${PERIOD} originalPrice ${PERIOD}
  shop { shopId name logo ${LOGO} } stockStatus`;
const PARTNER_PRODUCT = (offers: string) => `productId name brand { brandId name } productPage
  category { categoryId name } rankWithinCategory
  offers${offers} { edges { node { ${PARTNER_OFFER} } } }`;
const SUGGESTION = `productId name category { categoryId name } rankWithinCategory brand { name }
  images ${LOGO}
  lowestPrice { price { value currency includingShipping } memberPrice ${PERIOD}
    salesPrice ${PERIOD} originalPrice ${PERIOD} shop { shopId name logo ${LOGO} } }
  priceTrend { percentage }`;
const PROPERTY_FIELDS = 'type name value unit icon';
const CORE_FIELDS = 'name value core comment unit icon';
const nested = (fields: string, depth: number): string =>
  depth === 0 ? 'children { name }' : `${fields} children { ${nested(fields, depth - 1)} }`;
const PRODUCT_ITEM = `productId name category { categoryId name } rankWithinCategory brand { name }
  images ${LOGO}
  offers(first: 100) { edges { node {
    price { value currency includingShipping } salesPrice ${PERIOD} memberPrice ${PERIOD}
    originalPrice ${PERIOD} url shop { shopId name logo ${LOGO} }
    alternativePrices { price { value currency } url }
  } } }
  properties { ${nested(PROPERTY_FIELDS, 4)} }
  coreProperties { ${nested(CORE_FIELDS, 4)} }`;
const GENERIC_PRODUCT = `productId name popularity productPage
  offerSummary { bestStockStatus lowestNewPrice { value } lowestAlternativePrice { value }
    lowestInStockPrice { value } }`;
const GENERIC_CATEGORY = `categoryId name url productsTotal lowestPrice { value } description
  logo ${LOGO} ancestors { categoryId name } parent { categoryId }`;

// --- mapping to REST shapes, by hand -------------------------------------------------------

type G = any;
const nodes = (connection: G) => connection.edges.map((edge: G) => edge.node);
const period = (price: G) =>
  price && { value: price.value, currency: price.currency, start: price.start, end: price.end };
const logo = (image: G) => ({ small: image.small, large: image.large });
const shop = (s: G) => ({ id: s.shopId, name: s.name, logo: logo(s.logo) });

const partnerOffer = (o: G) => ({
  url: o.url,
  offerName: o.offerName,
  productCondition: o.productCondition,
  currentPrice: { value: o.price.value, currency: o.price.currency },
  memberPrice: period(o.memberPrice),
  salesPrice: period(o.salesPrice),
  originalPrice: period(o.originalPrice),
  shop: shop(o.shop),
  stockStatus: o.stockStatus,
});

const partnerProduct = (p: G) => ({
  id: p.productId,
  name: p.name,
  brand: p.brand && { id: p.brand.brandId, name: p.brand.name },
  offers: nodes(p.offers).map(partnerOffer),
  productPage: p.productPage,
  category: { id: p.category.categoryId, name: p.category.name },
  rankWithinCategory: p.rankWithinCategory,
});

const itemCategory = (p: G) => ({
  id: String(p.category.categoryId),
  name: p.category.name,
  rank: p.rankWithinCategory,
});

const suggestion = (p: G) => ({
  productId: String(p.productId),
  productName: p.name,
  category: itemCategory(p),
  brand: p.brand && { name: p.brand.name },
  images: logo(p.images),
  lowestPrice: p.lowestPrice && {
    price: {
      value: p.lowestPrice.price.value,
      currency: p.lowestPrice.price.currency,
      includingShipping: p.lowestPrice.price.includingShipping,
    },
    memberPrice: period(p.lowestPrice.memberPrice),
    salesPrice: period(p.lowestPrice.salesPrice),
    originalPrice: period(p.lowestPrice.originalPrice),
    shop: shop(p.lowestPrice.shop),
    priceTrend: { percentage: p.priceTrend?.percentage ?? null },
  },
});

/** A property tree node; the selection stops at depth 4, where no node has children left. */
const property = (node: G): G => {
  if (node.type === undefined) throw new Error(`property tree deeper than selected: ${node.name}`);
  return {
    type: String(node.type).toLowerCase(),
    name: node.name,
    value: node.value,
    unit: node.unit,
    icon: node.icon,
    properties: node.children.map(property),
  };
};
const coreProperty = (node: G): G => {
  if (node.core === undefined) throw new Error(`core tree deeper than selected: ${node.name}`);
  return {
    type: 'property',
    name: node.name,
    value: node.value,
    core: node.core,
    comment: node.comment,
    unit: node.unit,
    icon: node.icon,
    properties: node.children.map(coreProperty),
  };
};

const productItem = (p: G) => ({
  productId: String(p.productId),
  productName: p.name,
  category: itemCategory(p),
  brand: p.brand && { name: p.brand.name },
  images: logo(p.images),
  offers: nodes(p.offers).map((o: G) => ({
    price: {
      value: o.price.value,
      currency: o.price.currency,
      includingShipping: o.price.includingShipping,
    },
    salesPrice: period(o.salesPrice),
    memberPrice: period(o.memberPrice),
    originalPrice: period(o.originalPrice),
    url: o.url,
    shop: shop(o.shop),
    alternativePrices: o.alternativePrices.map((a: G) => ({
      price: { value: a.price.value, currency: a.price.currency },
      url: a.url,
    })),
  })),
  properties: p.properties.map(property),
  coreProperties: p.coreProperties.map(coreProperty),
});

const genericProduct = (p: G) => ({
  id: p.productId,
  name: p.name,
  popularity: p.popularity,
  stock: { status: p.offerSummary.bestStockStatus },
  uri: p.productPage,
  price: {
    regular: p.offerSummary.lowestNewPrice?.value ?? null,
    alternative: p.offerSummary.lowestAlternativePrice?.value ?? null,
    in_stock: p.offerSummary.lowestInStockPrice?.value ?? null,
  },
});

/** The generic category without `logo` (a URL string: checked on its own). */
const genericCategory = (c: G) => ({
  id: String(c.categoryId),
  name: c.name,
  uri: c.url,
  products_total: c.productsTotal,
  lowest_price: c.lowestPrice?.value ?? null,
  description: c.description,
  path: Object.fromEntries(c.ancestors.map((a: G) => [String(a.categoryId), a.name])),
  parent: c.parent && { id: String(c.parent.categoryId) },
});

function expectGenericCategory(restItem: G, graph: G) {
  const { logo: restLogo, ...others } = restItem;
  expect(others).toEqual(genericCategory(graph));
  const urls = [graph.logo?.large, graph.logo?.small].filter(Boolean);
  if (urls.length === 0) expect(restLogo).toBeNull();
  else expect(urls).toContain(restLogo);
}

/** The cursor after the first `offset` items, from the list itself. */
async function cursorAfter(root: string, offset: number): Promise<string> {
  const data = await rest.graphqlData(
    `{ page: ${root.replace('$first', String(offset))} { pageInfo { endCursor } } }`,
  );
  return data.page.pageInfo.endCursor;
}

async function ok(path: string, partner = false) {
  const response = partner ? await rest.partner(path) : await rest.get(path);
  expect(response.status, response.text).toBe(200);
  return response.body;
}

// --- the routes ----------------------------------------------------------------------------

describe('partner search', () => {
  it.each([
    { market: 'se', limit: 5, offset: 0 },
    { market: 'se', limit: 4, offset: 6 },
    { market: 'nz', limit: 10, offset: 60 },
  ])('the list %o', async ({ market, limit, offset }) => {
    const args = `market: ${market.toUpperCase()}, ref: "demo-ref", first: $first`;
    const after = offset === 0 ? null : await cursorAfter(`products(${args})`, offset);
    const data = await rest.graphqlData(
      `query ($first: Int, $after: String) {
        products(market: ${market.toUpperCase()}, ref: "demo-ref", first: $first, after: $after) {
          pageInfo { hasNextPage } edges { node { ${PARTNER_PRODUCT('(first: 100)')} } }
        }
      }`,
      { first: limit, after },
    );
    const body = await ok(
      `/partner-search/products${query({ market, ref: 'demo-ref', limit, offset })}`,
      true,
    );
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data).toEqual(nodes(data.products).map(partnerProduct));
    expect(body.paging).toEqual({
      limit,
      offset,
      nextOffset: data.products.pageInfo.hasNextPage ? offset + limit : null,
      prevOffset: offset > 0 ? Math.max(0, offset - limit) : null,
    });
  });

  it('by product ids and GTINs', async () => {
    const gtins = await rest.catalogue.database.db
      .selectFrom('gtins')
      .select('gtin')
      .where('product_id', 'in', [7, 8])
      .execute();
    const data = await rest.graphqlData(
      `query ($ids: [Int!], $gtins: [String!]) {
        products(market: SE, ref: "demo-ref", ids: $ids, gtins: $gtins, first: 10) {
          edges { node { ${PARTNER_PRODUCT('(first: 100)')} } }
        }
      }`,
      { ids: [48, 3, 41], gtins: gtins.map((row) => row.gtin) },
    );
    const body = await ok(
      `/partner-search/products${query({ market: 'se', ref: 'demo-ref', productIds: '48,3,41', gtins: gtins.map((row) => row.gtin).join(',') })}`,
      true,
    );
    expect(body.data.length).toBeGreaterThan(2);
    expect(body.data).toEqual(nodes(data.products).map(partnerProduct));
  });

  it.each([
    { id: 48, limit: 10, offset: 0 },
    { id: 41, limit: 5, offset: 5 },
  ])('one product %o', async ({ id, limit, offset }) => {
    const after =
      offset === 0
        ? null
        : (
            await rest.graphqlData(
              `{ product(market: SE, id: ${id}) { offers(first: ${offset}) { pageInfo { endCursor } } } }`,
            )
          ).product.offers.pageInfo.endCursor;
    const data = await rest.graphqlData(
      `query ($first: Int, $after: String) {
        product(market: SE, id: ${id}, ref: "demo-ref") {
          ${PARTNER_PRODUCT('(first: $first, after: $after)')}
        }
      }`,
      { first: limit, after },
    );
    const body = await ok(
      `/partner-search/products/${id}${query({ market: 'se', ref: 'demo-ref', limit, offset })}`,
      true,
    );
    expect(body).toEqual(partnerProduct(data.product));
  });
});

describe('suggestions', () => {
  it('without a text: best price trend first', async () => {
    const data = await rest.graphqlData(
      `{ products(market: SE, orderBy: PRICE_TREND, first: 5) { edges { node { ${SUGGESTION} } } } }`,
    );
    const body = await ok('/suggestions?market=se');
    expect(body.data).toHaveLength(5);
    expect(body).toEqual({ data: nodes(data.products).map(suggestion) });
  });

  it('a text search, a page further on', async () => {
    const root = 'products(market: FI, query: "samsung", first: $first)';
    const after = await cursorAfter(root, 3);
    const data = await rest.graphqlData(
      `query ($after: String) {
        products(market: FI, query: "samsung", first: 4, after: $after) {
          edges { node { ${SUGGESTION} } }
        }
      }`,
      { after },
    );
    const body = await ok('/suggestions?market=fi&product=samsung&limit=4&offset=3');
    expect(body.data.length).toBeGreaterThan(0);
    expect(body).toEqual({ data: nodes(data.products).map(suggestion) });
  });

  it('with a category and price trend bounds', async () => {
    const data = await rest.graphqlData(
      `{ products(market: SE, category: "mobile-phones", priceTrend: { gte: -10, lte: 30 },
          orderBy: PRICE_TREND, first: 20, ref: "r1") { edges { node { ${SUGGESTION} } } } }`,
    );
    const body = await ok(
      `/suggestions${query({ market: 'se', 'filter[category]': 'mobile-phones', 'filter[price_trend][gte]': -10, 'filter[price_trend][lte]': 30, limit: 20, ref: 'r1' })}`,
    );
    expect(body.data.length).toBeGreaterThan(0);
    expect(body).toEqual({ data: nodes(data.products).map(suggestion) });
  });
});

describe('categories', () => {
  it.each([
    ['se', 'b'],
    ['fr', 'c'],
    ['gb', 'head'],
  ])('market %s, q=%s', async (market, q) => {
    const data = await rest.graphqlData(
      `query ($q: String!) { categories(market: ${market.toUpperCase()}, query: $q, first: 5) {
        edges { node { categoryId name slug url logo ${LOGO} } } } }`,
      { q },
    );
    const body = await ok(`/categories${query({ market, q })}`);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body).toEqual({
      data: nodes(data.categories).map((c: G) => ({
        id: String(c.categoryId),
        name: c.name,
        slug: c.slug,
        url: c.url,
        logo: c.logo && logo(c.logo),
      })),
    });
  });
});

describe('products', () => {
  it('the list, a page further on, with links', async () => {
    const after = await cursorAfter('products(market: DK, first: $first)', 4);
    const data = await rest.graphqlData(
      `query ($after: String) { products(market: DK, first: 3, after: $after) {
        pageInfo { hasNextPage } edges { node { ${PRODUCT_ITEM} } } } }`,
      { after },
    );
    const body = await ok('/products?market=dk&limit=3&offset=4');
    expect(body.data).toHaveLength(3);
    expect(body.data).toEqual(nodes(data.products).map(productItem));
    expect(body.links.next === null).toBe(!data.products.pageInfo.hasNextPage);
    expect(body.links.prev).not.toBeNull();
  });

  it('by category and by GTIN, with a ref', async () => {
    const [byCategory, gtinRows] = await Promise.all([
      rest.graphqlData(
        `{ products(market: SE, category: "laptops", ref: "p-1", first: 4) {
          edges { node { ${PRODUCT_ITEM} } } } }`,
      ),
      rest.catalogue.database.db
        .selectFrom('gtins')
        .select('gtin')
        .where('product_id', 'in', [12, 13, 14])
        .execute(),
    ]);
    const gtins = gtinRows.map((row) => row.gtin);
    const byGtin = await rest.graphqlData(
      `query ($gtins: [String!]) { products(market: SE, gtins: $gtins, first: 10) {
        edges { node { ${PRODUCT_ITEM} } } } }`,
      { gtins },
    );
    const [categoryBody, gtinBody] = await Promise.all([
      ok('/products?market=se&filter%5Bcategory%5D=laptops&ref=p-1&limit=4'),
      ok(`/products${query({ market: 'se', gtin: gtins.join(',') })}`),
    ]);
    expect(categoryBody.data).toHaveLength(4);
    expect(categoryBody.data).toEqual(nodes(byCategory.products).map(productItem));
    expect(gtinBody.data.length).toBeGreaterThan(0);
    expect(gtinBody.data).toEqual(nodes(byGtin.products).map(productItem));
  });

  it('by id: one, and several', async () => {
    const data = await rest.graphqlData(
      `{ one: product(market: NO, id: 5, ref: "abc") { ${PRODUCT_ITEM} }
         several: products(market: NO, ids: [9, 5, 2], first: 20) { edges { node { ${PRODUCT_ITEM} } } } }`,
    );
    const [one, several] = await Promise.all([
      ok('/products/5?market=no&ref=abc'),
      ok('/products/9,5,2,9?market=no'),
    ]);
    expect(one).toEqual(productItem(data.one));
    expect(several).toEqual({ data: nodes(data.several).map(productItem) });
  });
});

describe('generic resources', () => {
  it('/v1/products: items, items_total and paging', async () => {
    const after = await cursorAfter('products(market: FR, first: $first)', 10);
    const data = await rest.graphqlData(
      `query ($after: String) { products(market: FR, first: 30, after: $after) {
        totalCount pageInfo { hasNextPage } edges { node { ${GENERIC_PRODUCT} } } } }`,
      { after },
    );
    const body = await ok('/v1/products?market=fr&offset=10');
    expect(body.items).toHaveLength(30);
    expect(body.items).toEqual(nodes(data.products).map(genericProduct));
    expect(body.meta.items_total).toBe(data.products.totalCount);
    expect(body.meta.paging.next === null).toBe(!data.products.pageInfo.hasNextPage);
  });

  it('/v1/products/{id}, with further fields', async () => {
    const data = await rest.graphqlData(
      `{ product(market: SE, id: 48, ref: "q") { ${GENERIC_PRODUCT} brand { brandId name }
          gtins images ${LOGO} priceTrend { percentage }
          offers(first: 100) { edges { node { url price { value currency includingShipping } } } } } }`,
    );
    const body = await ok(
      '/v1/products/48?market=se&ref=q&fields=*,brand,gtins,images,price_trend,offers(url,price)',
    );
    const p = data.product;
    expect(body).toEqual({
      meta: {},
      items: [
        {
          ...genericProduct(p),
          brand: p.brand && { id: p.brand.brandId, name: p.brand.name },
          gtins: p.gtins,
          images: logo(p.images),
          price_trend: p.priceTrend && { percentage: p.priceTrend.percentage },
          offers: nodes(p.offers).map((o: G) => ({ url: o.url, price: o.price })),
        },
      ],
    });
  });

  it.each([1, 3, 16])('/v1/categories/%i', async (id) => {
    const data = await rest.graphqlData(
      `{ category(market: GB, id: ${id}) { ${GENERIC_CATEGORY} } }`,
    );
    const body = await ok(`/v1/categories/${id}?market=gb`);
    expect(body.meta).toEqual({});
    expect(body.items).toHaveLength(1);
    expectGenericCategory(body.items[0], data.category);
  });

  it('/v1/categories/{id}/products, a page further on', async () => {
    const after = (
      await rest.graphqlData(
        '{ category(market: SE, id: 11) { products(first: 5) { pageInfo { endCursor } } } }',
      )
    ).category.products.pageInfo.endCursor;
    const data = await rest.graphqlData(
      `query ($after: String) { category(market: SE, id: 11) { products(first: 7, after: $after) {
        totalCount pageInfo { hasNextPage } edges { node { ${GENERIC_PRODUCT} } } } } }`,
      { after },
    );
    const body = await ok('/v1/categories/11/products?market=se&limit=7&offset=5');
    expect(body.items).toHaveLength(7);
    expect(body.items).toEqual(nodes(data.category.products).map(genericProduct));
    expect(body.meta.items_total).toBe(data.category.products.totalCount);
  });

  it('/v1/products/{id} with *,category: the product’s category as a generic category', async () => {
    const data = await rest.graphqlData(
      `{ product(market: DK, id: 5) { ${GENERIC_PRODUCT} category { ${GENERIC_CATEGORY} } } }`,
    );
    const body = await ok('/v1/products/5?market=dk&fields=*,category');
    const { category, ...product } = body.items[0];
    expect(product).toEqual(genericProduct(data.product));
    expectGenericCategory(category, data.product.category);
  });
});
