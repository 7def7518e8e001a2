/**
 * The catalogue as a subgraph, checked for real (docs/federation.md): its SDL, as the running
 * app gives it through `_service { sdl }`, is composed with a second small subgraph (reviews,
 * built here with Pothos's federation plugin and served by graphql-yoga) by a real composition
 * library (@theguild/federation-composition), and queries spanning both run through a real
 * gateway (Hive Gateway's runtime) in this process, over HTTP to both subgraphs. `_entities`
 * resolves through the types' node loaders: one statement per type, however many
 * representations a call holds.
 */
import { createServer, type Server } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway';
import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import { composeServices } from '@theguild/federation-composition';
import { execute, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp } from '../../src/app.ts';
import { collectTags, productTag } from '../../src/cache/answer-tags.ts';
import { loadConfig } from '../../src/config.ts';
import { createRequestContext } from '../../src/context.ts';
import { createMarketDirectory } from '../../src/db/repositories/markets.ts';
import { schema } from '../../src/graph/schema.ts';
import { postGraphql } from '../helpers/graphql.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

// Statements are counted per execution: the response cache would answer repeats.
// The base the app builds its pictures' URLs on, given to graphql-js's context alike.
const PUBLIC_BASE = 'http://catalogue.test';
const catalogue = useSeededCatalogue({
  RESPONSE_CACHE_TTL_SECONDS: '0',
  PUBLIC_BASE_URL: PUBLIC_BASE,
});

interface Review {
  productId: string;
  rating: number;
  body: string;
}

/** The second subgraph: reviews of products, which extends Product (by its key) with them. */
function reviewsSubgraph(reviews: readonly Review[]) {
  const builder = new SchemaBuilder<{ DefaultFieldNullability: false }>({
    plugins: [DirectivePlugin, FederationPlugin],
    defaultFieldNullability: false,
  });
  const ProductRef = builder.externalRef('Product', builder.selection<{ id: string }>('id'));
  const ReviewRef = builder.objectRef<Review>('Review');
  ProductRef.implement({
    fields: (t) => ({
      id: t.exposeID('id'),
      reviews: t.field({
        type: [ReviewRef],
        resolve: (product) => reviews.filter((review) => review.productId === product.id),
      }),
    }),
  });
  ReviewRef.implement({
    fields: (t) => ({
      rating: t.exposeInt('rating'),
      body: t.exposeString('body'),
      product: t.field({ type: ProductRef, resolve: (review) => ({ id: review.productId }) }),
    }),
  });
  builder.queryType({
    fields: (t) => ({
      latestReviews: t.field({ type: [ReviewRef], resolve: () => [...reviews] }),
    }),
  });
  return createYoga({ schema: builder.toSubGraphSchema({}), logging: false });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}/graphql`;
}

async function sdlOf(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: '{ _service { sdl } }' }),
  });
  const body = (await response.json()) as { data: { _service: { sdl: string } } };
  return body.data._service.sdl;
}

/** The statements of what ran since the last reset, white space collapsed. */
function executedSql(): string[] {
  return catalogue.statements.map((statement) => statement.replace(/\s+/g, ' ').trim());
}

const ENTITIES = /* GraphQL */ `
  query Entities($representations: [_Any!]!) {
    _entities(representations: $representations) {
      __typename
      ... on Product {
        id
        productId
        market
        name
      }
      ... on Offer {
        id
        offerId
      }
      ... on Shop {
        id
        name
      }
      ... on Brand {
        id
        name
      }
      ... on Category {
        id
        name
      }
    }
  }
