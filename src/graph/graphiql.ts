/**
 * What a developer sees on opening /graphql in a browser: one tab per example operation, the
 * first one open, the queries first and a live subscription last. Every variable has a
 * default in the document, so each example runs as it stands on the sample catalogue; the
 * tabs show those defaults as editable variables.
 *
 * Only `defaultTabs`: GraphiQL 5 reads `defaultQuery` only when there are no default tabs. The
 * GraphiQL build yoga's own page loads (@graphql-yoga/graphiql 4.5.1) wrote its "Welcome"
 * comment over the first tab whatever the defaults (a document of comments: "Unexpected
 * <EOF>" on Run); the build graphiql-assets.ts serves leaves the tabs alone.
 */
import { Kind, parse, valueFromASTUntyped, type OperationDefinitionNode } from 'graphql';
import type { GraphiQLOptions } from 'graphql-yoga';
import { GRAPHIQL_MARKER_HEADER } from './trusted-documents.ts';

export const PRODUCT_PAGE = /* GraphQL */ `
  # A product page: one product in one market with its offers, prices and specification.
  # With a ref, every offer URL asked for with it carries it: url(ref: $ref).
  query ProductPage($market: Market! = SE, $id: Int! = 1, $ref: String) {
    product(market: $market, id: $id) {
      productId
      name
      productPage
      images {
        small
        large
      }
      brand {
        name
      }
      category {
        name
        slug
        ancestors {
          name
          slug
        }
      }
      gtins
      offerSummary {
        offerCount
        bestStockStatus
        lowestNewPrice {
          value
          currency
        }
        lowestAlternativePrice {
          value
          currency
        }
      }
      priceTrend {
        percentage
        currentPrice {
          value
          currency
        }
        averagePrice90Days {
          value
          currency
        }
      }
      coreProperties {
        name
        value
        unit
      }
      offers(first: 10) {
        totalCount
        edges {
          node {
            offerName
            url(ref: $ref)
            stockStatus
            productCondition
            price {
              value
              includingShipping
              currency
            }
            shop {
              name
              url
            }
          }
        }
      }
    }
  }
`;

export const DEFERRED_PRODUCT_PAGE = /* GraphQL */ `
  # A product page in parts (@defer): the product at once, its offers and its price history in
  # later parts, as each is ready. GraphiQL shows the answer growing as the parts arrive.
  query DeferredProductPage($market: Market! = SE, $id: Int! = 1) {
    product(market: $market, id: $id) {
      productId
      name
      brand {
        name
      }
      offerSummary {
        offerCount
        lowestNewPrice {
          value
          currency
        }
      }
      ... @defer(label: "offers") {
        offers(first: 10) {
          totalCount
          edges {
            node {
              offerName
              price {
                value
                currency
              }
              shop {
                name
              }
            }
          }
        }
      }
      ... @defer(label: "history") {
        priceHistory(days: 30) {
          date
          lowestPrice {
            value
            currency
          }
        }
      }
    }
  }
`;

export const SEARCH = /* GraphQL */ `
  # Search: products whose names match every term (in the market's language, by prefix, with
  # typos forgiven), best match first; narrow with a category (slug or id). For the next page,
  # pass pageInfo.endCursor as $after.
  query Search(
    $market: Market! = SE
    $query: String = "samsung"
    $category: String
    $first: Int = 10
    $after: String
  ) {
    products(market: $market, query: $query, category: $category, first: $first, after: $after) {
      totalCount
      pageInfo {
        hasNextPage
        endCursor
      }
      edges {
        node {
          productId
          name
          brand {
            name
          }
          category {
            name
          }
          lowestOffer {
            price {
              value
              currency
            }
            shop {
              name
            }
          }
        }
      }
    }
  }
`;

export const DEALS = /* GraphQL */ `
  # Deals: the products furthest below their 90-day average price.
  query Deals($market: Market! = SE, $atLeastPercent: Float = 5, $first: Int = 10) {
    products(
      market: $market
      orderBy: PRICE_TREND
      priceTrend: { gte: $atLeastPercent }
      first: $first
    ) {
      totalCount
      edges {
        node {
          productId
          name
          priceTrend {
            percentage
            currentPrice {
              value
              currency
            }
            averagePrice90Days {
              value
              currency
            }
          }
          lowestOffer {
            url
            shop {
              name
            }
          }
        }
      }
    }
  }
`;

