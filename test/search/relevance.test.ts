/**
 * The relevance test set (issue 13, cases in relevance-cases.ts), through both public ways to
 * search: REST /suggestions?product= and GraphQL products(query:), the first five results of
 * each. The file ends by printing how many cases put the expected product first and within
 * the top five, per interface, for the closing note.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { databaseKind } from '../helpers/database.ts';
import { useRestCatalogue } from '../helpers/rest.ts';
import { RELEVANCE_CASES, type ExpectedProduct, type RelevanceCase } from './relevance-cases.ts';

const rest = useRestCatalogue();

/** A result as both interfaces describe it: name, brand, leaf category slug. */
interface Found {
  name: string;
  brand: string | null;
  categorySlug: string;
}

interface CatalogueFacts {
  /** Leaf category slug → its slug and its ancestors' slugs. */
  categoryPath: Map<string, Set<string>>;
  categorySlugById: Map<number, string>;
  /** What each market sells (a summary row: an available offer there). */
  productsByMarket: Map<string, Found[]>;
}

let facts: CatalogueFacts;

beforeAll(async () => {
  const db = rest.catalogue.database.db;
  const categories = await db
    .selectFrom('categories')
    .select(['id', 'parent_id', 'slug'])
    .execute();
  const byId = new Map(categories.map((category) => [category.id, category]));
  const categoryPath = new Map<string, Set<string>>();
  for (const category of categories) {
    const path = new Set<string>();
    for (let at: typeof category | undefined = category; at; at = byId.get(at.parent_id ?? 0)) {
      path.add(at.slug);
    }
    categoryPath.set(category.slug, path);
  }
  const sold = await db
    .selectFrom('product_market_summaries as s')
    .innerJoin('products as p', 'p.id', 's.product_id')
    .innerJoin('categories as c', 'c.id', 'p.category_id')
    .leftJoin('brands as b', 'b.id', 'p.brand_id')
    .select(['s.market', 'p.name', 'b.name as brand', 'c.slug as categorySlug'])
    .execute();
  const productsByMarket = new Map<string, Found[]>();
  for (const { market, ...product } of sold) {
    productsByMarket.set(market, [...(productsByMarket.get(market) ?? []), product]);
  }
  facts = {
    categoryPath,
    categorySlugById: new Map(categories.map(({ id, slug }) => [id, slug])),
    productsByMarket,
  };
});

function isExpected(found: Found, expected: ExpectedProduct): boolean {
  return (
    (expected.name === undefined || found.name.includes(expected.name)) &&
    (expected.brand === undefined || found.brand === expected.brand) &&
    (expected.category === undefined ||
      (facts.categoryPath.get(found.categorySlug)?.has(expected.category) ?? false))
  );
}

function expectation(relevanceCase: RelevanceCase): ExpectedProduct | undefined {
  if ('first' in relevanceCase) return relevanceCase.first;
  if ('topFive' in relevanceCase) return relevanceCase.topFive;
  return undefined;
}

function describeCase(relevanceCase: RelevanceCase): string {
  const expected = expectation(relevanceCase);
  const what = expected ? JSON.stringify(expected) : 'nothing';
  const where = 'first' in relevanceCase ? 'first' : 'topFive' in relevanceCase ? 'top five' : '';
  return `${relevanceCase.market} "${relevanceCase.query}" (${relevanceCase.rule}) → ${what} ${where}`;
}

interface SuggestionItem {
  productName: string;
  brand: { name: string } | null;
  category: { id: string };
}

interface ProductsData {
  products: {
    edges: { node: { name: string; brand: { name: string } | null; category: { slug: string } } }[];
  };
}

