/**
 * Authentication through the real routes with the seeded demo client (decisions 2), the
 * availability rule (spec 1.5, decisions 5) checked against the raw `offers` table, and the
 * `ref` rule (decisions 6) on every offer URL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { expectErrorBody, query, useRestCatalogue, type RestResponse } from '../helpers/rest.ts';

const rest = useRestCatalogue();

const OPTIONAL_ROUTES = [
  '/suggestions?market=se&limit=1',
  '/categories?market=se&q=b&limit=1',
  '/products?market=se&limit=1&fields=productId',
  '/products/48?market=se&fields=productId',
  '/products/48,41?market=se&fields=productId',
  '/v1/products?market=se&limit=1',
  '/v1/products/48?market=se',
  '/v1/categories/3?market=se',
  '/v1/categories/3/products?market=se&limit=1',
];

const PARTNER_ROUTES = [
  '/partner-search/products?market=se&ref=demo-ref&limit=2',
  '/partner-search/products/48?market=se&ref=demo-ref',
];

function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return rest.request('POST', '/partner-search/token', {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
}

function expectBearerChallenge(response: RestResponse) {
  expect(response.headers.get('www-authenticate') ?? '').toMatch(/^Bearer\b/);
}

describe('authentication (decisions 2)', () => {
  it('a token for the demo client, with client_id and client_secret in the form body', async () => {
    const response = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT.id,
      client_secret: DEMO_CLIENT.secret,
    });
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(response.body.token_type).toBe('Bearer');
    expect(response.body.expires_in).toBe(3600);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const search = await rest.get(PARTNER_ROUTES[0]!, { token: response.body.access_token });
    expect(search.status, search.text).toBe(200);
  });

  it('a token with HTTP Basic client credentials', async () => {
    const basic = Buffer.from(`${DEMO_CLIENT.id}:${DEMO_CLIENT.secret}`).toString('base64');
    const response = await tokenRequest(
      { grant_type: 'client_credentials' },
      { authorization: `Basic ${basic}` },
    );
    expect(response.status, response.text).toBe(200);
    const search = await rest.get(PARTNER_ROUTES[1]!, { token: response.body.access_token });
    expect(search.status, search.text).toBe(200);
  });

  it('a wrong secret gets no token', async () => {
    const response = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT.id,
      client_secret: 'not-the-secret',
    });
    // RFC 6749 §5.2: credentials in the body are refused with 400 invalid_client, unchallenged.
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_client');
    expect(response.headers.get('www-authenticate')).toBeNull();
    expect(response.body.access_token).toBeUndefined();
  });

  it.each(PARTNER_ROUTES)('%s without a token: 401 with WWW-Authenticate: Bearer', async (path) => {
    const response = await rest.get(path);
    expectErrorBody(response, 401);
    expectBearerChallenge(response);
    expect(response.headers.get('api-version')).toBe('1.0.0');
  });

  it('without a token, partner search answers 401 before looking at the parameters', async () => {
    for (const path of [
      '/partner-search/products',
      '/partner-search/products?market=SE&ref=demo-ref',
      '/partner-search/products?market=se',
      '/partner-search/products/abc?market=se&ref=demo-ref',
    ]) {
      const response = await rest.get(path);
      expectErrorBody(response, 401);
      expectBearerChallenge(response);
    }
  });

  it('another scheme than Bearer counts as no token', async () => {
    const response = await rest.get(PARTNER_ROUTES[0]!, {
      headers: { authorization: 'Basic ZGVtbzpkZW1v' },
    });
    expectErrorBody(response, 401);
    expectBearerChallenge(response);
  });

  it('an invalid token: 401 with an invalid_token challenge', async () => {
    const valid = await rest.token();
    const [header, payload, signature] = valid.split('.');
    const tampered = `${header}.${payload}.${signature!.slice(0, -4)}AAAA`;
    const forged = `${header}.${Buffer.from(JSON.stringify({ sub: 'demo-partner', refs: ['demo-ref'] })).toString('base64url')}.${signature}`;
    for (const token of ['garbage', 'a.b.c', tampered, forged]) {
      for (const path of PARTNER_ROUTES) {
        const response = await rest.get(path, { token });
        expectErrorBody(response, 401);
        expectBearerChallenge(response);
        expect(response.headers.get('www-authenticate')).toContain('invalid_token');
      }
    }
  });

  it('a ref the client does not own: 403', async () => {
    for (const path of [
      '/partner-search/products?market=se&ref=someone-else',
      '/partner-search/products/48?market=se&ref=someone-else',
    ]) {
      const response = await rest.partner(path);
      const error = expectErrorBody(response, 403);
      expect(error.details).toContainEqual(expect.objectContaining({ parameter: 'ref' }));
      expect(response.headers.get('api-version')).toBe('1.0.0');
    }
  });

  it('its own ref: 200, and every offer URL carries ref=demo-ref', async () => {
    const list = await rest.partner('/partner-search/products?market=se&ref=demo-ref&limit=20');
    const one = await rest.partner('/partner-search/products/48?market=se&ref=demo-ref');
    expect(list.status).toBe(200);
    expect(one.status).toBe(200);
    const urls = [
      ...list.body.data.flatMap((product: any) => product.offers.map((offer: any) => offer.url)),
      ...one.body.offers.map((offer: any) => offer.url),
    ];
    expect(urls.length).toBeGreaterThan(20);
    for (const url of urls) expect(new URL(url).searchParams.getAll('ref')).toEqual(['demo-ref']);
  });

  it.each(OPTIONAL_ROUTES)('%s: no token needed; a valid one is accepted too', async (path) => {
    const [anonymous, withToken] = await Promise.all([
      rest.get(path),
      rest.get(path, { token: 'demo' }),
    ]);
    expect(anonymous.status, anonymous.text).toBe(200);
    expect(withToken.status, withToken.text).toBe(200);
    expect(withToken.body).toEqual(anonymous.body);
  });

  it.each(OPTIONAL_ROUTES)('%s: an invalid token is a 401, not ignored', async (path) => {
    const response = await rest.get(path, { token: 'not-a-valid-token' });
    expectErrorBody(response, 401);
    expectBearerChallenge(response);
  });

  it('optional routes take any well-formed ref, owned or not, with or without a token', async () => {
    const response = await rest.get('/products/48?market=se&ref=someone-else&fields=offers.url');
    expect(response.status).toBe(200);
    for (const offer of response.body.offers) {
      expect(new URL(offer.url).searchParams.get('ref')).toBe('someone-else');
    }
  });
});

// ---------------------------------------------------------------------------------------
// Availability (decisions 5), against the raw offers table

interface OfferRow {
  id: number;
  product_id: number;
  shop_id: number;
  market: string;
  url: string;
  condition: string;
  stock_status: string;
  purchasable: boolean;
  price: number;
}

let offersByUrl: Map<string, OfferRow>;
let alternativeUrls: Map<string, number>;
let seOffers: OfferRow[];

const isAvailable = (offer: OfferRow) => offer.purchasable && offer.stock_status !== 'OUT_OF_STOCK';

beforeAll(async () => {
  const db = rest.catalogue.database.db;
  const rows = (await db
    .selectFrom('offers')
    .select([
      'id',
      'product_id',
      'shop_id',
      'market',
      'url',
      'condition',
      'stock_status',
      'purchasable',
      'price',
    ])
    .execute()) as OfferRow[];
  offersByUrl = new Map(rows.map((row) => [row.url, { ...row, price: Number(row.price) }]));
  expect(offersByUrl.size).toBe(rows.length); // offer URLs are unique: they identify offers
  seOffers = [...offersByUrl.values()].filter((row) => row.market === 'se');
  const alternatives = await db
    .selectFrom('offer_alternative_prices')
    .select(['offer_id', 'url'])
    .execute();
  alternativeUrls = new Map(alternatives.map((row) => [row.url, row.offer_id]));
});

/** The stored URL an answered URL stands for: the `ref` parameter taken out. */
function storedUrl(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('ref');
  return parsed.toString();
}

