/**
 * The REST routes the bench calls (W1, W3, W4-rest, W6) and the two GraphQL operations (W2,
 * W4-graphql): each reads its inputs, runs its one statement and answers the body Postgres
 * built. Links are formatted here, with the URL rules the gateway uses (src/rest/paging.ts),
 * and handed to the statement as text.
 */
import {
  W2_DOCUMENT,
  W2_OPERATION,
  W4_DOCUMENT,
  W4_OPERATION,
  W4_REST_FIELDS,
} from '../workloads.ts';
import {
  intVariable,
  marketVariable,
  pathId,
  QueryParams,
  RequestError,
  SEARCH_CONFIGS,
} from './params.ts';
import { categoryProductsStatement } from './sql/category-products.ts';
import { partnerSearchStatement } from './sql/partner-search.ts';
import { productLookupGraphqlStatement, productLookupRestStatement } from './sql/product-lookup.ts';
import { productsPageStatement } from './sql/products-page.ts';
import {
  FRONT_ROWS,
  MAX_QUERY_LENGTH,
  MAX_QUERY_TERMS,
  searchTermOf,
  splitQuery,
  suggestionsStatement,
} from './sql/suggestions.ts';
import { relevanceQueries } from '../../src/search/relevance-queries.ts';
import type { TypoVocabulary } from '../../src/search/typo-tolerance.ts';
import type { TextSearchConfig } from '../../src/search/text-search-configs.ts';

export interface Statement {
  /** The prepared statement's name: parsed and planned once per connection. */
  name: string;
  text: string;
}

/** Runs one statement and answers its `body` column (null when it returns no row). */
export type RunStatement = (statement: Statement, values: unknown[]) => Promise<string | null>;

export interface Answer {
  status: number;
  /** JSON text. */
  body: string;
  headers?: Record<string, string>;
}

export interface RouteRequest {
  /** The request URL as the gateway sees it (`http://<Host header><path>`). */
  url: URL;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  run: RunStatement;
  /** A language's typo vocabulary, read once per process (src/search/vocabularies.ts). */
  vocabulary: (config: TextSearchConfig) => Promise<TypoVocabulary>;
}

/** The one REST error body (src/responses.ts errorBody). */
export function errorAnswer(status: number, message: string, requestId: string): Answer {
  const body = { error: { code: `http.${status}`, message, request_id: requestId } };
  return { status, body: JSON.stringify(body) };
}

/** src/rest/paging.ts linkWithOffset: the same URL with another offset. */
function linkWithOffset(url: URL, offset: number): string {
  const link = new URL(url);
  link.searchParams.set('offset', String(offset));
  return link.toString();
}

/** The previous page's link (src/rest/paging.ts pageLinks), or null on the first page. */
function previousLink(url: URL, { limit, offset }: { limit: number; offset: number }) {
  return offset > 0 ? linkWithOffset(url, Math.max(0, offset - limit)) : null;
}

function ok(body: string | null, headers?: Record<string, string>): Answer {
  if (body === null) throw new Error('the statement returned no body');
  return headers ? { status: 200, body, headers } : { status: 200, body };
}

/** W1: GET /products (default fields, no filter). */
export async function products(request: RouteRequest): Promise<Answer> {
  const params = new QueryParams(request.url.searchParams);
  const market = params.market();
  const paging = params.paging(10, 15);
  const ref = params.ref(false);
  params.unsupported('filter[category]', 'gtin', 'fields');
  const { url } = request;
  const firstPage = paging.offset === 0;
  const body = await request.run(productsPageStatement(market, firstPage), [
    paging.limit,
    ref,
    url.toString(),
    linkWithOffset(url, paging.offset + paging.limit),
    previousLink(url, paging),
    url.origin,
    ...(firstPage ? [] : [paging.offset]),
  ]);
  return ok(body);
}

