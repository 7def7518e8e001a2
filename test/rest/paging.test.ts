/**
 * Paging envelopes (spec 2.3, 4.5, section 8; decisions 10) on the first, a middle and the last
 * page, `limit=0`, an offset past the end; links are absolute URLs of the same route with the
 * same parameters; following them through a whole list collects each item exactly once.
 * Market nz: a list of a few dozen products, several pages of every size used here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_URL,
  expectShape,
  query,
  t,
  useRestCatalogue,
  type RestResponse,
} from '../helpers/rest.ts';

const rest = useRestCatalogue();

/** Products with an available offer in nz (decisions 5), from the raw offers table. */
let available: number[];

beforeAll(async () => {
  const rows = await rest.catalogue.database.db
    .selectFrom('offers')
    .select('product_id')
    .distinct()
    .where('market', '=', 'nz')
    .where('purchasable', '=', true)
    .where('stock_status', '!=', 'OUT_OF_STOCK')
    .execute();
  available = rows.map((row) => row.product_id).sort((a, b) => a - b);
  expect(available.length).toBeGreaterThan(40);
  expect(available.length).toBeLessThan(100);
});

/** A link is the same route with the same parameters, except `offset`. */
function expectLink(link: string | null, request: string, offset: number | null) {
  if (offset === null) {
    expect(link).toBeNull();
    return;
  }
  expect(link).not.toBeNull();
  const got = new URL(link!);
  const asked = new URL(`${BASE_URL}${request}`);
  expect(got.origin).toBe(asked.origin);
  expect(got.pathname).toBe(asked.pathname);
  expect(got.searchParams.get('offset')).toBe(String(offset));
  const others = (url: URL) =>
    [...url.searchParams]
      .filter(([name]) => name !== 'offset')
      .sort(([a], [b]) => a.localeCompare(b));
  expect(others(got)).toEqual(others(asked));
  expect(got.searchParams.getAll('offset')).toHaveLength(1);
}

const sortedNumbers = (values: unknown[]) => values.map(Number).sort((a, b) => a - b);

describe('partner search envelope (spec 2.3, decisions 10)', () => {
  const path = (params: Record<string, string | number>) =>
    `/partner-search/products${query({ market: 'nz', ref: 'demo-ref', fields: 'id', ...params })}`;

  async function page(params: Record<string, string | number>) {
    const request = path(params);
    const response = await rest.partner(request);
    expect(response.status, response.text).toBe(200);
    expectShape(
      response.body,
      t.object({
        links: t.object({ next: t.nullable(t.url), self: t.url, prev: t.nullable(t.url) }),
        paging: t.object({
          limit: t.integer,
          nextOffset: t.nullable(t.integer),
          offset: t.integer,
          prevOffset: t.nullable(t.integer),
        }),
        data: t.array(t.object({ id: t.integer })),
      }),
    );
    expect(response.body.links.self).toBe(`${BASE_URL}${request}`);
    return { request, body: response.body };
  }

  it('the first page: next, no prev', async () => {
    const { request, body } = await page({ limit: 25 });
    expect(body.data).toHaveLength(25);
    expect(body.paging).toEqual({ limit: 25, offset: 0, nextOffset: 25, prevOffset: null });
    expectLink(body.links.next, request, 25);
    expectLink(body.links.prev, request, null);
  });

  it('a middle page: next and prev', async () => {
    const { request, body } = await page({ limit: 25, offset: 25 });
    expect(body.data).toHaveLength(25);
    expect(body.paging).toEqual({ limit: 25, offset: 25, nextOffset: 50, prevOffset: 0 });
    expectLink(body.links.next, request, 50);
    expectLink(body.links.prev, request, 0);
  });

  it('an offset that is not a multiple of the limit: prevOffset is max(0, offset − limit)', async () => {
    const { request, body } = await page({ limit: 25, offset: 10 });
    expect(body.paging).toEqual({ limit: 25, offset: 10, nextOffset: 35, prevOffset: 0 });
    expectLink(body.links.prev, request, 0);
    const further = await page({ limit: 20, offset: 30 });
    expect(further.body.paging.prevOffset).toBe(10);
  });

  it('the last page: prev, no next', async () => {
    const last = Math.floor((available.length - 1) / 25) * 25;
    const { request, body } = await page({ limit: 25, offset: last });
    expect(body.data).toHaveLength(available.length - last);
    expect(body.paging).toEqual({
      limit: 25,
      offset: last,
      nextOffset: null,
      prevOffset: last - 25,
    });
    expectLink(body.links.next, request, null);
    expectLink(body.links.prev, request, last - 25);
  });

  it('a last page that is exactly full has no next', async () => {
    const half = Math.floor(available.length / 2);
    const { body } = await page({ limit: available.length - half, offset: half });
    expect(body.data).toHaveLength(available.length - half);
    expect(body.paging.nextOffset).toBeNull();
    expect(body.links.next).toBeNull();
  });

  it('limit=0: empty data, the request echoed', async () => {
    const { body } = await page({ limit: 0 });
    expect(body.data).toEqual([]);
    expect(body.paging.limit).toBe(0);
    expect(body.paging.offset).toBe(0);
    expect(body.paging.prevOffset).toBeNull();
    expect(body.links.prev).toBeNull();
  });

  it('an offset past the end: empty data, next null, prev one page back', async () => {
    const { request, body } = await page({ limit: 25, offset: 1000 });
    expect(body.data).toEqual([]);
    expect(body.paging).toEqual({ limit: 25, offset: 1000, nextOffset: null, prevOffset: 975 });
    expectLink(body.links.next, request, null);
    expectLink(body.links.prev, request, 975);
  });

  it('links keep every other parameter, including ones the route ignores', async () => {
    const { request, body } = await page({ limit: 5, offset: 5, cachebuster: 'x y' });
    expectLink(body.links.next, request, 10);
    expectLink(body.links.prev, request, 0);
  });

  it('following links.next collects every available product exactly once', async () => {
    const seen: number[] = [];
    let link: string | null = `${BASE_URL}${path({ limit: 15 })}`;
    let pages = 0;
    while (link !== null && pages++ < 20) {
      const response: RestResponse = await rest.partner(link.slice(BASE_URL.length));
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((product: any) => product.id));
      link = response.body.links.next;
    }
    expect(link).toBeNull();
    expect(new Set(seen).size).toBe(seen.length);
    expect(sortedNumbers(seen)).toEqual(available);
  });

  it('one product pages its offers with limit and offset', async () => {
    const all = await rest.partner('/partner-search/products/41?market=se&ref=demo-ref&limit=100');
    const offers = all.body.offers.map((offer: any) => offer.url);
    expect(offers.length).toBeGreaterThan(10);
    const first = await rest.partner('/partner-search/products/41?market=se&ref=demo-ref&limit=10');
    const second = await rest.partner(
      '/partner-search/products/41?market=se&ref=demo-ref&limit=10&offset=10',
    );
    expect(first.body.offers.map((offer: any) => offer.url)).toEqual(offers.slice(0, 10));
    expect(second.body.offers.map((offer: any) => offer.url)).toEqual(offers.slice(10, 20));
  });
});

