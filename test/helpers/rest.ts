/**
 * REST requests through `app.fetch`, like a partner's client: GET and POST with a parsed JSON
 * body, a demo partner token from POST /partner-search/token, and GraphQL on the same app for
 * parity checks, built on the file's seeded catalogue (one per test file); and the pieces of
 * such requests: the token request, a `fields` expression, a query string.
 *
 * The app here is built on the seeded database with the rate limiter switched off
 * (RATE_LIMIT_*=0): every request of a test file comes from the same (unknown) client address,
 * and property tests send more than a minute's anonymous allowance. Rate limiting has its own
 * tests; everything else (routing, auth, the REST engine) is the real thing.
 */
import { pino } from 'pino';
import { beforeAll, expect } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { Resource } from '../../src/rest/resources.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { useSeededCatalogue, type GraphQLBody, type SeededCatalogue } from './seeded.ts';

export const BASE_URL = 'http://test';

export interface RestResponse<Body = any> {
  status: number;
  headers: Headers;
  /** The raw body text ('' for 304 and the like). */
  text: string;
  /** The parsed JSON body, or undefined when the body is empty or not JSON. */
  body: Body;
}

export interface RequestOptions {
  headers?: Record<string, string>;
  /** A bearer token; `'demo'` fetches (once) and sends the demo partner's token. */
  token?: string | 'demo';
}

