/**
 * The pictures the service draws and serves (src/images): the URLs GraphQL and REST answers
 * give lead to SVGs served here, with long caching, ETags and 304s, 404 and 400 as other
 * routes answer them, one statement each; names are escaped, and the same product gives the
 * same bytes.
 */
import { SaxesParser } from 'saxes';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { sendRaw, serveApp } from '../helpers/raw-http.ts';
import { BASE_URL, useRestCatalogue, type RestResponse } from '../helpers/rest.ts';

const rest = useRestCatalogue();

/** A path on the service from a URL an answer gave, which must be on the public base. */
function pathOf(url: string): string {
  expect(url.startsWith(`${BASE_URL}/`)).toBe(true);
  return url.slice(BASE_URL.length);
}

/** The picture at a URL an answer gave: a 200 SVG. */
async function picture(url: string): Promise<RestResponse> {
  const answer = await rest.get(pathOf(url));
  expect(answer.status).toBe(200);
  expect(answer.headers.get('content-type')).toBe('image/svg+xml');
  return answer;
}

/** The SVG's well-formedness (saxes throws otherwise), its root and the text of its `<title>`. */
function parsed(svg: string): { root: string; title: string; texts: string[] } {
  const parser = new SaxesParser({ xmlns: true });
  const open: string[] = [];
  let root = '';
  let title = '';
  const texts: string[] = [];
  parser.on('opentag', (tag) => {
    if (open.length === 0) root = tag.name;
    open.push(tag.name);
  });
  parser.on('closetag', () => open.pop());
  parser.on('text', (text) => {
    if (open.at(-1) === 'title') title += text;
    else texts.push(text);
  });
  parser.write(svg).close();
  return { root, title, texts };
}

interface ListedProduct {
  productId: string;
  productName: string;
  brand: { name: string } | null;
  images: { small: string; large: string };
  offers: { shop: { id: number; name: string; logo: { small: string; large: string } } }[];
}

let listed: ListedProduct[];

beforeAll(async () => {
  const page = await rest.get('/products?market=se&limit=5&fields=*,brand');
  expect(page.status).toBe(200);
  listed = page.body.data;
  expect(listed.length).toBe(5);
});

describe('URLs in answers', () => {
  it('REST product items and their offers’ shops give pictures this service serves', async () => {
    for (const product of listed) {
      expect(product.images).toEqual({
        small: `${BASE_URL}/images/products/${product.productId}/small.svg`,
        large: `${BASE_URL}/images/products/${product.productId}/large.svg`,
      });
      const small = parsed((await picture(product.images.small)).text);
      expect(small.root).toBe('svg');
      expect(small.title).toBe(product.productName);
      expect(small.texts).toContain(product.brand!.name);
    }
    const shop = listed.flatMap((product) => product.offers)[0]!.shop;
    expect(shop.logo.small).toBe(`${BASE_URL}/images/shops/${shop.id}/logo.svg`);
    expect(shop.logo.large).toBe(shop.logo.small);
    const logo = parsed((await picture(shop.logo.large)).text);
    expect(logo.title).toBe(shop.name);
  });

  it('GraphQL gives the same URLs for a product and an offer’s shop', async () => {
    const id = Number(listed[0]!.productId);
    const data = await rest.graphqlData(
      `query ($id: Int!) { product(id: $id, market: SE) {
         name images { small large } offers(first: 1) { edges { node { shop { shopId name logo { small large } } } } }
       } }`,
      { id },
    );
    expect(data.product.images).toEqual(listed[0]!.images);
    const large = await picture(data.product.images.large);
    expect(parsed(large.text).title).toBe(data.product.name);
    const shop = data.product.offers.edges[0].node.shop;
    expect(shop.logo.small).toBe(`${BASE_URL}/images/shops/${shop.shopId}/logo.svg`);
    expect(parsed((await picture(shop.logo.small)).text).title).toBe(shop.name);
  });
});

