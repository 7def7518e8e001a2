/**
 * GraphiQL at /graphql: the page carries the examples, and every example runs on a seeded
 * catalogue as it stands, from its tab and from the combined default document.
 */
import { describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS, GRAPHIQL_OPTIONS } from '../../src/graph/graphiql.ts';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

/** Paths of what an example must show but does not: a null root field, an empty page. */
function gaps(value: unknown, path = 'data'): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0 && /\.(edges|marketPrices)$/.test(path)) return [path];
    return value.flatMap((item, index) => gaps(item, `${path}[${index}]`));
  }
  if (value === null) return path.split('.').length <= 2 ? [path] : [];
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => gaps(item, `${path}.${key}`));
  }
  return [];
}

function expectShown(body: GraphQLBody) {
  expect(body.errors).toBeUndefined();
  expect(body.data).toBeTruthy();
  expect(gaps(body.data)).toEqual([]);
}

describe('GraphiQL', () => {
  it('serves the page with its title, default document and one tab per example', async () => {
    const response = await catalogue.app.fetch(
      new Request('http://test/graphql', { headers: { accept: 'text/html' } }),
    );
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<title>${GRAPHIQL_OPTIONS.title}</title>`);
    // The options reach the page unaltered (yoga splices them in with String.replace).
    expect(html).toContain(JSON.stringify(GRAPHIQL_OPTIONS));
    expect(GRAPHIQL_OPTIONS.defaultTabs).toHaveLength(EXAMPLE_OPERATIONS.length);
    expect(EXAMPLE_OPERATIONS.map((example) => example.name)).toEqual([
      'ProductPage',
      'Search',
      'Deals',
      'CategoryBrowse',
      'CrossMarketComparison',
    ]);
  });

  describe.each(EXAMPLE_OPERATIONS.map((example) => [example.name, example] as const))(
    'the %s example',
    (name, example) => {
      it('runs from its tab with the variables the tab shows', async () => {
        const tab = GRAPHIQL_OPTIONS.defaultTabs.find(
          (candidate) => candidate.query === example.document,
        )!;
        expectShown(await catalogue.graphql(tab.query, JSON.parse(tab.variables)));
      });

      it('runs from the combined default document', async () => {
        const response = await catalogue.post({
          query: GRAPHIQL_OPTIONS.defaultQuery,
          operationName: name,
        });
        expectShown((await response.json()) as GraphQLBody);
      });
    },
  );

  it('compares a product across markets in their own currencies', async () => {
    const example = EXAMPLE_OPERATIONS.find(
      (candidate) => candidate.name === 'CrossMarketComparison',
    )!;
    const body = await catalogue.graphql<{
      product: { marketPrices: { market: string; lowestPrice: { currency: string } }[] };
    }>(example.document, example.variables);
    const prices = body.data!.product.marketPrices;
    expect(prices.length).toBeGreaterThanOrEqual(2);
    expect(new Set(prices.map((price) => price.market)).size).toBe(prices.length);
  });
});
