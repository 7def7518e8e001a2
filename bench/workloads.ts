/**
 * The workloads of performance.md (W1–W6) and of the comparison with PostGraphile v5 (P1–P4)
 * as HTTP requests. The gateway, the naive variant and the raw-SQL baseline answer the same
 * requests; PostGraphile answers its own documents (bench/postgraphile/documents.ts), request
 * for request, with the same rows. The inputs (ids, categories, search terms) are read from
 * the benchmark's own catalogue once, so the same seed gives the same requests.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { aliasedFields, aliasedValues } from './aliases.ts';
import {
  categoryPageDocument as postgraphileCategoryPage,
  categoryTreeDocument as postgraphileCategoryTree,
  postgraphileRows,
  productNameDocument as postgraphileProductName,
  productsByIdDocument as postgraphileProductsById,
  type PageShape,
} from './postgraphile/documents.ts';
import { categoryRow, nameRow, offerRow, productRow } from './rows.ts';

export const MARKET = 'se';
/** The same market as a value of the GraphQL `Market` enum (its names are upper case). */
export const GRAPHQL_MARKET = MARKET.toUpperCase();
export const PARTNER = { clientId: 'demo-partner', secret: 'demo-secret', ref: 'demo-ref' };

export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  /** A JSON body (POST /graphql). */
  body?: string;
  /** Sent with the request; `authorization` is filled in by the bench when `partner` is set. */
  headers?: Record<string, string>;
  /** Needs the demo partner's Bearer token. */
  partner?: boolean;
}

export type WorkloadId =
  | 'W1'
  | 'W2'
  | 'W3'
  | 'W4-rest'
  | 'W4-graphql'
  | 'W5-rest'
  | 'W5-graphql'
  | 'W6'
  | 'P1'
  | 'P2'
  | 'P3'
  | 'P4'
  | 'P4-id';

/**
 * A workload's twin in PostGraphile's schema: its own requests, one for each of the
 * workload's, and how to read the rows (bench/rows.ts) of either system's `data`.
 */
export interface PeerTwin {
  requests: BenchRequest[];
  gatewayRows(data: unknown): string[];
  peerRows(data: unknown): string[];
}

export interface Workload {
  id: WorkloadId;
  title: string;
  /** Cycled through by the load generator, in order. */
  requests: BenchRequest[];
  /** Has a raw-SQL twin (W5 compares the gateway with itself). */
  raw: boolean;
  /** Has a PostGraphile twin (the P workloads). */
  peer?: PeerTwin;
}

export interface WorkloadInputs {
  /**
   * Three leaf categories of the market ranked by products with an available offer: the
   * first, the middle and the last, so that listings are measured across the popularity
   * range, not only where the market's most popular products are.
   */
  categoryIds: number[];
  /** Ten leaf categories spread evenly over the same ranking (all of them when fewer). */
  treeCategoryIds: number[];
  /** Products for point lookups, most popular first. */
  lookupIds: number[];
  /** Twenty product ids for partner search. */
  partnerIds: number[];
  /**
   * Product searches as shoppers type them: two-term searches taken from product names, the
   * same with a typo, and category words in the market's language (issue 13).
   */
  searches: string[];
}

/** Operation names the raw baseline recognises a GraphQL request by. */
export const W2_OPERATION = 'BenchCategoryProducts';
export const W4_OPERATION = 'BenchProductLookup';

export const W2_DOCUMENT = /* GraphQL */ `query ${W2_OPERATION}($market: Market!, $category: Int!) {
  category(id: $category, market: $market) {
    categoryId
    name
    products(first: 20) {
      edges {
        node {
          productId
          name
          brand { brandId name }
          offers(first: 10) {
            edges {
              node {
                offerId
                price { value currency }
                url
                shop { shopId name }
              }
            }
          }
        }
      }
    }
  }
}`;

export const W4_DOCUMENT = /* GraphQL */ `query ${W4_OPERATION}($market: Market!, $id: Int!) {
  product(id: $id, market: $market) {
    productId
    name
    lowestOffer {
      price { value currency }
      shop { shopId name }
    }
  }
}`;

/**
 * The REST twin of W4_DOCUMENT: the product and its lowest prices. /v1/products/{id} has no
 * `lowestPrice` field; `price` is its lowest available prices (new, alternative, in stock).
 */
export const W4_REST_FIELDS = 'id,name,price';

/** P1: a category page. */
export const CATEGORY_PAGE: PageShape = { products: 20, offers: 10 };
/** P2: ten leaf categories, each a smaller page. */
export const CATEGORY_TREE: { categories: number; page: PageShape } = {
  categories: 10,
  page: { products: 10, offers: 5 },
};
/** P3: products by id, each with this many offers. */
export const PRODUCTS_BY_ID_OFFERS = 10;