describe('products list links (spec 4.5, decisions 10)', () => {
  const path = (params: Record<string, string | number>) =>
    `/products${query({ market: 'nz', fields: 'productId', ...params })}`;

  async function page(params: Record<string, string | number>) {
    const request = path(params);
    const response = await rest.get(request);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)).toEqual(['links', 'data']);
    expect(Object.keys(response.body.links).sort()).toEqual(['next', 'prev', 'self']);
    expect(response.body.links.self).toBe(`${BASE_URL}${request}`);
    return { request, body: response.body };
  }

  it('first, middle and last page', async () => {
    const first = await page({ limit: 15 });
    expect(first.body.data).toHaveLength(15);
    expectLink(first.body.links.next, first.request, 15);
    expectLink(first.body.links.prev, first.request, null);

    const middle = await page({ limit: 15, offset: 15 });
    expect(middle.body.data).toHaveLength(15);
    expectLink(middle.body.links.next, middle.request, 30);
    expectLink(middle.body.links.prev, middle.request, 0);

    const lastOffset = Math.floor((available.length - 1) / 15) * 15;
    const last = await page({ limit: 15, offset: lastOffset });
    expect(last.body.data).toHaveLength(available.length - lastOffset);
    expectLink(last.body.links.next, last.request, null);
    expectLink(last.body.links.prev, last.request, lastOffset - 15);
  });

  it('limit=0 and an offset past the end: empty data', async () => {
    expect((await page({ limit: 0 })).body.data).toEqual([]);
    const past = await page({ offset: 500 });
    expect(past.body.data).toEqual([]);
    expect(past.body.links.next).toBeNull();
    expectLink(past.body.links.prev, past.request, 490);
  });

  it('following links.next collects every available product exactly once', async () => {
    const seen: string[] = [];
    let link: string | null = `${BASE_URL}${path({ limit: 15 })}`;
    let pages = 0;
    while (link !== null && pages++ < 20) {
      const response: RestResponse = await rest.get(link.slice(BASE_URL.length));
      seen.push(...response.body.data.map((product: any) => product.productId));
      link = response.body.links.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(sortedNumbers(seen)).toEqual(available);
  });
});

