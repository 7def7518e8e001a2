/**
 * The compiled path (src/graph/compile) against the resolvers: every example operation of the
 * repository (GraphiQL's tabs, the documentation's, the benchmark's), every REST route's
 * document (through the route) and a few hundred generated documents over the covered shapes
 * run on this app and on one with COMPILED_SELECTIONS=false over the same database, and must
 * answer exactly alike, errors included. Covered root fields run one statement each.
 */
import { readFileSync } from 'node:fs';
import { execute, Kind, parse, type OperationDefinitionNode } from 'graphql';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { collectTags } from '../../src/cache/answer-tags.ts';
import { loadConfig } from '../../src/config.ts';
import { createRequestContext } from '../../src/context.ts';
import { createMarketDirectory } from '../../src/db/repositories/markets.ts';
import { withoutCompiledSelections } from '../../src/graph/compile/switch.ts';
import { schema } from '../../src/graph/schema.ts';
import { EXAMPLE_OPERATIONS } from '../../src/graph/graphiql.ts';
import {
  P1_DOCUMENT,
  P3_DOCUMENT,
  P4_DOCUMENT,
  W2_DOCUMENT,
  W4_DOCUMENT,
} from '../../bench/workloads.ts';
import { demoTokenRequest } from '../helpers/rest.ts';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';
import { generatedDocuments, type CatalogueSample } from './compiled-documents.ts';

const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });
let resolvers: App;
let sample: CatalogueSample;

beforeAll(async () => {
  resolvers = createApp({
    config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', COMPILED_SELECTIONS: 'false' }),
    database: catalogue.database,
    logger: pino({ level: 'silent' }),
  });
  await resolvers.listening;
  sample = await sampleOf();
});
afterAll(() => resolvers?.dispose());

/** Ids of the seeded catalogue the generated documents ask for. */
async function sampleOf(): Promise<CatalogueSample> {
  const body = await catalogue.graphql(`{
    products(market: SE, first: 60) { edges { node { productId } } }
    categories(market: SE, first: 100) { edges { node { categoryId slug isLeaf productsTotal } } }
  }`);
  const categories = body.data.categories.edges.map((edge: any) => edge.node);
  return {
    productIds: body.data.products.edges.map((edge: any) => edge.node.productId),
    leaves: categories
      .filter((c: any) => c.isLeaf && c.productsTotal > 3)
      .map((c: any) => c.categoryId),
    parents: categories.filter((c: any) => !c.isLeaf).map((c: any) => c.categoryId),
    slugs: categories.map((c: any) => c.slug),
  };
}

interface Compared {
  compiled: GraphQLBody;
  statements: string[];
}

/** Runs the operation on both apps, requires the same answer, and gives the compiled one. */
async function compare(query: string, variables: Record<string, unknown> = {}): Promise<Compared> {
  const response = await catalogue.post({ query, variables });
  const compiled = (await response.json()) as GraphQLBody;
  const statements = [...catalogue.statements];
  const viaResolvers = await resolvers.fetch(
    new Request('http://test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query, variables }),
    }),
  );
  expect(viaResolvers.status, query).toBe(response.status);
  // Byte for byte: the same keys in the same order, the same numbers and strings.
  expect(JSON.stringify(compiled), query).toBe(JSON.stringify(await viaResolvers.json()));
  return { compiled, statements };
}

/** The root fields an operation selects (its top-level selections). */
function rootFieldCount(query: string): number {
  const operation = parse(query).definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  return operation?.selectionSet.selections.length ?? 0;
}

/** Values for the variables the documentation's operations declare without a default. */
function variablesFor(query: string): Record<string, unknown> {
  const known: Record<string, unknown> = {
    market: 'SE',
    id: sample.productIds[0],
    ids: sample.productIds.slice(0, 5),
    category: sample.leaves[0],
  };
  const names = [...query.matchAll(/\$(\w+)\s*:/g)].map((match) => match[1]!);
  return Object.fromEntries(
    names.filter((name) => name in known).map((name) => [name, known[name]]),
  );
}

/** The queries of the documentation (its subscriptions answer only as feed runs commit). */
function documentedQueries(): string[] {
  return ['README.md', 'docs/api.md', 'docs/federation.md']
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/```graphql\n([\s\S]*?)```/g)].map((m) => m[1]!),
    )
    .filter((text) => {
      try {
        return parse(text).definitions.some(
          (d) => d.kind === Kind.OPERATION_DEFINITION && d.operation === 'query',
        );
      } catch {
        return false; // a schema excerpt
      }
    });
}