function storedOffer(url: string): OfferRow {
  const row = offersByUrl.get(storedUrl(url)) ?? offersByUrl.get(url);
  expect(row, `no stored offer for ${url}`).toBeDefined();
  return row!;
}

function availableOffersOf(productId: number, market = 'se') {
  return [...offersByUrl.values()]
    .filter((row) => row.product_id === productId && row.market === market && isAvailable(row))
    .sort((a, b) => a.price - b.price);
}

/** The answered offers are exactly the expected rows, cheapest first (ties in any order). */
function expectSameOffers(offers: { url: string }[], expected: OfferRow[]) {
  const rows = offers.map((offer) => storedOffer(offer.url));
  expect(rows.map((row) => row.id).sort((a, b) => a - b)).toEqual(
    expected.map((row) => row.id).sort((a, b) => a - b),
  );
  const prices = rows.map((row) => row.price);
  expect(prices).toEqual([...prices].sort((a, b) => a - b));
}

const minimum = (values: number[]) => (values.length === 0 ? null : Math.min(...values));

describe('availability (spec 1.5, decisions 5)', () => {
  it('the seeded catalogue has unavailable offers of every kind to leave out', () => {
    expect(seOffers.some((row) => row.stock_status === 'OUT_OF_STOCK' && row.purchasable)).toBe(
      true,
    );
    expect(seOffers.some((row) => !row.purchasable && row.stock_status !== 'OUT_OF_STOCK')).toBe(
      true,
    );
    expect(seOffers.some((row) => row.stock_status === 'UNKNOWN' && row.purchasable)).toBe(true);
  });

  it('partner search: each product lists exactly its available offers, cheapest first', async () => {
    const fields = 'id,offers(url,currentPrice.value,stockStatus,productCondition)';
    const pages = await Promise.all(
      [0, 250].map((offset) =>
        rest.partner(
          `/partner-search/products${query({ market: 'se', ref: 'demo-ref', limit: 250, offset, fields })}`,
        ),
      ),
    );
    const products = pages.flatMap((page) => page.body.data);
    const withOffers = new Set(seOffers.filter(isAvailable).map((row) => row.product_id));
    expect(products.length).toBe(withOffers.size);
    let checked = 0;
    for (const product of products) {
      const expected = availableOffersOf(product.id);
      const got = product.offers.map((offer: any) => {
        const row = storedOffer(offer.url);
        expect(row.product_id).toBe(product.id);
        expect(offer.currentPrice.value).toBe(row.price);
        expect(offer.stockStatus).toBe(row.stock_status);
        expect(offer.productCondition).toBe(row.condition);
        return row;
      });
      expect(got.every(isAvailable)).toBe(true);
      expectSameOffers(product.offers, expected.slice(0, 100));
      checked += got.length;
    }
    expect(checked).toBe(seOffers.filter(isAvailable).length);
  });

  it('a product whose cheapest offer is unavailable: offers and lowest price leave it out', async () => {
    const candidates = [...new Set(seOffers.map((row) => row.product_id))].filter((id) => {
      const all = seOffers.filter((row) => row.product_id === id);
      const available = all.filter(isAvailable);
      return (
        available.length > 0 &&
        minimum(all.map((r) => r.price))! < minimum(available.map((r) => r.price))!
      );
    });
    expect(candidates.length).toBeGreaterThan(0);
    for (const id of candidates.slice(0, 3)) {
      const expected = availableOffersOf(id);
      const [partner, product, generic] = await Promise.all([
        rest.partner(`/partner-search/products/${id}?market=se&ref=demo-ref&limit=100`),
        rest.get(`/products/${id}?market=se&fields=offers(url,price.value)`),
        rest.get(`/v1/products/${id}?market=se&fields=id,price,stock,offers.url`),
      ]);
      expectSameOffers(partner.body.offers, expected);
      expectSameOffers(product.body.offers, expected);
      expectSameOffers(generic.body.items[0].offers, expected);
    }
  });

  it('products list and products by ids: offers and alternative prices of available offers only', async () => {
    const fields = 'productId,offers(url,price.value,alternativePrices.url)';
    const [list, byIds] = await Promise.all([
      rest.get(`/products${query({ market: 'se', limit: 15, offset: 30, fields })}`),
      rest.get(`/products/10,11,23,31,34,41,48${query({ market: 'se', fields })}`),
    ]);
    let alternatives = 0;
    for (const item of [...list.body.data, ...byIds.body.data]) {
      expectSameOffers(item.offers, availableOffersOf(Number(item.productId)));
      for (const offer of item.offers) {
        const row = storedOffer(offer.url);
        expect(offer.price.value).toBe(row.price);
        for (const alternative of offer.alternativePrices) {
          expect(alternativeUrls.get(alternative.url)).toBe(row.id);
          alternatives += 1;
        }
      }
    }
    expect(alternatives).toBeGreaterThan(0);
  });

  it('suggestions: lowestPrice is the cheapest available offer of every suggested product', async () => {
    const items: any[] = [];
    for (let offset = 0; ; offset += 30) {
      const response = await rest.get(
        `/suggestions?market=se&limit=30&offset=${offset}&fields=productId,lowestPrice(price.value,shop.id)`,
      );
      items.push(...response.body.data);
      if (response.body.data.length < 30) break;
    }
    const withOffers = new Set(seOffers.filter(isAvailable).map((row) => row.product_id));
    expect(items.length).toBe(withOffers.size);
    let hidden = 0;
    for (const item of items) {
      const id = Number(item.productId);
      const available = availableOffersOf(id);
      const cheapest = available[0]!;
      expect(item.lowestPrice.price.value, `product ${id}`).toBe(cheapest.price);
      const shops = available
        .filter((row) => row.price === cheapest.price)
        .map((row) => row.shop_id);
      expect(shops).toContain(item.lowestPrice.shop.id);
      const all = seOffers.filter((row) => row.product_id === id);
      if (minimum(all.map((row) => row.price))! < cheapest.price) hidden += 1;
    }
    expect(hidden).toBeGreaterThan(0); // the rule was put to the test
  });

  it('generic products: price.regular, alternative, in_stock and stock.status from available offers', async () => {
    const items: any[] = [];
    for (const offset of [0, 100, 200]) {
      const response = await rest.get(
        `/v1/products?market=se&limit=100&offset=${offset}&fields=id,price,stock`,
      );
      items.push(...response.body.items);
    }
    expect(items.length).toBeGreaterThan(200);
    for (const item of items) {
      const available = availableOffersOf(item.id);
      const prices = (rows: OfferRow[]) => minimum(rows.map((row) => row.price));
      expect(item.price, `product ${item.id}`).toEqual({
        regular: prices(available.filter((row) => row.condition === 'CONDITION_NEW')),
        alternative: prices(available.filter((row) => row.condition !== 'CONDITION_NEW')),
        in_stock: prices(available.filter((row) => row.stock_status === 'IN_STOCK')),
      });
      const statuses = available.map((row) => row.stock_status);
      expect(statuses).toContain(item.stock.status);
      if (statuses.includes('IN_STOCK')) expect(item.stock.status).toBe('IN_STOCK');
    }
  });

  it('generic category: lowest_price is the cheapest available offer below it', async () => {
    const db = rest.catalogue.database.db;
    const products = await db
      .selectFrom('products')
      .select('id')
      .where('category_id', '=', 3)
      .execute();
    const ids = new Set(products.map((row) => row.id));
    const expected = minimum(
      seOffers.filter((row) => ids.has(row.product_id) && isAvailable(row)).map((row) => row.price),
    );
    const response = await rest.get(
      '/v1/categories/3?market=se&fields=lowest_price,products_total',
    );
    expect(response.body.items[0].lowest_price).toBe(expected);
    const withOffers = new Set(
      seOffers
        .filter((row) => ids.has(row.product_id) && isAvailable(row))
        .map((r) => r.product_id),
    );
    expect(response.body.items[0].products_total).toBe(withOffers.size);
  });
});