export const P1_OPERATION = 'BenchCategoryPage';
export const P2_OPERATION = 'BenchCategoryTree';
export const P3_OPERATION = 'BenchProductsById';
export const P4_OPERATION = 'BenchProductName';

const offersSelection = (offers: number) =>
  `offers(first: ${offers}) { edges { node { offerId price { value } shop { shopId name } } } }`;

const categoryPageSelection = ({ products, offers }: PageShape) => `categoryId
  products(first: ${products}) { edges { node { productId name ${offersSelection(offers)} } } }`;

export const P1_DOCUMENT = /* GraphQL */ `query ${P1_OPERATION}($market: Market!, $category: Int!) {
  category(id: $category, market: $market) { ${categoryPageSelection(CATEGORY_PAGE)} }
}`;

/** `count` categories as aliased `category` fields `c0` …, as PostGraphile's twin has them. */
function categoryTreeDocument(count: number): string {
  const { variables, fields } = aliasedFields(
    'c',
    count,
    (id) => `category(id: ${id}, market: $market) { ${categoryPageSelection(CATEGORY_TREE.page)} }`,
  );
  return /* GraphQL */ `query ${P2_OPERATION}($market: Market!, ${variables}) {
  ${fields}
}`;
}

export const P3_DOCUMENT = /* GraphQL */ `query ${P3_OPERATION}($market: Market!, $ids: [Int!]!) {
  products(market: $market, ids: $ids, first: 20) {
    edges { node { productId name category { categoryId name } ${offersSelection(PRODUCTS_BY_ID_OFFERS)} } }
  }
}`;

export const P4_DOCUMENT = /* GraphQL */ `query ${P4_OPERATION}($market: Market!, $id: Int!) {
  product(id: $id, market: $market) { name }
}`;

/** P4-id sends P4's document as a trusted document's id; run.ts stores it before measuring. */
export const P4_DOCUMENT_HASH = createHash('sha256').update(P4_DOCUMENT).digest('hex');

interface GatewayOffer {
  offerId: number;
  price: { value: number };
  shop: { shopId: number; name: string };
}

interface GatewayProduct {
  productId: number;
  name: string;
  category?: { categoryId: number; name: string };
  offers: { edges: { node: GatewayOffer }[] };
}

interface GatewayCategoryPage {
  categoryId: number;
  products: { edges: { node: GatewayProduct }[] };
}

function gatewayProductRows(product: GatewayProduct): string[] {
  const { category } = product;
  return [
    productRow(product.productId, product.name, category && { id: category.categoryId }),
    ...product.offers.edges.map(({ node: offer }) =>
      offerRow(offer.offerId, offer.price.value, { id: offer.shop.shopId, name: offer.shop.name }),
    ),
  ];
}

/** The rows of the gateway's answers to the P documents (bench/rows.ts). */
const gatewayRows = {
  categoryPages(data: Record<string, GatewayCategoryPage | null>): string[] {
    return Object.values(data).flatMap((category) =>
      category === null
        ? []
        : [
            categoryRow(category.categoryId),
            ...category.products.edges.flatMap(({ node }) => gatewayProductRows(node)),
          ],
    );
  },
  products(data: { products: { edges: { node: GatewayProduct }[] } }): string[] {
    return data.products.edges.flatMap(({ node }) => gatewayProductRows(node));
  },
  name(data: { product: { name: string } }): string[] {
    return [nameRow(data.product.name)];
  },
};

function graphqlRequest(
  document: string,
  operationName: string,
  variables: Record<string, unknown>,
): BenchRequest {
  return graphqlPost({ query: document, operationName, variables });
}

/** A GraphQL request naming a stored document by its id instead of sending its text. */
function persistedRequest(
  hash: string,
  operationName: string,
  variables: Record<string, unknown>,
): BenchRequest {
  return graphqlPost({ documentId: `sha256:${hash}`, operationName, variables });
}

function graphqlPost(body: Record<string, unknown>): BenchRequest {
  return {
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json' },
  };
}

/**
 * W5's GraphQL side is the very document the REST layer builds for W1 (read from the
 * gateway's document cache by the caller), so the two differ only by the REST layer.
 */