describe('example operations answer alike', () => {
  it('GraphiQL’s tabs', async () => {
    for (const example of EXAMPLE_OPERATIONS) await compare(example.document, example.variables);
  });

  it('the documentation’s', async () => {
    const operations = documentedQueries();
    expect(operations.length).toBeGreaterThan(1);
    for (const query of operations) await compare(query, variablesFor(query));
  });

  it('the benchmark’s, each compiled root field in one statement', async () => {
    const [category] = sample.leaves;
    const ids = sample.productIds.slice(20, 40);
    const id = sample.productIds[0];
    const cases: [string, Record<string, unknown>, number][] = [
      [P1_DOCUMENT, { market: 'SE', category }, 1],
      [P3_DOCUMENT, { market: 'SE', ids }, 1],
      [P4_DOCUMENT, { market: 'SE', id }, 1],
      [W2_DOCUMENT, { market: 'SE', category }, 1],
      // lowestOffer is its resolver's: the product's statement, then the cheapest offer's.
      [W4_DOCUMENT, { market: 'SE', id }, 3],
    ];
    for (const [query, variables, statements] of cases) {
      const compared = await compare(query, variables);
      expect(compared.compiled.errors).toBeUndefined();
      expect(compared.statements, query).toHaveLength(statements);
    }
  });
});

describe('statements per request', () => {
  const page = (first: number, offers: number) => /* GraphQL */ `
    query Page($c0: Int!, $c1: Int!, $c2: Int!) {
      a: category(market: SE, id: $c0) { ...Listing }
      b: category(market: SE, id: $c1) { ...Listing }
      c: category(market: SE, id: $c2) { ...Listing }
    }
    fragment Listing on Category {
      categoryId name
      products(first: ${first}) {
        totalCount pageInfo { hasNextPage endCursor }
        edges { cursor node { productId name brand { name } category { slug }
          offers(first: ${offers}) { totalCount edges { node {
            offerId url price { amount currency } updatedAt shop { shopId name logo { small } } } } } } }
      }
    }`;

  it('are one per compiled root field, whatever the page sizes', async () => {
    const [c0, c1, c2] = sample.leaves;
    for (const [first, offers] of [
      [1, 1],
      [20, 10],
      [50, 25],
    ] as const) {
      const { compiled, statements } = await compare(page(first, offers), { c0, c1, c2 });
      expect(compiled.errors).toBeUndefined();
      expect(compiled.data.a.products.edges.length).toBeGreaterThan(0);
      expect(statements).toHaveLength(3);
    }
  });

  it('are one for a list of categories down to their offers’ shops', async () => {
    const query = /* GraphQL */ `
      query Tree($first: Int!) {
        categories(market: SE, first: $first) {
          totalCount
          edges {
            node {
              categoryId
              name
              products(first: 10) {
                edges {
                  node {
                    productId
                    name
                    offers(first: 5) {
                      edges {
                        node {
                          offerId
                          price {
                            value
                          }
                          shop {
                            shopId
                            name
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    `;
    for (const first of [1, 10, 37]) {
      const { compiled, statements } = await compare(query, { first });
      expect(compiled.errors).toBeUndefined();
      expect(compiled.data.categories.edges).toHaveLength(first);
      expect(statements).toHaveLength(1);
    }
  });

  it('add the statements of the fields left to their resolvers, once per field', async () => {
    const ids = sample.productIds.slice(0, 20);
    const query = /* GraphQL */ `
      query ($ids: [Int!]!) {
        products(market: SE, ids: $ids) {
          edges {
            node {
              productId
              productPage
              gtins
              offers(first: 3) {
                edges {
                  node {
                    url(ref: "partner")
                    alternativePrices {
                      url
                    }
                    shop {
                      name
                    }
                  }
                }
              }
            }
          }
        }
      }
    `;
    const one = await compare(query, { ids: ids.slice(0, 1) });
    const twenty = await compare(query, { ids });
    expect(twenty.compiled.errors).toBeUndefined();
    // The statement, the GTINs and the alternative prices: `url(ref:)` and `productPage` need none.
    expect(one.statements).toHaveLength(3);
    // In any order: on a server, the resolvers' statements run on concurrent connections.
    expect([...twenty.statements].sort()).toEqual([...one.statements].sort());
  });
});

