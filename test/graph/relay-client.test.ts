/**
 * relay-runtime's normalized store against the service: a partner's ref is the argument of
 * `url(ref:)`, so one offer's URL with and without a ref are two fields of one record (no
 * RelayResponseNormalizer conflict, each read back right), and a page of a product's offers
 * fetched through `node(id:)`, as Relay's pagination queries do, keeps the ref on every URL.
 */
import {
  createOperationDescriptor,
  Environment,
  fetchQuery,
  Network,
  RecordSource,
  Store,
  type Variables,
} from 'relay-runtime';
import { describe, expect, it } from 'vitest';
import { schema } from '../../src/graph/schema.ts';
import { relayRequest } from '../helpers/relay-artifacts.ts';
import { offerUrls, useConsoleWarnings } from '../helpers/client-caches.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();
const REF = 'demo-ref';
const PRODUCT = 48;

function environment() {
  return new Environment({
    network: Network.create(async (params, variables) => {
      const response = await catalogue.app.fetch(
        new Request('http://test/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ query: params.text, variables }),
        }),
      );
      return response.json();
    }),
    store: new Store(new RecordSource()),
  });
}

const OFFERS = relayRequest(
  schema,
  `query ProductOffers($id: Int!, $ref: String) {
    product(market: SE, id: $id) {
      id
      offers(first: 3) { edges { node { id url(ref: $ref) alternativePrices { url(ref: $ref) } } } }
    }
  }`,
);

const FIRST_PAGE = relayRequest(
  schema,
  `query FirstPage($id: Int!, $ref: String) {
    product(market: SE, id: $id) {
      id
      offers(first: 2) { edges { cursor node { id url(ref: $ref) } } pageInfo { endCursor hasNextPage } }
    }
  }`,
);

const NEXT_PAGE = relayRequest(
  schema,
  `query NextPage($id: ID!, $after: String, $ref: String) {
    node(id: $id) {
      __typename
      id
      ... on Product {
        offers(first: 2, after: $after) { edges { cursor node { id url(ref: $ref) } } pageInfo { endCursor hasNextPage } }
      }
    }
  }`,
);

/** Runs the query through the environment, then reads its answer back from the store. */
async function run(env: Environment, request: typeof OFFERS, variables: Variables) {
  await fetchQuery(env, request, variables).toPromise();
  return env.lookup(createOperationDescriptor(request, variables).fragment).data as any;
}

const warnings = useConsoleWarnings();

describe('relay-runtime', () => {
  it('keeps one offer’s URL with a ref and without apart, with no normalizer warning', async () => {
    const env = environment();
    const tagged = await run(env, OFFERS, { id: PRODUCT, ref: REF });
    const plain = await run(env, OFFERS, { id: PRODUCT, ref: null });
    // Both answers are read from one store: the same records, the URL field keyed by its ref.
    const taggedAgain = env.lookup(
      createOperationDescriptor(OFFERS, { id: PRODUCT, ref: REF }).fragment,
    ).data as any;
    expect(tagged.product.offers.edges.map((e: any) => e.node.id)).toEqual(
      plain.product.offers.edges.map((e: any) => e.node.id),
    );
    expect(offerUrls(taggedAgain.product).length).toBeGreaterThanOrEqual(3);
    for (const url of offerUrls(taggedAgain.product)) {
      expect(new URL(url).searchParams.get('ref')).toBe(REF);
    }
    for (const url of offerUrls(plain.product))
      expect(new URL(url).searchParams.has('ref')).toBe(false);
    expect(warnings.list).toEqual([]);
  });

  it('keeps the deprecated root ref’s objects apart from the plain ones (their ids differ)', async () => {
    const env = environment();
    const ROOT = relayRequest(
      schema,
      `query RootRef($id: Int!, $ref: String) {
        product(market: SE, id: $id, ref: $ref) { id offers(first: 3) { edges { node { id url } } } }
      }`,
    );
    const tagged = await run(env, ROOT, { id: PRODUCT, ref: REF });
    const plain = await run(env, ROOT, { id: PRODUCT, ref: null });
    expect(tagged.product.id).not.toBe(plain.product.id);
    for (const edge of tagged.product.offers.edges) {
      expect(new URL(edge.node.url).searchParams.get('ref')).toBe(REF);
    }
    for (const edge of plain.product.offers.edges) {
      expect(new URL(edge.node.url).searchParams.has('ref')).toBe(false);
    }
    expect(warnings.list).toEqual([]);
  });

  it('pages a product’s offers through node(id:) with the ref on every URL', async () => {
    const env = environment();
    const first = await run(env, FIRST_PAGE, { id: PRODUCT, ref: REF });
    const product = first.product;
    expect(product.offers.pageInfo.hasNextPage).toBe(true);
    const second = await run(env, NEXT_PAGE, {
      id: product.id,
      after: product.offers.pageInfo.endCursor,
      ref: REF,
    });
    const pages = [product.offers, second.node.offers];
    const ids = pages.flatMap((page) => page.edges.map((edge: any) => edge.node.id));
    expect(new Set(ids).size).toBe(4);
    for (const page of pages) {
      for (const edge of page.edges) {
        expect(new URL(edge.node.url).searchParams.get('ref')).toBe(REF);
      }
    }
    expect(warnings.list).toEqual([]);
  });
});
