/**
 * The workloads of performance.md (W1–W6) as HTTP requests. Every system under test (the
 * gateway, the naive variant, the raw-SQL baseline) answers the same requests; the inputs
 * (ids, a category, search terms) are read from the benchmark's own catalogue once, so the
 * same seed gives the same requests.
 */
import type pg from 'pg';

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
  'W1' | 'W2' | 'W3' | 'W4-rest' | 'W4-graphql' | 'W5-rest' | 'W5-graphql' | 'W6';

export interface Workload {
  id: WorkloadId;
  title: string;
  /** Cycled through by the load generator, in order. */
  requests: BenchRequest[];
  /** Has a raw-SQL twin (W5 compares the gateway with itself). */
  raw: boolean;
}

export interface WorkloadInputs {
  /** The market's most popular leaf category (by products with an available offer). */
  categoryId: number;
  /** Products for point lookups, most popular first. */
  lookupIds: number[];
  /** Twenty product ids for partner search. */
  partnerIds: number[];
  /** Two-term product searches taken from product names. */
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
    lowestPrice {
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

function graphqlRequest(
  document: string,
  operationName: string,
  variables: Record<string, unknown>,
): BenchRequest {
  return {
    method: 'POST',
    path: '/graphql',
    body: JSON.stringify({ query: document, operationName, variables }),
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
        graphqlRequest(W2_DOCUMENT, W2_OPERATION, {
          market: GRAPHQL_MARKET,
          category: inputs.categoryId,
        }),
      ],
      raw: true,
    },
    {
      id: 'W3',
      title: 'REST /suggestions, two search terms',
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
  ];
}

/** Reads the workloads' inputs from a seeded catalogue (deterministic for a seed). */
export async function readWorkloadInputs(client: pg.ClientBase): Promise<WorkloadInputs> {
  const category = await client.query<{ category_id: number }>(
    `select category_id from product_market_summaries where market = $1
      group by category_id order by count(*) desc, category_id limit 1`,
    [MARKET],
  );
  const popular = await client.query<{ id: number; name: string }>(
    `select s.product_id as id, p.name
       from product_market_summaries s join products p on p.id = s.product_id
      where s.market = $1 order by s.popularity desc, s.product_id limit 40`,
    [MARKET],
  );
  const ids = popular.rows.map((row) => row.id);
  return {
    categoryId: category.rows[0]!.category_id,
    lookupIds: ids.slice(0, 20),
    partnerIds: ids.slice(20, 40),
    searches: popular.rows
      .slice(0, 8)
      .map((row) => row.name.split(/\s+/).slice(0, 2).join(' ').toLowerCase()),
  };
}