export function workloads(
  inputs: WorkloadInputs,
  w1Document: { query: string; variables: Record<string, unknown> },
): Workload[] {
  const w1: BenchRequest = { method: 'GET', path: `/products?market=${MARKET}&limit=15` };
  return [
    {
      id: 'W1',
      title: 'REST /products, limit 15, offers, properties, core properties',
      requests: [w1],
      raw: true,
    },
    {
      id: 'W2',
      title: 'GraphQL category → products(20) → offers(10) → shop, brand',
      requests: [
        ...inputs.categoryIds.map((category) =>
          graphqlRequest(W2_DOCUMENT, W2_OPERATION, { market: GRAPHQL_MARKET, category }),
        ),
      ],
      raw: true,
    },
    {
      id: 'W3',
      title: 'REST /suggestions: names, names with a typo, category words',
      requests: inputs.searches.map((terms) => ({
        method: 'GET',
        path: `/suggestions?market=${MARKET}&product=${encodeURIComponent(terms)}`,
      })),
      raw: true,
    },
    {
      id: 'W4-rest',
      title: 'REST point lookup with lowest price',
      requests: inputs.lookupIds.map((id) => ({
        method: 'GET',
        path: `/v1/products/${id}?market=${MARKET}&fields=${W4_REST_FIELDS}`,
      })),
      raw: true,
    },
    {
      id: 'W4-graphql',
      title: 'GraphQL point lookup with lowest price',
      requests: inputs.lookupIds.map((id) =>
        graphqlRequest(W4_DOCUMENT, W4_OPERATION, { market: GRAPHQL_MARKET, id }),
      ),
      raw: true,
    },
    { id: 'W5-rest', title: 'W1 through REST', requests: [w1], raw: false },
    {
      id: 'W5-graphql',
      title: 'W1’s document through /graphql',
      requests: [graphqlRequest(w1Document.query, 'Rest', w1Document.variables)],
      raw: false,
    },
    {
      id: 'W6',
      title: 'Partner search, 20 product ids, full offers',
      requests: [
        {
          method: 'GET',
          path:
            `/partner-search/products?market=${MARKET}&ref=${PARTNER.ref}&limit=20` +
            `&productIds=${inputs.partnerIds.join(',')}`,
          partner: true,
        },
      ],
      raw: true,
    },
    ...peerWorkloads(inputs),
  ];
}

/** P1–P4: the gateway beside PostGraphile v5, each request with its PostGraphile twin. */
function peerWorkloads(inputs: WorkloadInputs): Workload[] {
  const tree = inputs.treeCategoryIds;
  // P4 and P4-id: one product's name, by the document's text or by its id. Only P4 has a
  // PostGraphile twin: PostGraphile's users would send their own persisted operations, which
  // are not set up here, so P4-id is measured beside the gateway's own P4 only.
  const productNameWorkload = (
    id: WorkloadId,
    title: string,
    request: (variables: Record<string, unknown>) => BenchRequest,
    withTwin: boolean,
  ): Workload => ({
    id,
    title,
    requests: inputs.lookupIds.map((product) => request({ market: GRAPHQL_MARKET, id: product })),
    raw: false,
    ...(withTwin
      ? {
          peer: {
            requests: inputs.lookupIds.map((product) =>
              graphqlRequest(postgraphileProductName(P4_OPERATION), P4_OPERATION, { id: product }),
            ),
            gatewayRows: gatewayRows.name,
            peerRows: postgraphileRows.name,
          },
        }
      : {}),
  });
  return [
    {
      id: 'P1',
      title: 'GraphQL category page: products(20) → offers(10) → shop, 3 categories in turn',
      requests: inputs.categoryIds.map((category) =>
        graphqlRequest(P1_DOCUMENT, P1_OPERATION, { market: GRAPHQL_MARKET, category }),
      ),
      raw: false,
      peer: {
        requests: inputs.categoryIds.map((category) =>
          graphqlRequest(postgraphileCategoryPage(P1_OPERATION, CATEGORY_PAGE), P1_OPERATION, {
            market: MARKET,
            category,
          }),
        ),
        gatewayRows: gatewayRows.categoryPages,
        peerRows: postgraphileRows.categoryPages,
      },
    },
    {
      id: 'P2',
      title: `GraphQL ${tree.length} leaf categories → products(10) → offers(5) → shop`,
      requests: [
        graphqlRequest(categoryTreeDocument(tree.length), P2_OPERATION, {
          market: GRAPHQL_MARKET,
          ...aliasedValues('c', tree),
        }),
      ],
      raw: false,
      peer: {
        requests: [
          graphqlRequest(
            postgraphileCategoryTree(P2_OPERATION, tree.length, CATEGORY_TREE.page),
            P2_OPERATION,
            { market: MARKET, ...aliasedValues('c', tree) },
          ),
        ],
        gatewayRows: gatewayRows.categoryPages,
        peerRows: postgraphileRows.categoryPages,
      },
    },
    {
      id: 'P3',
      title: 'GraphQL 20 products by id with category and offers(10) → shop',
      requests: [
        graphqlRequest(P3_DOCUMENT, P3_OPERATION, {
          market: GRAPHQL_MARKET,
          ids: inputs.partnerIds,
        }),
      ],
      raw: false,
      peer: {
        requests: [
          graphqlRequest(
            postgraphileProductsById(P3_OPERATION, inputs.partnerIds.length, PRODUCTS_BY_ID_OFFERS),
            P3_OPERATION,
            { market: MARKET, ...aliasedValues('p', inputs.partnerIds) },
          ),
        ],
        gatewayRows: gatewayRows.products,
        peerRows: postgraphileRows.products,
      },
    },
    productNameWorkload(
      'P4',
      "GraphQL one product's name, 20 products in turn",
      (variables) => graphqlRequest(P4_DOCUMENT, P4_OPERATION, variables),
      true,
    ),
    productNameWorkload(
      'P4-id',
      "P4 by documentId: the same document as a trusted document's id",
      (variables) => persistedRequest(P4_DOCUMENT_HASH, P4_OPERATION, variables),
      false,
    ),
  ];
}