/** W3: GET /suggestions with `product` (default fields, no filter). */
export async function suggestions(request: RouteRequest): Promise<Answer> {
  const params = new QueryParams(request.url.searchParams);
  const market = params.market();
  const query = params.text('product', MAX_QUERY_LENGTH, MAX_QUERY_TERMS);
  const paging = params.paging(5, 30);
  params.ref(false); // checked; suggestions show no offer URL
  params.unsupported('category', 'filter[category]', 'filter[price_trend]', 'fields');
  params.unsupported('filter[price_trend][gte]', 'filter[price_trend][lte]');
  const terms = splitQuery(query).flatMap((term) => searchTermOf(term) ?? []);
  // No letters or digits at all: nothing matches, and the gateway asks the database nothing.
  if (terms.length === 0) return { status: 200, body: '{"data":[]}' };
  const config = SEARCH_CONFIGS[market];
  const words = terms.flatMap((term) => term.words);
  const tiers = relevanceQueries(config, words, await request.vocabulary(config));
  const statement = suggestionsStatement(
    config,
    tiers.map((tier) => tier.weights),
  );
  const body = await request.run(statement, [
    market,
    FRONT_ROWS,
    paging.offset + paging.limit + 1,
    paging.offset,
    paging.limit,
    request.url.origin,
    ...tiers.map((tier) => tier.query),
    ...tiers.map((tier) => tier.anyTerm),
  ]);
  return ok(body);
}

/** W4-rest: GET /v1/products/{id}?fields=id,name,price. */
export async function genericProduct(request: RouteRequest, rawId: string): Promise<Answer> {
  const params = new QueryParams(request.url.searchParams);
  const id = pathId('id', rawId);
  const market = params.market();
  params.paging(30, 100);
  params.ref(false);
  params.only('fields', W4_REST_FIELDS);
  const body = await request.run(productLookupRestStatement, [market, id]);
  return body === null ? errorAnswer(404, `product ${id} not found`, request.requestId) : ok(body);
}

const PARTNER_HEADERS = { 'api-version': '1.0.0' };
const PRODUCT_IDS = /^[0-9]+(,[0-9]+){0,19}$/;

/** W6: GET /partner-search/products by productIds (default fields). */
export async function partnerSearch(request: RouteRequest): Promise<Answer> {
  // Any Bearer token will do: the baseline measures the answer, not token checks.
  const authorization = request.headers.authorization;
  if (typeof authorization !== 'string' || !/^Bearer \S+$/i.test(authorization)) {
    return errorAnswer(401, 'a Bearer token is required', request.requestId);
  }
  const params = new QueryParams(request.url.searchParams);
  const market = params.market();
  const ref = params.ref(true);
  const paging = params.paging(10, 250);
  const ids = params.ids('productIds', PRODUCT_IDS);
  params.unsupported('gtins', 'fields');
  const { url } = request;
  const body = await request.run(partnerSearchStatement, [
    market,
    ids,
    paging.offset,
    paging.limit,
    ref,
    url.toString(),
    linkWithOffset(url, paging.offset + paging.limit),
    previousLink(url, paging),
    url.origin,
  ]);
  return ok(body, PARTNER_HEADERS);
}

interface GraphqlBody {
  query?: unknown;
  operationName?: unknown;
  variables?: unknown;
}

/**
 * POST /graphql: the bench's two operations, recognised by name and document text. Anything
 * else is a 404: the baseline executes no GraphQL.
 */
export async function graphql(request: RouteRequest, text: string): Promise<Answer | null> {
  let parsed: GraphqlBody;
  try {
    parsed = JSON.parse(text) as GraphqlBody;
  } catch {
    throw new RequestError(400, 'the body is not JSON');
  }
  const variables = (parsed.variables ?? {}) as Record<string, unknown>;
  if (typeof variables !== 'object' || variables === null) {
    throw new RequestError(400, 'variables must be an object');
  }
  if (parsed.operationName === W2_OPERATION && parsed.query === W2_DOCUMENT) {
    const market = marketVariable(variables);
    const category = intVariable(variables, 'category');
    return ok(await request.run(categoryProductsStatement(market), [category]));
  }
  if (parsed.operationName === W4_OPERATION && parsed.query === W4_DOCUMENT) {
    const market = marketVariable(variables);
    const id = intVariable(variables, 'id');
    if (id < 1) throw new RequestError(400, 'id must be a positive integer');
    return ok(await request.run(productLookupGraphqlStatement, [market, id]));
  }
  return null;
}