export interface RestCatalogue {
  readonly catalogue: SeededCatalogue;
  readonly app: App;
  /** GET a path with its query string (`/suggestions?market=se`). */
  get<Body = any>(path: string, options?: RequestOptions): Promise<RestResponse<Body>>;
  /** GET with the demo partner's token. */
  partner<Body = any>(path: string, options?: RequestOptions): Promise<RestResponse<Body>>;
  /** Any method, any body. */
  request<Body = any>(
    method: string,
    path: string,
    options?: RequestOptions & { body?: BodyInit },
  ): Promise<RestResponse<Body>>;
  /** The demo partner's access token (fetched once per file). */
  token(): Promise<string>;
  /** POSTs an operation to /graphql and answers its data, failing the test on errors. */
  graphqlData<Data = any>(query: string, variables?: Record<string, unknown>): Promise<Data>;
  /** POSTs an operation to /graphql and answers the whole body. */
  graphql<Data = any>(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<GraphQLBody<Data>>;
}

async function read<Body>(response: Response): Promise<RestResponse<Body>> {
  const text = await response.text();
  let body: Body = undefined as Body;
  if (text !== '') {
    try {
      body = JSON.parse(text) as Body;
    } catch {
      // not JSON: tests look at `text`
    }
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** Registers the seeded catalogue and an app on it; call at the top level of a test file. */
export function useRestCatalogue(): RestCatalogue {
  const catalogue = useSeededCatalogue();
  let app: App | undefined;
  let token: Promise<string> | undefined;

  beforeAll(() => {
    app = createApp({
      config: loadConfig({
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
        RATE_LIMIT_CLIENT_PER_MINUTE: '0',
        // Paging links are built on the public base URL: the one these requests are sent to.
        PUBLIC_BASE_URL: BASE_URL,
      }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
  });

  const theApp = () => {
    if (!app) throw new Error('the REST catalogue is used outside a test');
    return app;
  };

  async function request<Body>(
    method: string,
    path: string,
    options: RequestOptions & { body?: BodyInit } = {},
  ): Promise<RestResponse<Body>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) {
      const value = options.token === 'demo' ? await demoToken() : options.token;
      headers.authorization = `Bearer ${value}`;
    }
    const init: RequestInit = { method, headers };
    if (options.body !== undefined) init.body = options.body;
    const response = await theApp().fetch(new Request(`${BASE_URL}${path}`, init));
    return read<Body>(response);
  }

  function demoToken(): Promise<string> {
    token ??= (async () => {
      const response = await read<{ access_token: string }>(
        await theApp().fetch(demoTokenRequest(BASE_URL)),
      );
      if (response.status !== 200) {
        throw new Error(`the demo token request answered ${response.status}: ${response.text}`);
      }
      return response.body.access_token;
    })();
    return token;
  }

  async function graphql<Data>(query: string, variables?: Record<string, unknown>) {
    const response = await theApp().fetch(
      new Request(`${BASE_URL}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await response.json()) as GraphQLBody<Data>;
  }

  return {
    catalogue,
    get app() {
      return theApp();
    },
    get: (path, options) => request('GET', path, options),
    partner: (path, options) => request('GET', path, { token: 'demo', ...options }),
    request,
    token: demoToken,
    graphql,
    async graphqlData<Data>(query: string, variables?: Record<string, unknown>) {
      const body = await graphql<Data>(query, variables);
      expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
      return body.data as Data;
    },
  };
}

/** The demo partner's token request (OAuth client credentials) to the service at `base`. */
export function demoTokenRequest(base: string): Request {
  return new Request(`${base}${TOKEN_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: DEMO_CLIENT.id,
      client_secret: DEMO_CLIENT.secret,
    }),
  });
}

/** A `fields` expression choosing every field at every level: `*` plus the on-request ones. */
export function everyField(resource: Resource): string {
  const items = ['*'];
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.kind === 'leaf') {
      if (!field.standard) items.push(name);
      continue;
    }
    const below = everyField(field.kind === 'object' ? field.fields : field.item);
    if (!field.standard || below !== '*') items.push(`${name}(${below})`);
  }
  return items.join(',');
}

/** `?a=1&b=2` from pairs (repeats allowed), encoded as a browser would. */
export function query(params: Record<string, string | number> | [string, string | number][]) {
  const pairs = Array.isArray(params) ? params : Object.entries(params);
  const search = new URLSearchParams(pairs.map(([name, value]) => [name, String(value)]));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The shape every REST error has (decisions 3), for a given status. */
export function expectErrorBody(response: RestResponse, status: number) {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const error = response.body?.error;
  expect(Object.keys(response.body ?? {})).toEqual(['error']);
  expect(error.code).toBe(`http.${status}`);
  expect(typeof error.message).toBe('string');
  expect(error.message.length).toBeGreaterThan(0);
  expect(typeof error.request_id).toBe('string');
  expect(error.request_id).toBe(response.headers.get('x-request-id'));
  if (error.details !== undefined) {
    expect(Array.isArray(error.details)).toBe(true);
    for (const detail of error.details) {
      expect(typeof detail.parameter).toBe('string');
      expect(typeof detail.reason).toBe('string');
    }
  }
  for (const key of Object.keys(error)) {
    expect(['code', 'message', 'details', 'request_id']).toContain(key);
  }
  return error as {
    code: string;
    message: string;
    details?: { parameter: string; reason: string }[];
    request_id: string;
  };
}

// ---------------------------------------------------------------------------------------
// A small schema checker: the exact keys of every object, each value's JSON type and
// nullability. Problems are listed with their JSON path, so one failure names every mismatch.

export type Shape =
  | { kind: 'string'; pattern?: RegExp }
  | { kind: 'integer' | 'number' | 'boolean' | 'null' }
  | { kind: 'enum'; values: readonly unknown[] }
  | { kind: 'object'; fields: Record<string, Shape> }
  | { kind: 'array'; items: Shape }
  | { kind: 'map'; keys: RegExp; values: Shape }
  | { kind: 'union'; options: Shape[] }
  | { kind: 'lazy'; get: () => Shape };

export const t = {
  string: { kind: 'string' } as Shape,
  /** An absolute http(s) URL. */
  url: { kind: 'string', pattern: /^https?:\/\/[^\s/]+\/?\S*$/ } as Shape,
  integer: { kind: 'integer' } as Shape,
  number: { kind: 'number' } as Shape,
  boolean: { kind: 'boolean' } as Shape,
  null: { kind: 'null' } as Shape,
  enum: (...values: unknown[]): Shape => ({ kind: 'enum', values }),
  object: (fields: Record<string, Shape>): Shape => ({ kind: 'object', fields }),
  array: (items: Shape): Shape => ({ kind: 'array', items }),
  map: (keys: RegExp, values: Shape): Shape => ({ kind: 'map', keys, values }),
  union: (...options: Shape[]): Shape => ({ kind: 'union', options }),
  nullable: (shape: Shape): Shape => ({ kind: 'union', options: [shape, { kind: 'null' }] }),
  lazy: (get: () => Shape): Shape => ({ kind: 'lazy', get }),
};

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Every way `value` differs from `shape`, each prefixed with its JSON path. */
export function shapeProblems(value: unknown, shape: Shape, path = '$'): string[] {
  const found = jsonType(value);
  const mismatch = (expected: string) => [
    `${path}: expected ${expected}, got ${found} ${JSON.stringify(value)?.slice(0, 80)}`,
  ];
  switch (shape.kind) {
    case 'lazy':
      return shapeProblems(value, shape.get(), path);
    case 'string':
      if (typeof value !== 'string') return mismatch('string');
      if (shape.pattern && !shape.pattern.test(value)) return mismatch(`string ${shape.pattern}`);
      return [];
    case 'integer':
      return found === 'integer' ? [] : mismatch('integer');
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? [] : mismatch('number');
    case 'boolean':
    case 'null':
      return found === shape.kind ? [] : mismatch(shape.kind);
    case 'enum':
      return shape.values.includes(value) ? [] : mismatch(`one of ${JSON.stringify(shape.values)}`);
    case 'union': {
      const each = shape.options.map((option) => shapeProblems(value, option, path));
      return each.some((problems) => problems.length === 0)
        ? []
        : [`${path}: matches no alternative: ${each.map((p) => p.join('; ')).join(' | ')}`];
    }
    case 'array':
      if (!Array.isArray(value)) return mismatch('array');
      return value.flatMap((item, index) => shapeProblems(item, shape.items, `${path}[${index}]`));
    case 'map':
      if (found !== 'object') return mismatch('object (map)');
      return Object.entries(value as Record<string, unknown>).flatMap(([key, item]) => [
        ...(shape.keys.test(key) ? [] : [`${path}: key ${JSON.stringify(key)} ~ ${shape.keys}`]),
        ...shapeProblems(item, shape.values, `${path}[${JSON.stringify(key)}]`),
      ]);
    case 'object': {
      if (found !== 'object') return mismatch('object');
      const record = value as Record<string, unknown>;
      const expected = Object.keys(shape.fields);
      const missing = expected.filter((key) => !(key in record));
      const extra = Object.keys(record).filter((key) => !(key in shape.fields));
      return [
        ...missing.map((key) => `${path}.${key}: missing`),
        ...extra.map((key) => `${path}.${key}: not expected`),
        ...expected
          .filter((key) => key in record)
          .flatMap((key) => shapeProblems(record[key], shape.fields[key]!, `${path}.${key}`)),
      ];
    }
  }
}

export function expectShape(value: unknown, shape: Shape) {
  const problems = shapeProblems(value, shape);
  expect(problems.slice(0, 30), `${problems.length} problem(s)`).toEqual([]);
}

/** The market currencies of decisions 4. */
export const CURRENCY = {
  se: 'SEK',
  no: 'NOK',
  dk: 'DKK',
  fi: 'EUR',
  fr: 'EUR',
  gb: 'GBP',
  nz: 'NZD',
} as const;

export const STOCK_STATUSES = ['IN_STOCK', 'LIMITED_STOCK', 'PREORDER', 'INCOMING', 'UNKNOWN'];
export const CONDITIONS = [
  'CONDITION_NEW',
  'CONDITION_USED',
  'CONDITION_REFURBISHED',
  'CONDITION_DEMO',
];

const nullableString = t.nullable(t.string);
const nullableNumber = t.nullable(t.number);
const nullableUrl = t.nullable(t.url);
/** `{small, large}` (decisions 13): each a URL or null. */
const imageUrls = t.object({ small: nullableUrl, large: nullableUrl });
const isoTimestamp = t.nullable({ kind: 'string', pattern: /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/ });

/** Shapes of the default responses (spec section 2, decisions 10, 12, 13), per market. */
export function restShapes(market: keyof typeof CURRENCY) {
  const currency = t.enum(CURRENCY[market]);
  const money = t.object({ value: t.number, currency });
  const moneyWithShipping = t.object({
    value: t.number,
    currency,
    includingShipping: nullableNumber,
  });
  const periodPrice = t.nullable(
    t.object({ value: t.number, currency, start: isoTimestamp, end: isoTimestamp }),
  );
  const shop = t.object({ id: t.integer, name: t.string, logo: imageUrls });

  const partnerOffer = t.object({
    url: t.url,
    offerName: t.string,
    productCondition: t.enum(...CONDITIONS),
    currentPrice: money,
    memberPrice: periodPrice,
    salesPrice: periodPrice,
    originalPrice: periodPrice,
    shop,
    stockStatus: t.enum(...STOCK_STATUSES),
  });
  const partnerProduct = t.object({
    id: t.integer,
    name: t.string,
    brand: t.nullable(t.object({ id: t.number, name: t.string })),
    offers: t.array(partnerOffer),
    productPage: t.url,
    category: t.object({ id: t.integer, name: t.string }),
    rankWithinCategory: t.number,
  });
  const partnerList = t.object({
    links: t.object({ next: t.nullable(t.url), self: t.url, prev: t.nullable(t.url) }),
    paging: t.object({
      limit: t.integer,
      nextOffset: t.nullable(t.integer),
      offset: t.integer,
      prevOffset: t.nullable(t.integer),
    }),
    data: t.array(partnerProduct),
  });

  const itemCategory = t.object({
    id: { kind: 'string', pattern: /^\d+$/ },
    name: t.string,
    rank: t.integer,
  });
  const suggestion = t.object({
    productId: { kind: 'string', pattern: /^\d+$/ },
    productName: t.string,
    category: itemCategory,
    brand: t.nullable(t.object({ name: t.string })),
    images: imageUrls,
    lowestPrice: t.object({
      price: moneyWithShipping,
      memberPrice: periodPrice,
      salesPrice: periodPrice,
      originalPrice: periodPrice,
      shop,
      priceTrend: t.object({ percentage: nullableNumber }),
    }),
  });

  const categoryItem = t.object({
    id: { kind: 'string', pattern: /^\d+$/ },
    name: t.string,
    slug: { kind: 'string', pattern: /^[a-z0-9-]+$/ },
    url: t.url,
    logo: t.nullable(imageUrls),
  });

  const propertyValue = t.union(t.boolean, t.string, t.number, t.null);
  const property: Shape = t.object({
    type: t.enum('category', 'boolean', 'string', 'number'),
    name: t.string,
    value: propertyValue,
    unit: nullableString,
    icon: nullableString,
    properties: t.array(t.lazy(() => property)),
  });
  const coreProperty: Shape = t.object({
    type: t.enum('property'),
    name: t.string,
    value: propertyValue,
    core: t.nullable(t.boolean),
    comment: nullableString,
    unit: nullableString,
    icon: nullableString,
    properties: t.nullable(t.array(t.lazy(() => coreProperty))),
  });
  const productOffer = t.object({
    price: moneyWithShipping,
    salesPrice: periodPrice,
    memberPrice: periodPrice,
    originalPrice: periodPrice,
    url: t.url,
    shop,
    alternativePrices: t.array(t.object({ price: money, url: t.url })),
  });
  const productItem = t.object({
    productId: { kind: 'string', pattern: /^\d+$/ },
    productName: t.string,
    category: itemCategory,
    brand: t.nullable(t.object({ name: t.string })),
    images: imageUrls,
    offers: t.array(productOffer),
    properties: t.array(property),
    coreProperties: t.array(coreProperty),
  });
  const productsList = t.object({
    links: t.object({ prev: t.nullable(t.url), next: t.nullable(t.url), self: t.url }),
    data: t.array(productItem),
  });

  const genericProduct = t.object({
    id: t.number,
    name: t.string,
    popularity: t.number,
    stock: t.object({ status: t.enum(...STOCK_STATUSES) }),
    uri: t.url,
    price: t.object({
      regular: nullableNumber,
      alternative: nullableNumber,
      in_stock: nullableNumber,
    }),
  });
  const genericCategory = t.object({
    id: { kind: 'string', pattern: /^\d+$/ },
    name: t.string,
    uri: t.url,
    products_total: t.integer,
    lowest_price: nullableNumber,
    description: nullableString,
    logo: nullableUrl,
    path: t.map(/^\d+$/, t.string),
    parent: t.nullable(t.object({ id: { kind: 'string', pattern: /^\d+$/ } })),
  });
  const genericList = (item: Shape) =>
    t.object({
      meta: t.object({
        paging: t.object({ next: t.nullable(t.url), prev: t.nullable(t.url) }),
        items_total: t.nullable(t.integer),
      }),
      items: t.array(item),
    });
  const genericSingle = (item: Shape) => t.object({ meta: t.object({}), items: t.array(item) });

  return {
    money,
    moneyWithShipping,
    periodPrice,
    shop,
    imageUrls,
    partnerOffer,
    partnerProduct,
    partnerList,
    suggestion,
    suggestions: t.object({ data: t.array(suggestion) }),
    categoryItem,
    categories: t.object({ data: t.array(categoryItem) }),
    property,
    coreProperty,
    productOffer,
    productItem,
    productsList,
    productsData: t.object({ data: t.array(productItem) }),
    genericProduct,
    genericCategory,
    genericList,
    genericSingle,
  };
}