describe('the picture routes', () => {
  it('draw the sizes alike, with a long Cache-Control and one statement each', async () => {
    const { productId } = listed[0]!;
    const { statements } = rest.catalogue.database;
    statements.length = 0;
    const small = await rest.get(`/images/products/${productId}/small.svg`);
    expect(statements).toHaveLength(1);
    const large = await rest.get(`/images/products/${productId}/large.svg`);
    expect(small.headers.get('cache-control')).toBe('public, max-age=86400');
    expect(small.text).toContain('width="200" height="200"');
    expect(large.text).toContain('width="800" height="800"');
    expect(large.text.replace('width="800" height="800"', 'width="200" height="200"')).toBe(
      small.text,
    );
    statements.length = 0;
    const logo = await rest.get(`/images/shops/${listed[0]!.offers[0]!.shop.id}/logo.svg`);
    expect(logo.status).toBe(200);
    expect(statements).toHaveLength(1);
  });

  it('answer the same bytes and ETag every time, and 304 to a matching If-None-Match', async () => {
    const path = `/images/products/${listed[1]!.productId}/large.svg`;
    const first = await rest.get(path);
    const again = await rest.get(path);
    expect(again.text).toBe(first.text);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect(again.headers.get('etag')).toBe(etag);
    const unchanged = await rest.get(path, { headers: { 'if-none-match': etag } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.text).toBe('');
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('cache-control')).toBe('public, max-age=86400');
    const other = await rest.get(path, { headers: { 'if-none-match': '"stale"' } });
    expect(other.status).toBe(200);
    const head = await rest.request('HEAD', path);
    expect([head.status, head.headers.get('etag')]).toEqual([200, etag]);
  });

  it('show each category’s pictogram: a phone and a bicycle differ', async () => {
    const { rows } = await sql<{ slug: string; id: number }>`
      select distinct on (c.slug) c.slug, p.id from products p
        join categories c on c.id = p.category_id
       where c.slug in ('mobile-phones', 'bicycles') order by c.slug, p.id`.execute(
      rest.catalogue.database.db,
    );
    expect(rows.map((row) => row.slug)).toEqual(['bicycles', 'mobile-phones']);
    const [bicycle, phone] = await Promise.all(
      rows.map((row) => rest.get(`/images/products/${row.id}/small.svg`)),
    );
    const drawing = (svg: string) => /<g transform[^>]*>(.*?)<\/g>/.exec(svg)![1];
    expect(drawing(bicycle!.text)).toContain('<circle cx="26" cy="62" r="16"/>');
    expect(drawing(phone!.text)).not.toBe(drawing(bicycle!.text));
  });

  it('answer 404 for an unknown product or shop, 400 for an id that is not one', async () => {
    for (const path of [
      '/images/products/2000000000/small.svg',
      '/images/shops/2000000000/logo.svg',
    ]) {
      const answer = await rest.get(path);
      expect(answer.status).toBe(404);
      expect(answer.body.error.code).toBe('http.404');
      expect(answer.body.error.request_id).toEqual(expect.any(String));
    }
    for (const [id, reason] of [
      ['abc', 'not_an_integer'],
      ['-1', 'not_an_integer'],
      ['0', 'out_of_range'],
      ['2147483648', 'out_of_range'],
    ]) {
      const answer = await rest.get(`/images/products/${id}/small.svg`);
      expect(answer.status).toBe(400);
      expect(answer.body.error.details).toEqual([{ parameter: 'id', reason }]);
      expect((await rest.get(`/images/shops/${id}/logo.svg`)).status).toBe(400);
    }
    expect((await rest.get(`/images/products/${listed[0]!.productId}/medium.svg`)).status).toBe(
      404,
    );
  });

  it('escape names: a hostile product, brand and shop name is text, and changes the ETag', async () => {
    const { db } = rest.catalogue.database;
    const product = listed[2]!;
    const shopId = product.offers[0]!.shop.id;
    const path = `/images/products/${product.productId}/large.svg`;
    const before = await rest.get(path);
    const name = `Tom & Jerry <script>alert("x")</script> 'n' ]]> <!-- é`;
    const brand = `B&O <b>"Beo"</b>`;
    await sql`update products set name = ${name} where id = ${Number(product.productId)}`.execute(
      db,
    );
    await sql`update brands set name = ${brand}
               where id = (select brand_id from products where id = ${Number(product.productId)})`.execute(
      db,
    );
    await sql`update shops set name = ${name} where id = ${shopId}`.execute(db);
    const after = await rest.get(path);
    expect(after.status).toBe(200);
    expect(after.text).not.toContain('<script');
    expect(after.text).not.toContain('<b>');
    const drawn = parsed(after.text);
    expect(drawn.title).toBe(name);
    expect(drawn.texts).toContain(brand);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const logo = await rest.get(`/images/shops/${shopId}/logo.svg`);
    expect(parsed(logo.text).title).toBe(name);
    expect(logo.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'unsafe-inline'",
    );
  });

  it('count against the caller’s request limit, as the REST routes do', async () => {
    const served = await serveApp(rest.catalogue.database, {
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '2',
    });
    try {
      const target = `/images/products/${listed[0]!.productId}/small.svg`;
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await sendRaw(served.port, { method: 'GET', target })).status);
      }
      expect(statuses).toEqual([200, 200, 429]);
    } finally {
      await served.close();
    }
  });
});