// ---------------------------------------------------------------------------------------
// The ref rule (decisions 6)

describe('ref on offer URLs (decisions 6)', () => {
  const REF = 'x.y~z-1_';

  /** Every URL in an answer that stands for an offer or an alternative price. */
  function offerUrls(body: any): string[] {
    const urls: string[] = [];
    const visit = (value: any, key?: string) => {
      if (Array.isArray(value)) value.forEach((item) => visit(item));
      else if (value && typeof value === 'object') {
        for (const [name, item] of Object.entries(value)) visit(item, name);
      } else if (key === 'url' && typeof value === 'string') urls.push(value);
    };
    visit(body);
    return urls;
  }

  function expectCarriesRef(url: string, ref: string) {
    const parsed = new URL(url);
    expect(parsed.searchParams.getAll('ref'), url).toEqual([ref]);
    expect(url).toMatch(/[?&]ref=[A-Za-z0-9._~%-]+(&|#|$)/);
    const stored = storedUrl(url);
    const known = offersByUrl.has(stored) || alternativeUrls.has(stored);
    expect(known, `${url} is a stored URL plus ref`).toBe(true);
  }

  const ROUTES_WITH_OFFERS = [
    '/products?market=se&limit=5&fields=offers(url,alternativePrices)',
    '/products/48,41?market=se&fields=offers(url,alternativePrices)',
    '/products/48?market=se&fields=offers',
    '/v1/products/48?market=se&fields=offers',
    '/v1/products?market=se&limit=5&fields=offers',
    '/v1/categories/3/products?market=se&limit=5&fields=offers',
  ];

  it.each(ROUTES_WITH_OFFERS)(
    '%s: with ref, every offer and alternative price URL carries it',
    async (path) => {
      const response = await rest.get(`${path}&ref=${encodeURIComponent(REF)}`);
      expect(response.status, response.text).toBe(200);
      const urls = offerUrls(response.body);
      expect(urls.length).toBeGreaterThan(0);
      for (const url of urls) expectCarriesRef(url, REF);
    },
  );

  it.each(ROUTES_WITH_OFFERS)('%s: without ref, URLs as stored', async (path) => {
    const response = await rest.get(path);
    const urls = offerUrls(response.body);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      expect(offersByUrl.has(url) || alternativeUrls.has(url), url).toBe(true);
    }
  });

  it('a URL with a query string gets ref merged into it', async () => {
    const response = await rest.get(
      `/products?market=se&limit=15&fields=offers.alternativePrices.url&ref=${REF}`,
    );
    const urls = offerUrls(response.body).filter((url) => url.includes('variant='));
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) {
      const parsed = new URL(url);
      expect(parsed.search.startsWith('?')).toBe(true);
      expect(parsed.search.match(/\?/g)).toHaveLength(1);
      expect(parsed.searchParams.get('variant')).toMatch(/^\d+$/);
      expectCarriesRef(url, REF);
    }
  });

  it('partner search: every offer URL carries the partner’s ref', async () => {
    const response = await rest.partner(
      '/partner-search/products?market=se&ref=demo-ref&limit=30&fields=offers.url',
    );
    const urls = offerUrls(response.body);
    expect(urls.length).toBeGreaterThan(30);
    for (const url of urls) expectCarriesRef(url, 'demo-ref');
  });

  it('a ref that is not a sane id is a 400', async () => {
    for (const ref of ['a b', 'a&b', 'a/b', 'é', 'x'.repeat(65), '%00']) {
      const response = await rest.get(`/products/48?market=se&ref=${encodeURIComponent(ref)}`);
      const error = expectErrorBody(response, 400);
      expect(error.details).toContainEqual(expect.objectContaining({ parameter: 'ref' }));
    }
  });
});