export const CATEGORY_BROWSE = /* GraphQL */ `
  # Category browse: a category with its place in the tree, its sub-categories and its most
  # popular products.
  query CategoryBrowse($market: Market! = SE, $slug: String! = "electronics") {
    category(market: $market, slug: $slug) {
      name
      url
      productsTotal
      lowestPrice {
        value
        currency
      }
      ancestors {
        name
        slug
      }
      children {
        name
        slug
        productsTotal
        lowestPrice {
          value
          currency
        }
      }
      products(first: 10) {
        totalCount
        edges {
          node {
            productId
            name
            offerSummary {
              offerCount
              lowestNewPrice {
                value
                currency
              }
            }
          }
        }
      }
    }
  }
`;

export const CROSS_MARKET = /* GraphQL */ `
  # Cross-market comparison: one product's lowest price, offer count and trend in every market
  # that sells it, each in its own currency.
  query CrossMarketComparison($id: Int! = 1) {
    product(market: SE, id: $id) {
      name
      marketPrices {
        market
        offerCount
        lowestPrice {
          value
          currency
        }
        priceTrend {
          percentage
        }
      }
    }
  }
`;

export const PRICE_DROPS = /* GraphQL */ `
  # Live prices: an event each time a shop's feed run lowers a product's
  # lowest price in the market by at least minDropPercent. Run it, then push a
  # lower price (README, "Live prices"): the event appears in the answer pane
  # as the run commits. The same button stops it.
  subscription PriceDrops($market: Market! = SE, $minDropPercent: Float = 5) {
    priceDropped(market: $market, minDropPercent: $minDropPercent) {
      product {
        productId
        name
      }
      previous {
        value
        currency
      }
      current {
        value
        currency
      }
      dropPercent
      lowestOffer {
        url
        shop {
          name
        }
      }
      changedAt
    }
  }
`;

export interface ExampleOperation {
  name: string;
  /** The operation with its leading comment, as a tab shows it. */
  document: string;
  /** The operation's variables at their defaults. */
  variables: Record<string, unknown>;
}

function exampleOf(document: string): ExampleOperation {
  const operation = parse(document).definitions.find(
    (definition): definition is OperationDefinitionNode =>
      definition.kind === Kind.OPERATION_DEFINITION,
  );
  if (!operation?.name) throw new Error(`an example must be a named operation:\n${document}`);
  const variables = Object.fromEntries(
    (operation.variableDefinitions ?? []).map((variable) => [
      variable.variable.name.value,
      variable.defaultValue ? valueFromASTUntyped(variable.defaultValue) : null,
    ]),
  );
  return { name: operation.name.value, document: dedent(document), variables };
}

/** The text without the indentation it has in this file, as an editor should show it. */
function dedent(text: string): string {
  const lines = text.replace(/^\n+|\s+$/g, '').split('\n');
  const indent = Math.min(...lines.filter((line) => line.trim()).map((line) => line.search(/\S/)));
  return lines.map((line) => line.slice(indent)).join('\n');
}

export const EXAMPLE_OPERATIONS: readonly ExampleOperation[] = [
  PRODUCT_PAGE,
  DEFERRED_PRODUCT_PAGE,
  SEARCH,
  DEALS,
  CATEGORY_BROWSE,
  CROSS_MARKET,
].map(exampleOf);

/** The live example: a subscription, which answers only as runs commit (the last tab). */
export const LIVE_EXAMPLE: ExampleOperation = exampleOf(PRICE_DROPS);

export const GRAPHIQL_OPTIONS = {
  title: 'Catalogue graph',
  // What lets its documents through under TRUSTED_DOCUMENTS_ONLY (./trusted-documents.ts).
  additionalHeaders: { [GRAPHIQL_MARKER_HEADER]: '1' },
  defaultTabs: [...EXAMPLE_OPERATIONS, LIVE_EXAMPLE].map((example) => ({
    query: example.document,
    variables: JSON.stringify(example.variables, null, 2),
  })),
} satisfies GraphiQLOptions;
