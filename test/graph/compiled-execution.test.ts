/**
 * /graphql runs single-operation documents through graphql-jit's compiled code
 * (src/graph/compiled-execution.ts): it must answer exactly what graphql-js's interpreter
 * answers for the same document, variables and data, and leave what it cannot do alike to
 * graphql-js.
 */
import { execute, getIntrospectionQuery, parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createRequestContext } from '../../src/context.ts';
import { createMarketDirectory } from '../../src/db/repositories/markets.ts';
import { schema } from '../../src/graph/schema.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

// The base the app builds its pictures' URLs on, given to graphql-js's context alike.
const PUBLIC_BASE = 'http://catalogue.test';
const catalogue = useSeededCatalogue({ PUBLIC_BASE_URL: PUBLIC_BASE });

/** Fragments, aliases, directives, interfaces, recursion, connections, enums and scalars. */
const BROAD_DOCUMENT = /* GraphQL */ `
  query Broad($market: Market!, $first: Int!, $withOffers: Boolean!, $noTrend: Boolean!) {
    listing: products(market: $market, first: $first) {
      totalCount
      pageInfo {
        hasNextPage
        hasPreviousPage
        startCursor
        endCursor
      }
      edges {
        cursor
        node {
          ...ProductParts
          cheapest: lowestPrice {
            ...OfferParts
          }
          offers(first: 3) @include(if: $withOffers) {
            totalCount
            edges {
              node {
                ...OfferParts
              }
            }
          }
          priceTrend @skip(if: $noTrend) {
            percentage
            currentPrice {
              value
              currency
            }
          }
          priceHistory(days: 5) {
            __typename
          }
          marketPrices {
            __typename
            market
            offerCount
            lowestPrice {
              value
              currency
            }
          }
          properties {
            ...PropertyParts
            children {
              ...PropertyParts
              children {
                ...PropertyParts
              }
            }
          }
          coreProperties {
            name
            value
            unit
          }
        }
      }
    }
    categories(market: $market, first: 5) {
      edges {
        node {
          __typename
          id
          name
          slug
          isLeaf
          parent {
            name
          }
          children {
            name
          }
        }
      }
    }
    markets {
      code
    }
  }

  fragment ProductParts on Product {
    __typename
    id
    productId
    name
    market
    gtins
    images {
      __typename
    }
    brand {
      name
    }
    category {
      name
      ancestors {
        name
      }
    }
    offerSummary {
      offerCount
      bestStockStatus
      lowestNewPrice {
        value
        includingShipping
      }
    }
    ... on Node {
      nodeId: id
    }
  }

  fragment OfferParts on Offer {
    offerId
    offerName
    price {
      value
      currency
      includingShipping
    }
    stockStatus
    productCondition
    updatedAt
    url
    shop {
      __typename
      shopId
      name
      market
    }
  }

  fragment PropertyParts on Property {
    type
    name
    value
    unit
    core
  }
`;

describe('compiled execution on /graphql', () => {
  it('answers a broad document exactly as graphql-js does', async () => {
    const { db } = catalogue.database;
    const markets = createMarketDirectory(db, loadConfig({}).siteUrls);
    for (const variables of [
      { market: 'SE', first: 4, withOffers: true, noTrend: false },
      { market: 'NO', first: 2, withOffers: false, noTrend: true },
    ]) {
      const document = parse(BROAD_DOCUMENT);
      expect(validate(schema, document)).toEqual([]);
      const interpreted = await execute({
        schema,
        document,
        variableValues: variables,
        contextValue: createRequestContext(db, markets, PUBLIC_BASE),
      });
      expect(interpreted.errors).toBeUndefined();
      const compiled = await catalogue.graphql(BROAD_DOCUMENT, variables);
      expect(compiled).toEqual(JSON.parse(JSON.stringify(interpreted)));
      // The document really exercised what it asks for.
      const listing = (interpreted.data as any).listing;
      expect(listing.edges).toHaveLength(variables.first);
      expect(listing.edges[0].node.offers === undefined).toBe(!variables.withOffers);
    }
  });

  it('answers introspection (what GraphiQL asks first) exactly as graphql-js does', async () => {
    const query = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
    const interpreted = await execute({ schema, document: parse(query) });
    expect(interpreted.errors).toBeUndefined();
    expect(await catalogue.graphql(query)).toEqual(JSON.parse(JSON.stringify(interpreted)));
  });

  it('runs the operation operationName names in a document of several', async () => {
    const document = `
      query Names { markets { code } }
      query Currencies { markets { currency } }
    `;
    const names = await catalogue.post({ query: document, operationName: 'Names' });
    const currencies = await catalogue.post({ query: document, operationName: 'Currencies' });
    expect(((await names.json()) as any).data.markets[0]).toEqual({ code: expect.any(String) });
    expect(((await currencies.json()) as any).data.markets[0]).toEqual({
      currency: expect.any(String),
    });
  });

  it('answers a bad variable with graphql-js’s message, which names the variable', async () => {
    const body = await catalogue.graphql(
      'query ($first: Int!) { products(market: SE, first: $first) { totalCount } }',
      { first: 'many' },
    );
    expect(body.errors).toEqual([
      {
        message:
          'Variable "$first" got invalid value "many"; Int cannot represent non-integer value: "many"',
        locations: [{ line: 1, column: 8 }],
        extensions: expect.objectContaining({ code: 'BAD_USER_INPUT' }),
      },
    ]);
  });
});