const interfaces = {
  'REST /suggestions?product=': async ({ market, query }: RelevanceCase): Promise<Found[]> => {
    const response = await rest.get<{ data: SuggestionItem[] }>(
      `/suggestions?${new URLSearchParams({ market, product: query, limit: '5' })}`,
    );
    expect(response.status, response.text).toBe(200);
    return response.body.data.map((item) => ({
      name: item.productName,
      brand: item.brand?.name ?? null,
      categorySlug: facts.categorySlugById.get(Number(item.category.id))!,
    }));
  },
  'GraphQL products(query:)': async ({ market, query }: RelevanceCase): Promise<Found[]> => {
    const data = await rest.graphqlData<ProductsData>(
      `query Search($market: Market!, $query: String!) {
        products(market: $market, query: $query, first: 5) {
          edges { node { name brand { name } category { slug } } }
        }
      }`,
      { market: market.toUpperCase(), query },
    );
    return data.products.edges.map(({ node }) => ({
      name: node.name,
      brand: node.brand?.name ?? null,
      categorySlug: node.category.slug,
    }));
  },
} satisfies Record<string, (relevanceCase: RelevanceCase) => Promise<Found[]>>;

type InterfaceName = keyof typeof interfaces;

/** Per interface and case: where the expected product came (0-based), or whether none came. */
const outcomes = new Map<InterfaceName, Map<RelevanceCase, number | 'absent' | 'empty'>>();

test('the set has at least 60 cases across all seven markets, each about what its market sells', () => {
  expect(RELEVANCE_CASES.length).toBeGreaterThanOrEqual(60);
  expect(new Set(RELEVANCE_CASES.map(({ market }) => market)).size).toBe(7);
  const unsold = RELEVANCE_CASES.filter((relevanceCase) => {
    const expected = expectation(relevanceCase);
    const sold = facts.productsByMarket.get(relevanceCase.market) ?? [];
    return expected !== undefined && !sold.some((product) => isExpected(product, expected));
  });
  expect(unsold.map(describeCase)).toEqual([]);
});

for (const [interfaceName, search] of Object.entries(interfaces) as [
  InterfaceName,
  (typeof interfaces)[InterfaceName],
][]) {
  const results = new Map<RelevanceCase, number | 'absent' | 'empty'>();
  outcomes.set(interfaceName, results);

  describe(interfaceName, () => {
    test.each(RELEVANCE_CASES.map((relevanceCase) => [describeCase(relevanceCase), relevanceCase]))(
      '%s',
      async (_, relevanceCase) => {
        const found = await search(relevanceCase);
        const expected = expectation(relevanceCase);
        const position = expected ? found.findIndex((item) => isExpected(item, expected)) : -1;
        results.set(
          relevanceCase,
          position >= 0 ? position : found.length === 0 ? 'empty' : 'absent',
        );
        const answered = found.map(({ name }) => name);
        if ('nothing' in relevanceCase) expect(answered).toEqual([]);
        else if ('first' in relevanceCase) expect(position, answered.join(' | ')).toBe(0);
        else expect(position, answered.join(' | ')).toBeGreaterThanOrEqual(0);
      },
    );
  });
}

afterAll(() => {
  const expecting = RELEVANCE_CASES.filter((relevanceCase) => !('nothing' in relevanceCase));
  const lines = [`Relevance set, ${databaseKind} database, ${RELEVANCE_CASES.length} cases:`];
  for (const [interfaceName, results] of outcomes) {
    if (results.size === 0) continue;
    const positions = expecting.map((relevanceCase) => results.get(relevanceCase));
    const first = positions.filter((position) => position === 0).length;
    const topFive = positions.filter((position) => typeof position === 'number').length;
    const empty = RELEVANCE_CASES.filter(
      (relevanceCase) => 'nothing' in relevanceCase && results.get(relevanceCase) === 'empty',
    ).length;
    lines.push(
      `  ${interfaceName}: expected product first ${first}/${expecting.length}, ` +
        `within the top five ${topFive}/${expecting.length}; ` +
        `nothing found where nothing is due ${empty}/${RELEVANCE_CASES.length - expecting.length}`,
    );
  }
  console.log(lines.join('\n'));
});
