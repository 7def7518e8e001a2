/**
 * relay-runtime's normalized store against the service: a partner's ref is the argument of
 * `url(ref:)`, so one offer's URL with and without a ref are two fields of one record (no
 * RelayResponseNormalizer conflict, each read back right), and a page of a product's offers
 * fetched through `node(id:)`, as Relay's pagination queries do, keeps the ref on every URL.
 * The operations (./relay/OfferPages.ts) are compiled by relay-compiler, as a Relay app's are,
 * against schema/schema.graphql before the tests run.
 */
import {
  createOperationDescriptor,
  Environment,
  fetchQuery,
  Network,
  RecordSource,
  Store,
  type ConcreteRequest,
  type Variables,
} from 'relay-runtime';
import { execFile } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
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

const RELAY_DIR = path.join(import.meta.dirname, 'relay');
const ARTIFACTS = path.join(RELAY_DIR, '__generated__');

type Artifact = ConcreteRequest;
let OFFERS: Artifact;
let ROOT: Artifact;
let FIRST_PAGE: Artifact;
let NEXT_PAGE: Artifact;

beforeAll(async () => {
  await rm(ARTIFACTS, { recursive: true, force: true });
  await mkdir(ARTIFACTS);
  // The compiler reads relay.config.json from its working directory.
  await promisify(execFile)(
    path.join(import.meta.dirname, '../../node_modules/.bin/relay-compiler'),
    [],
    { cwd: RELAY_DIR },
  );
  const load = async (name: string) =>
    ((await import(path.join(ARTIFACTS, `${name}.graphql.ts`))) as { default: Artifact }).default;
  [OFFERS, ROOT, FIRST_PAGE, NEXT_PAGE] = await Promise.all([
    load('OfferPagesProductOffersQuery'),
    load('OfferPagesRootRefQuery'),
    load('OfferPagesFirstPageQuery'),
    load('OfferPagesNextPageQuery'),
  ]);
}, 60_000);

/** Runs the query through the environment, then reads its answer back from the store. */
async function run(env: Environment, request: Artifact, variables: Variables) {
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