describe('generic convention (spec section 8, decisions 10)', () => {
  async function page(request: string) {
    const response = await rest.get(request);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['items', 'meta']);
    expect(Object.keys(response.body.meta).sort()).toEqual(['items_total', 'paging']);
    expect(Object.keys(response.body.meta.paging).sort()).toEqual(['next', 'prev']);
    return { request, body: response.body };
  }
  const products = (params: Record<string, string | number>) =>
    `/v1/products${query({ market: 'nz', fields: 'id', ...params })}`;

  it('items_total counts the whole list', async () => {
    const { body } = await page(products({ limit: 5 }));
    expect(body.meta.items_total).toBe(available.length);
  });

  it('first, middle and last page: next and prev URIs or null', async () => {
    const first = await page(products({ limit: 20 }));
    expect(first.body.items).toHaveLength(20);
    expectLink(first.body.meta.paging.next, first.request, 20);
    expectLink(first.body.meta.paging.prev, first.request, null);

    const middle = await page(products({ limit: 20, offset: 20 }));
    expectLink(middle.body.meta.paging.next, middle.request, 40);
    expectLink(middle.body.meta.paging.prev, middle.request, 0);

    const lastOffset = Math.floor((available.length - 1) / 20) * 20;
    const last = await page(products({ limit: 20, offset: lastOffset }));
    expect(last.body.items).toHaveLength(available.length - lastOffset);
    expectLink(last.body.meta.paging.next, last.request, null);
    expectLink(last.body.meta.paging.prev, last.request, lastOffset - 20);
  });

  it('a whole list smaller than the limit: next and prev both null', async () => {
    const { body } = await page(products({ limit: 100 }));
    expect(body.items).toHaveLength(available.length);
    expect(body.meta.paging).toEqual({ next: null, prev: null });
  });

  it('the default limit is 30', async () => {
    const { request, body } = await page(products({}));
    expect(body.items).toHaveLength(30);
    expectLink(body.meta.paging.next, request, 30);
  });

  it('limit=0 and an offset past the end: no items', async () => {
    expect((await page(products({ limit: 0 }))).body.items).toEqual([]);
    const past = await page(products({ offset: 1000 }));
    expect(past.body.items).toEqual([]);
    expect(past.body.meta.paging.next).toBeNull();
    expect(past.body.meta.items_total).toBe(available.length);
  });

  it('following meta.paging.next collects every product once', async () => {
    const seen: number[] = [];
    let link: string | null = `${BASE_URL}${products({ limit: 25 })}`;
    let pages = 0;
    while (link !== null && pages++ < 20) {
      const { body } = await page(link.slice(BASE_URL.length));
      seen.push(...body.items.map((item: any) => item.id));
      link = body.meta.paging.next;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(sortedNumbers(seen)).toEqual(available);
  });

  it('a category’s products: pages cover the category and everything below it once', async () => {
    const request = `/v1/categories/1/products${query({ market: 'nz', fields: 'id,category(id,path)', limit: 100 })}`;
    const { body } = await page(request);
    const ids = body.items.map((item: any) => item.id);
    expect(body.meta.items_total).toBe(ids.length);
    expect(ids.length).toBeGreaterThan(0);
    for (const item of body.items) {
      expect(item.category.id === '1' || '1' in item.category.path).toBe(true);
    }
    const seen: number[] = [];
    let link: string | null = `${BASE_URL}/v1/categories/1/products?market=nz&fields=id&limit=9`;
    let pages = 0;
    while (link !== null && pages++ < 30) {
      const next = await page(link.slice(BASE_URL.length));
      expect(next.body.meta.items_total).toBe(ids.length);
      seen.push(...next.body.items.map((item: any) => item.id));
      link = next.body.meta.paging.next;
    }
    expect(seen).toEqual(ids);
  });

  it('/v1/categories pages the same way', async () => {
    const all = await page('/v1/categories?market=nz&fields=id&limit=100');
    const ids = all.body.items.map((item: any) => item.id);
    expect(ids.length).toBeGreaterThan(3);
    expect(new Set(ids).size).toBe(ids.length);
    const seen: string[] = [];
    let link: string | null = `${BASE_URL}/v1/categories?market=nz&fields=id&limit=4`;
    let pages = 0;
    while (link !== null && pages++ < 40) {
      const next = await page(link.slice(BASE_URL.length));
      seen.push(...next.body.items.map((item: any) => item.id));
      link = next.body.meta.paging.next;
    }
    expect(seen).toEqual(ids);
  });
});

describe('lists without links page by offset all the same', () => {
  it('suggestions: consecutive pages list every suggested product once', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < available.length + 7; offset += 7) {
      const response = await rest.get(
        `/suggestions?market=nz&limit=7&offset=${offset}&fields=productId`,
      );
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((item: any) => item.productId));
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(sortedNumbers(seen)).toEqual(available);
  });

  it('categories: consecutive pages equal one big page', async () => {
    const all = await rest.get('/categories?market=se&q=b&limit=30&fields=id');
    const ids = all.body.data.map((item: any) => item.id);
    const seen: string[] = [];
    for (let offset = 0; offset <= ids.length; offset += 1) {
      const response = await rest.get(
        `/categories?market=se&q=b&limit=1&offset=${offset}&fields=id`,
      );
      seen.push(...response.body.data.map((item: any) => item.id));
    }
    expect(seen).toEqual(ids);
  });
});
