/**
 * Offset cursors seen from a client: following endCursor page by page visits every item
 * exactly once, in the order of the single big page, and the bounds of `first` and `after`
 * are input errors.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

interface Page {
  totalCount: number;
  pageInfo: {
    hasNextPage: boolean;
    hasPreviousPage: boolean;
    startCursor: string | null;
    endCursor: string | null;
  };
  edges: { cursor: string; node: { id: string } }[];
}

const PAGE_FIELDS = `totalCount
  pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
  edges { cursor node { id } }`;

const MARKET_PRODUCTS = `query ($first: Int, $after: String) {
  page: products(market: NO, first: $first, after: $after) { ${PAGE_FIELDS} }
}`;

const PRODUCT_OFFERS = `query ($id: Int!, $first: Int, $after: String) {
  product(market: SE, id: $id) { page: offers(first: $first, after: $after) { ${PAGE_FIELDS} } }
}`;

type Fetch = (variables: { first: number; after?: string | null }) => Promise<GraphQLBody>;

async function pageOf(fetch: Fetch, first: number, after?: string | null): Promise<Page> {
  const body = await fetch({ first, after });
  expect(body.errors).toBeUndefined();
  const data = body.data as { page?: Page; product?: { page: Page } };
  return data.page ?? data.product!.page;
}

/** Follows endCursor from the start until hasNextPage is false. */
async function walk(fetch: Fetch, first: number) {
  const ids: string[] = [];
  const pages: Page[] = [];
  let after: string | null = null;
  for (;;) {
    const page = await pageOf(fetch, first, after);
    pages.push(page);
    ids.push(...page.edges.map((edge) => edge.node.id));
    if (!page.pageInfo.hasNextPage) return { ids, pages };
    expect(page.edges).toHaveLength(first);
    after = page.pageInfo.endCursor;
    expect(pages.length).toBeLessThan(1000);
  }
}

function expectWalkCoversTheList(
  walked: { ids: string[]; pages: Page[] },
  single: Page,
  first: number,
) {
  const all = single.edges.map((edge) => edge.node.id);
  expect(single.pageInfo.hasNextPage).toBe(false);
  expect(all).toHaveLength(single.totalCount);
  expect(new Set(all).size).toBe(all.length);
  expect(walked.ids).toEqual(all);
  expect(walked.pages).toHaveLength(Math.max(1, Math.ceil(all.length / first)));
  walked.pages.forEach((page, index) => {
    expect(page.totalCount).toBe(single.totalCount);
    expect(page.pageInfo.hasPreviousPage).toBe(index > 0);
    expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
    expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
  });
}

describe('paging a market’s products', () => {
  const fetch: Fetch = (variables) => catalogue.graphql(MARKET_PRODUCTS, variables);

  it('with first: 7 visits every product once, as one big page lists them', async () => {
    const single = await pageOf(fetch, 250);
    expect(single.totalCount).toBeGreaterThan(7 * 3);
    expect(single.totalCount).toBeLessThanOrEqual(250);
    expectWalkCoversTheList(await walk(fetch, 7), single, 7);
  });

  it('answers first: 0 with no edges but the count and whether items exist', async () => {
    const page = await pageOf(fetch, 0);
    expect(page.edges).toEqual([]);
    expect(page.totalCount).toBeGreaterThan(0);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: false,
      startCursor: null,
      endCursor: null,
    });
  });
});

describe('paging a product’s offers', () => {
  let productId: number;
  const fetch: Fetch = (variables) =>
    catalogue.graphql(PRODUCT_OFFERS, { id: productId, ...variables });

  beforeAll(async () => {
    // The product with the most offers in SE.
    const body = await catalogue.graphql<{
      products: { edges: { node: { productId: number; offers: { totalCount: number } } }[] };
    }>(`{ products(market: SE, first: 250) {
        edges { node { productId offers(first: 0) { totalCount } } } } }`);
    const best = body
      .data!.products.edges.map((edge) => edge.node)
      .sort((a, b) => b.offers.totalCount - a.offers.totalCount)[0]!;
    expect(best.offers.totalCount).toBeGreaterThanOrEqual(3);
    productId = best.productId;
  });

  it('with first: 2 visits every offer once, cheapest first', async () => {
    const single = await pageOf(fetch, 100);
    expectWalkCoversTheList(await walk(fetch, 2), single, 2);
  });

  it('after the last offer answers an empty last page', async () => {
    const single = await pageOf(fetch, 100);
    const past = await pageOf(fetch, 5, single.pageInfo.endCursor);
    expect(past.edges).toEqual([]);
    expect(past.pageInfo.hasNextPage).toBe(false);
  });

  it('keeps totalCount on a page past the end', async () => {
    const single = await pageOf(fetch, 100);
    const past = await pageOf(fetch, 5, single.pageInfo.endCursor);
    expect(past.totalCount).toBe(single.totalCount);
  });
});

describe('page bounds', () => {
  const errorOf = async (query: string, variables: Record<string, unknown>) => {
    const body = await catalogue.graphql(query, variables);
    expect(body.errors).toHaveLength(1);
    return body.errors![0]!;
  };

  it('refuses a page larger than the field’s maximum', async () => {
    const products = await errorOf(MARKET_PRODUCTS, { first: 251 });
    expect(products.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(products.message).toBe('first must be between 0 and 250');
    // Refused before execution (test/graph/argument-bounds.test.ts): at no field's path.
    expect(products.path).toBeUndefined();

    const offers = await errorOf(PRODUCT_OFFERS, { id: 1, first: 251 });
    expect(offers.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(offers.message).toBe('first must be between 0 and 250');
  });

  it('refuses a negative page size', async () => {
    const error = await errorOf(MARKET_PRODUCTS, { first: -1 });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it.each([
    'nonsense',
    '',
    'T2Zmc2V0Q29ubmVjdGlvbjotMQ==',
    btoa('SomethingElse:3'),
    btoa('OffsetConnection:abc'),
  ])('refuses a malformed after cursor %j', async (after) => {
    const error = await errorOf(MARKET_PRODUCTS, { first: 5, after });
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(error.message).toBe('after is not a cursor of this list');
  });
});
