/**
 * The operations a Relay app would write for a product's offers, compiled by relay-compiler
 * (relay.config.json) into the artifacts test/graph/relay-client.test.ts runs with
 * relay-runtime. Never imported: the compiler reads the `graphql` tags.
 */
import { graphql } from 'relay-runtime';

export const productOffers = graphql`
  query OfferPagesProductOffersQuery($id: Int!, $ref: String) {
    product(market: SE, id: $id) {
      id
      offers(first: 3) {
        edges {
          node {
            id
            url(ref: $ref)
            alternativePrices {
              url(ref: $ref)
            }
          }
        }
      }
    }
  }
`;

export const rootRef = graphql`
  query OfferPagesRootRefQuery($id: Int!, $ref: String) {
    product(market: SE, id: $id, ref: $ref) {
      id
      offers(first: 3) {
        edges {
          node {
            id
            url
          }
        }
      }
    }
  }
`;

/** A page of offers, each URL with the partner's ref: one selection for both pages. */
export const page = graphql`
  fragment OfferPagesPage on OfferConnection {
    edges {
      cursor
      node {
        id
        url(ref: $ref)
      }
    }
    pageInfo {
      endCursor
      hasNextPage
    }
  }
`;

export const firstPage = graphql`
  query OfferPagesFirstPageQuery($id: Int!, $ref: String) {
    product(market: SE, id: $id) {
      id
      offers(first: 2) {
        ...OfferPagesPage @relay(mask: false)
      }
    }
  }
`;

export const nextPage = graphql`
  query OfferPagesNextPageQuery($id: ID!, $after: String, $ref: String) {
    node(id: $id) {
      __typename
      id
      ... on Product {
        offers(first: 2, after: $after) {
          ...OfferPagesPage @relay(mask: false)
        }
      }
    }
  }
`;