describe('a selection Postgres cannot build', () => {
  it('runs on the resolvers: more fields on one object than json_build_object takes', async () => {
    // 55 keys need more aliases than the default bound allows: an app that allows them.
    const app = createApp({
      config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', GRAPHQL_MAX_ALIASES: '60' }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    try {
      const names = Array.from({ length: 55 }, (_, index) => `n${index}: name`).join(' ');
      const query = `{ product(market: SE, id: ${sample.productIds[0]}) { ${names} } }`;
      catalogue.statements.length = 0;
      const response = await app.fetch(
        new Request('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        }),
      );
      const body = (await response.json()) as GraphQLBody;
      expect(body.errors).toBeUndefined();
      const values = new Set(Object.values(body.data.product));
      expect(values.size).toBe(1);
      expect(catalogue.statements.filter((sql) => sql.includes('json_build_object'))).toEqual([]);
      expect(catalogue.statements.some((sql) => sql.includes('from "products"'))).toBe(true);
    } finally {
      await app.dispose();
    }
  });
});

describe('REST routes answer alike', () => {
  async function getBoth(path: string) {
    const tokens = await Promise.all(
      [catalogue.app, resolvers].map(async (app) => {
        const response = await app.fetch(demoTokenRequest('http://test'));
        return ((await response.json()) as { access_token: string }).access_token;
      }),
    );
    const [compiled, expected] = await Promise.all(
      [catalogue.app, resolvers].map(async (app, index) => {
        const response = await app.fetch(
          new Request(`http://test${path}`, {
            headers: { authorization: `Bearer ${tokens[index]}` },
          }),
        );
        return { status: response.status, body: await response.text() };
      }),
    );
    expect(compiled, path).toEqual(expected);
    expect(compiled!.status, `${path}: ${compiled!.body}`).toBe(200);
  }

  it('every route, with its default fields and all of them', async () => {
    const [leaf] = sample.leaves;
    const [parent] = sample.parents;
    const ids = sample.productIds.slice(0, 6).join(',');
    const id = sample.productIds[1];
    const paths = [
      `/v1/products/${id}?market=se`,
      `/v1/products/${id}?market=se&fields=id,name,category(id,name)`,
      '/v1/products?market=se&limit=5',
      `/v1/categories/${leaf}?market=se`,
      `/v1/categories/${parent}/products?market=se&limit=7`,
      '/v1/categories?market=se',
      `/products/${ids},999999,${sample.productIds[0]}?market=se`,
      `/products/${id}?market=no&ref=someone&fields=*,gtins,popularity,productPage`,
      `/products/${id}?market=se&fields=offers(url,price.value)`,
      '/products?market=se&limit=4',
      `/products?market=se&filter%5Bcategory%5D=${leaf}&limit=3`,
      '/categories?market=se&q=b',
      '/suggestions?market=se&limit=5',
      '/partner-search/products?market=se&ref=demo-ref',
      `/partner-search/products/${id}?market=se&ref=demo-ref`,
    ];
    for (const path of paths) await getBoth(path);
  });
});

describe('cache tags', () => {
  it('are those the resolvers record (the response cache drops answers by them)', async () => {
    const { db } = catalogue.database;
    const markets = createMarketDirectory(db, loadConfig({}).siteUrls);
    const executed = async (query: string, variables: Record<string, unknown>, only: boolean) => {
      const contextValue = createRequestContext(db, markets, 'http://test');
      const tags = collectTags(contextValue);
      const run = () =>
        execute({ schema, document: parse(query), variableValues: variables, contextValue });
      const result = await (only ? withoutCompiledSelections(run) : run());
      return { tags: [...tags].sort(), result: JSON.stringify(result) };
    };
    let tagged = 0;
    for (const { query, variables } of generatedDocuments(sample, 120)) {
      const compiled = await executed(query, variables, false);
      expect(compiled, query).toEqual(await executed(query, variables, true));
      if (compiled.tags.some((tag) => tag.startsWith('product:'))) tagged++;
    }
    expect(tagged).toBeGreaterThan(30);
  });
});

describe('generated documents answer alike', () => {
  it('over the covered shapes: markets, refs, pages, orders, fragments, directives', async () => {
    const documents = generatedDocuments(sample, 300);
    let compiledWhole = 0;
    for (const { query, variables } of documents) {
      const { compiled, statements } = await compare(query, variables);
      if (!compiled.errors && statements.length === rootFieldCount(query)) compiledWhole++;
    }
    // Most run on the compiled path alone; the others leave fields to their resolvers.
    expect(compiledWhole).toBeGreaterThan(documents.length / 2);
  });
});