/**
 * Category words a shopper in market se types, alone and after a brand (issue 13: "tv",
 * "sony headphones"). Every scale has these brands in these categories (seeds/vocabulary).
 */
const CATEGORY_WORD_SEARCHES = ['tv', 'hörlurar', 'samsung tv', 'sony hörlurar'];

/** The typo kinds search forgives, in the order the W3 typo searches take them. */
const TYPOS: readonly ((letters: string[], at: number) => string[])[] = [
  (letters, at) => letters.toSpliced(at, 1), // deletion
  (letters, at) => letters.toSpliced(at, 0, letters[at]!), // insertion (a doubled letter)
  (letters, at) => letters.toSpliced(at, 1, letters[at] === 'x' ? 'z' : 'x'), // substitution
  (letters, at) => letters.toSpliced(at, 2, letters[at + 1]!, letters[at]!), // transposition
];

/**
 * Name searches with one typo each, the kinds in turn: in the search's longest word of 5–8
 * letters (one typo forgiven there), at its middle; repeated searches and those without such
 * a word are skipped.
 */
function withTypos(searches: readonly string[], count: number): string[] {
  const typed: string[] = [];
  for (const search of new Set(searches)) {
    const words = search.split(' ');
    const word = words
      .filter((candidate) => /^\p{L}{5,8}$/u.test(candidate))
      .reduce<string | undefined>((a, b) => (a && a.length >= b.length ? a : b), undefined);
    if (word === undefined) continue;
    const letters = Array.from(word);
    const typo = TYPOS[typed.length % TYPOS.length]!(letters, Math.floor(letters.length / 2) - 1);
    // Swapping two equal letters is no typo.
    if (typo.join('') === word) continue;
    typed.push(
      words.map((candidate) => (candidate === word ? typo.join('') : candidate)).join(' '),
    );
    if (typed.length === count) break;
  }
  return typed;
}

/** `count` items spread evenly from the first to the last (all of them when no more). */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  return Array.from(
    { length: count },
    (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))]!,
  );
}

/** Reads the workloads' inputs from a seeded catalogue (deterministic for a seed). */
export async function readWorkloadInputs(client: pg.ClientBase): Promise<WorkloadInputs> {
  // Products belong to leaf categories, so a summary's category is a leaf.
  const categories = await client.query<{ category_id: number }>(
    `select category_id from product_market_summaries where market = $1
      group by category_id order by count(*) desc, category_id`,
    [MARKET],
  );
  const ranked = categories.rows.map((row) => row.category_id);
  const popular = await client.query<{ id: number; name: string }>(
    `select s.product_id as id, p.name
       from product_market_summaries s join products p on p.id = s.product_id
      where s.market = $1 order by s.popularity desc, s.product_id limit 40`,
    [MARKET],
  );
  const ids = popular.rows.map((row) => row.id);
  const nameSearches = popular.rows.map((row) =>
    row.name.split(/\s+/).slice(0, 2).join(' ').toLowerCase(),
  );
  return {
    categoryIds: spread(ranked, 3),
    treeCategoryIds: spread(ranked, CATEGORY_TREE.categories),
    lookupIds: ids.slice(0, 20),
    partnerIds: ids.slice(20, 40),
    searches: [
      ...nameSearches.slice(0, 8),
      ...withTypos(nameSearches, 4),
      ...CATEGORY_WORD_SEARCHES,
    ],
  };
}
