/**
 * The Relay cursor connections specification on every connection of the schema: `last`
 * without `before` is the list's last items (not a refusal), equal to the same items paged
 * forward; and `nodes(ids:)` answers each id on its own (a malformed or unknown one is null
 * with an error at its path, the others resolve).
 */
import { encodeGlobalID, offsetToCursor } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

async function data(query: string, variables?: Record<string, unknown>) {
  const body = await catalogue.graphql(query, variables);
  expect(body.errors).toBeUndefined();
  return body.data;
}

const PAGE = 'totalCount pageInfo { hasPreviousPage hasNextPage } edges { cursor node { id } }';

/** The connection at `path` asked with `last: 3`, and the same items asked forward. */
async function lastAndForward(template: (args: string) => string, path: (data: any) => any) {
  const fromEnd = path(await data(template(`last: 3`)));
  const total: number = fromEnd.totalCount;
  const start = Math.max(total - 3, 0);
  const after = start > 0 ? `, after: "${offsetToCursor(start - 1)}"` : '';
  const forward = path(await data(template(`first: 3${after}`)));
  return { fromEnd, forward, total };
}

function expectSameItems({ fromEnd, forward, total }: Awaited<ReturnType<typeof lastAndForward>>) {
  expect(total).toBeGreaterThan(3);
  expect(fromEnd.edges).toHaveLength(3);
  expect(fromEnd.edges).toEqual(forward.edges);
  expect(fromEnd.pageInfo).toEqual({ hasPreviousPage: true, hasNextPage: false });
}

describe('last without before: the last items of the list', () => {
  it('products (a listing, and a search)', async () => {
    expectSameItems(
      await lastAndForward(
        (args) => `{ products(market: SE, ${args}) { ${PAGE} } }`,
        (d) => d.products,
      ),
    );
    expectSameItems(
      await lastAndForward(
        (args) => `{ products(market: SE, query: "samsung", ${args}) { ${PAGE} } }`,
        (d) => d.products,
      ),
    );
  });

  it('products by ids: the last of those given', async () => {
    const ids = [5, 3, 9, 1, 7];
    const page = (await data(`{ products(market: SE, ids: [${ids}], last: 2) { ${PAGE} } }`))
      .products;
    const forward = (await data(`{ products(market: SE, ids: [9, 1, 7]) { ${PAGE} } }`)).products;
    expect(page.edges.map((e: any) => e.node.id)).toEqual(
      forward.edges.slice(1).map((e: any) => e.node.id),
    );
  });

  it('categories (the whole tree)', async () => {
    expectSameItems(
      await lastAndForward(
        (args) => `{ categories(market: SE, ${args}) { ${PAGE} } }`,
        (d) => d.categories,
      ),
    );
  });

  it('Product.offers and Shop.offers', async () => {
    expectSameItems(
      await lastAndForward(
        (args) => `{ product(market: SE, id: 48) { offers(${args}) { ${PAGE} } } }`,
        (d) => d.product.offers,
      ),
    );
    const shop = (
      await data(
        '{ product(market: SE, id: 48) { offers { edges { node { shop { shopId } } } } } }',
      )
    ).product.offers.edges[0].node.shop.shopId;
    expectSameItems(
      await lastAndForward(
        (args) => `{ shop(id: ${shop}) { offers(${args}) { ${PAGE} } } }`,
        (d) => d.shop.offers,
      ),
    );
  });

  it('Category.products, for several categories of other lengths in one request', async () => {
    const template = (args: string) =>
      `{ a: category(market: SE, id: 1) { products(${args}) { ${PAGE} } }
         b: category(market: SE, slug: "laptops") { products(${args}) { ${PAGE} } } }`;
    for (const alias of ['a', 'b']) {
      expectSameItems(await lastAndForward(template, (d) => d[alias].products));
    }
    const both = await data(template('last: 3'));
    expect(both.a.products.totalCount).not.toBe(both.b.products.totalCount);
  });

  it('after and last: the last items after the cursor; before and last as before', async () => {
    const all = (await data(`{ categories(market: SE, first: 100) { ${PAGE} } }`)).categories;
    const afterSome = (
      await data(`{ categories(market: SE, after: "${offsetToCursor(1)}", last: 2) { ${PAGE} } }`)
    ).categories;
    expect(afterSome.edges).toEqual(all.edges.slice(-2));
    const before = (
      await data(`{ categories(market: SE, before: "${offsetToCursor(5)}", last: 2) { ${PAGE} } }`)
    ).categories;
    expect(before.edges).toEqual(all.edges.slice(3, 5));
  });
});

describe('nodes(ids:)', () => {
  it('answers null with an error at the position of a malformed or unknown id', async () => {
    const product = encodeGlobalID('Product', 'se:48');
    const offer = (await data('{ product(market: SE, id: 48) { lowestOffer { id } } }')).product
      .lowestOffer.id;
    const ids = [
      product,
      'not a global id',
      encodeGlobalID('Product', 'se:99999999'),
      encodeGlobalID('Market', 'se'),
      offer,
    ];
    const body = await catalogue.graphql(
      'query ($ids: [ID!]!) { nodes(ids: $ids) { id ... on Product { productId } } }',
      { ids },
    );
    expect(body.data?.nodes).toEqual([
      { id: product, productId: 48 },
      null,
      null,
      null,
      { id: offer },
    ]);
    const errors = (body.errors ?? []).map((error) => ({
      path: error.path,
      code: error.extensions?.code,
    }));
    expect(errors).toEqual(
      expect.arrayContaining([
        { path: ['nodes', 1], code: 'BAD_USER_INPUT' },
        { path: ['nodes', 2], code: 'NOT_FOUND' },
        { path: ['nodes', 3], code: 'BAD_USER_INPUT' },
      ]),
    );
    expect(errors).toHaveLength(3);
  });
});
