/**
 * @apollo/client 4's InMemoryCache against the service: a partner's ref is the argument of
 * `url(ref:)`, so the cache stores one offer's URL with and without a ref as two fields and
 * serves each where it was asked (it used to serve the plain URL for both), and a product's
 * offers paged through `node(id:)` keep the ref on every URL.
 */
import { ApolloClient, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { describe, expect, it } from 'vitest';
import { offerUrls, useConsoleWarnings } from '../helpers/client-caches.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();
const REF = 'demo-ref';
const PRODUCT = 48;

function client() {
  return new ApolloClient({
    cache: new InMemoryCache(),
    link: new HttpLink({
      uri: 'http://test/graphql',
      fetch: async (input, init) => catalogue.app.fetch(new Request(input, init)),
    }),
  });
}

const OFFERS = gql`
  query ProductOffers($id: Int!, $ref: String) {
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

const NEXT_PAGE = gql`
  query NextPage($id: ID!, $after: String, $ref: String) {
    node(id: $id) {
      id
      ... on Product {
        offers(first: 2, after: $after) {
          edges {
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
      }
    }
  }
`;

const warnings = useConsoleWarnings();

describe('@apollo/client InMemoryCache', () => {
  it('serves one offer’s URL with a ref and without, each where it was asked', async () => {
    const apollo = client();
    const tagged = await apollo.query({ query: OFFERS, variables: { id: PRODUCT, ref: REF } });
    const plain = await apollo.query({ query: OFFERS, variables: { id: PRODUCT, ref: null } });
    const cachedTagged = apollo.readQuery({ query: OFFERS, variables: { id: PRODUCT, ref: REF } });
    const cachedPlain = apollo.readQuery({ query: OFFERS, variables: { id: PRODUCT, ref: null } });
    for (const answer of [tagged.data, cachedTagged] as any[]) {
      expect(offerUrls(answer.product).length).toBeGreaterThanOrEqual(3);
      for (const url of offerUrls(answer.product)) {
        expect(new URL(url).searchParams.get('ref')).toBe(REF);
      }
    }
    for (const answer of [plain.data, cachedPlain] as any[]) {
      for (const url of offerUrls(answer.product)) {
        expect(new URL(url).searchParams.has('ref')).toBe(false);
      }
    }
    expect(warnings.list).toEqual([]);
  });

  it('pages a product’s offers through node(id:) with the ref on every URL', async () => {
    const apollo = client();
    const first = await apollo.query({ query: OFFERS, variables: { id: PRODUCT, ref: REF } });
    const product = (first.data as any).product;
    const page = (
      await apollo.query({
        query: NEXT_PAGE,
        variables: { id: product.id, after: null, ref: REF },
      })
    ).data as any;
    const next = (
      await apollo.query({
        query: NEXT_PAGE,
        variables: { id: product.id, after: page.node.offers.pageInfo.endCursor, ref: REF },
      })
    ).data as any;
    const edges = [...page.node.offers.edges, ...next.node.offers.edges];
    expect(new Set(edges.map((edge: any) => edge.node.id)).size).toBe(4);
    for (const edge of edges) {
      expect(new URL(edge.node.url).searchParams.get('ref')).toBe(REF);
    }
    expect(warnings.list).toEqual([]);
  });
});