`;

interface Listed {
  id: string;
  productId: number;
  brand: { id: string };
  category: { id: string };
  offers: { edges: { node: { id: string; shop: { id: string } } }[] };
}

let listed: Listed[];
let reviews: Review[];
let servers: Server[] = [];
let gateway: ReturnType<typeof createGatewayRuntime>;
let supergraphSdl: string;

beforeAll(async () => {
  const body = await catalogue.graphql<{ products: { edges: { node: Listed }[] } }>(`{
    products(market: SE, first: 50) { edges { node {
      id productId brand { id } category { id }
      offers(first: 2) { edges { node { id shop { id } } } } } } } }`);
  listed = body
    .data!.products.edges.map((edge) => edge.node)
    .filter((product) => product.brand !== null && product.offers.edges.length > 0)
    .slice(0, 4);
  expect(listed).toHaveLength(4);
  reviews = listed.slice(0, 3).flatMap((product, index) => [
    { productId: product.id, rating: 5 - index, body: `review ${index}a` },
    { productId: product.id, rating: 3, body: `review ${index}b` },
  ]);

  const catalogueServer = createServer(catalogue.app);
  const reviewsServer = createServer(reviewsSubgraph(reviews));
  servers = [catalogueServer, reviewsServer];
  const [catalogueUrl, reviewsUrl] = await Promise.all(servers.map(listen));
  const composed = composeServices([
    { name: 'catalogue', url: catalogueUrl, typeDefs: parse(await sdlOf(catalogueUrl!)) },
    { name: 'reviews', url: reviewsUrl, typeDefs: parse(await sdlOf(reviewsUrl!)) },
  ]);
  expect(composed.errors).toBeUndefined();
  supergraphSdl = composed.supergraphSdl!;
  gateway = createGatewayRuntime({ supergraph: supergraphSdl, logging: false });
});

afterAll(async () => {
  await gateway?.dispose();
  await Promise.all(
    servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))),
  );
});

async function throughGateway<Data = any>(query: string, variables: Record<string, unknown> = {}) {
  catalogue.statements.length = 0;
  const response = await gateway.fetch('http://gateway/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: Data; errors?: unknown[] };
  expect(body.errors).toBeUndefined();
  return body.data!;
}

describe('the catalogue subgraph', () => {
  it('gives its SDL with every node type an entity keyed by its global id', async () => {
    const { data } = await catalogue.graphql<{ _service: { sdl: string } }>('{ _service { sdl } }');
    const sdl = data!._service.sdl;
    expect(sdl).toContain(
      '@link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])',
    );
    for (const type of ['Brand', 'Category', 'Offer', 'Product', 'Shop']) {
      expect(sdl).toMatch(new RegExp(`type ${type} implements Node\\s+@key\\(fields: "id"\\)`));
    }
    expect(supergraphSdl).toContain('@join__type(graph: CATALOGUE, key: "id")');
    expect(supergraphSdl).toContain('@join__type(graph: REVIEWS, key: "id"');
    expect(supergraphSdl).toContain('reviews: [Review!]! @join__field(graph: REVIEWS)');
  });

  it('resolves many representations of five types with one statement per type', async () => {
    const [first, ...others] = listed;
    const dk = await catalogue.graphql<{ product: { id: string } }>(
      `{ product(market: DK, id: ${first!.productId}) { id } }`,
    );
    const representations = [
      ...listed.map((product) => ({ __typename: 'Product', id: product.id })),
      { __typename: 'Product', id: dk.data!.product.id },
      ...listed.flatMap((product) =>
        product.offers.edges.flatMap(({ node }) => [
          { __typename: 'Offer', id: node.id },
          { __typename: 'Shop', id: node.shop.id },
        ]),
      ),
      ...listed.map((product) => ({ __typename: 'Brand', id: product.brand.id })),
      ...listed.map((product) => ({ __typename: 'Category', id: product.category.id })),
    ];
    const body = await catalogue.graphql(ENTITIES, { representations });
    expect(body.errors).toBeUndefined();
    const entities = body.data._entities as { __typename: string; id: string }[];
    expect(entities.map(({ __typename, id }) => ({ __typename, id }))).toEqual(representations);
    // A market-scoped id resolves to the object in the market it names.
    expect(entities[0]).toMatchObject({ productId: first!.productId, market: 'SE' });
    expect(entities[listed.length]).toMatchObject({ productId: first!.productId, market: 'DK' });
    expect(others.length + 1).toBe(listed.length);
    expect(executedSql().sort()).toMatchInlineSnapshot(`
      [
        "select * from "available_offers" where "id" = any($1)",
        "select * from "brands" where "id" = any($1)",
        "select * from "categories" where "id" = any($1)",
        "select * from "products" where "id" = any($1)",
        "select * from "shops" where "id" = any($1)",
      ]
    `);
  });

  it('answers a query spanning both subgraphs through the gateway', async () => {
    const [first] = listed;
    const data = await throughGateway(
      `query Spanning($id: Int!) {
        product(market: SE, id: $id) { productId name reviews { rating body } }
        latestReviews { rating product { productId market name brand { name } } }
      }`,
      { id: first!.productId },
    );
    expect(data.product).toMatchObject({
      productId: first!.productId,
      reviews: [
        { rating: 5, body: 'review 0a' },
        { rating: 3, body: 'review 0b' },
      ],
    });
    expect(data.latestReviews).toHaveLength(6);
    expect(data.latestReviews.map((review: any) => review.product.productId)).toEqual(
      reviews.map((review) => listed.find((product) => product.id === review.productId)!.productId),
    );
    expect(data.latestReviews.every((review: any) => review.product.market === 'SE')).toBe(true);
    // The catalogue's part: the root product (its compiled statement), then the reviewed
    // products as one `_entities` call (one statement for products, one for their brands).
    expect(executedSql().sort()).toMatchInlineSnapshot(`
      [
        "select * from "brands" where "id" = any($1)",
        "select * from "products" where "id" = any($1)",
        "select json_build_object('$', json_build_object('row', json_build_object('id', "z1"."id"), 'scope', json_build_object('market', $1::text, 'ref', $2::text)), 'productId', "z1"."id", 'id', replace(encode(convert_to($3::text || "z1"."id"::text, 'UTF8'), 'base64'), chr(10), ''), 'name', "z1"."name") as value from "products" as "z1" where "z1"."id" = $4::int",
      ]
    `);
  });

  it('answers `_entities` on /graphql as graphql-js does, recording the answer’s cache tags', async () => {
    const representations = listed.map((product) => ({ __typename: 'Product', id: product.id }));
    const { db } = catalogue.database;
    const contextValue = createRequestContext(
      db,
      createMarketDirectory(db, loadConfig({}).siteUrls),
      PUBLIC_BASE,
    );
    const tags = collectTags(contextValue);
    const interpreted = await execute({
      schema,
      document: parse(ENTITIES),
      variableValues: { representations },
      contextValue,
    });
    expect(interpreted.errors).toBeUndefined();
    expect(await catalogue.graphql(ENTITIES, { representations })).toEqual(
      JSON.parse(JSON.stringify(interpreted)),
    );
    // A feed run that changes one of these products drops the cached answer.
    expect([...tags].sort()).toEqual(listed.map((product) => productTag(product.productId)).sort());
  });

  it('answers a repeated `_entities` call from the response cache', async () => {
    const cached = createApp({
      config: loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '300' }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    // Following the catalogue's changes starts with a statement: not the requests'.
    await cached.listening;
    try {
      const representations = listed.map((product) => ({ __typename: 'Product', id: product.id }));
      const ask = async () => {
        catalogue.statements.length = 0;
        const response = await postGraphql(cached, ENTITIES, { representations });
        return { body: await response.json(), statements: catalogue.statements.length };
      };
      const first = await ask();
      const again = await ask();
      expect(first.statements).toBeGreaterThan(0);
      expect(again).toEqual({ body: first.body, statements: 0 });
    } finally {
      await cached.dispose();
    }
  });

  // graphql-jit would answer this list with two items (the failed last two cut off), which a
  // gateway matching answers to representations by position misreads: it runs on graphql-js.
  it('answers an unknown reference null, and a malformed one or another type’s an error', async () => {
    const unknown = Buffer.from('Product:se:2147483647').toString('base64');
    const shopId = listed[0]!.offers.edges[0]!.node.shop.id;
    const body = await catalogue.graphql(ENTITIES, {
      representations: [
        { __typename: 'Product', id: listed[0]!.id },
        { __typename: 'Product', id: unknown },
        { __typename: 'Product', id: shopId },
        { __typename: 'Product', id: 'not base64!' },
      ],
    });
    expect(body.data!._entities.map((entity: { id: string } | null) => entity?.id ?? null)).toEqual(
      [listed[0]!.id, null, null, null],
    );
    expect(body.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['_entities', 2], 'BAD_USER_INPUT'],
      [['_entities', 3], 'BAD_USER_INPUT'],
    ]);
  });

  it('answers a representation that is no entity’s an error at its place, the others resolved', async () => {
    const body = await catalogue.graphql(ENTITIES, {
      representations: [
        '2024-01-01',
        { __typename: 'Nope', id: 'x' },
        { __typename: 'Product', id: listed[0]!.id },
      ],
    });
    expect(body.data!._entities.map((entity: { id: string } | null) => entity?.id ?? null)).toEqual(
      [null, null, listed[0]!.id],
    );
    expect(body.errors?.map((error) => [error.path, error.extensions?.code])).toEqual([
      [['_entities', 0], 'BAD_USER_INPUT'],
      [['_entities', 1], 'BAD_USER_INPUT'],
    ]);
  });
});
