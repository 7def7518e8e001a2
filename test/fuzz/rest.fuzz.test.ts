/**
 * REST under fuzzed requests (issue 11): every route of src/rest/routes/ (read as data), the
 * token endpoint and paths no route serves, with generated parameter names (declared,
 * misspelled, unknown, prototype names), values (empty, huge, odd Unicode, control
 * characters, broken percent-encoding, numbers out of range, repeats), `fields` expressions
 * (nested, deep, empty parts, prototype names), odd path parameters, methods and headers.
 * Whatever is sent: no 5xx, no stack trace, source file or SQL in the body, every 4xx in its
 * documented shape with X-Request-Id. A smaller share goes over a real socket with the request
 * targets only raw HTTP can send (absolute form, `*`, other schemes).
 *
 * FUZZ_RUNS=20000 runs the probe (its figures printed); FUZZ_SEED and FUZZ_PATH replay a
 * failure (test/fuzz/fuzzing.ts).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_ERROR_CODES, TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import type { ParamSpec } from '../../src/rest/params.ts';
import type { Resource } from '../../src/rest/resources.ts';
import type { RestRoute } from '../../src/rest/route.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { sendRaw, serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { BASE_URL, expectErrorBody, useRestCatalogue, type RestResponse } from '../helpers/rest.ts';
import {
  assertParameters,
  fuzzSettings,
  headerSafe,
  hostileText,
  leaksIn,
  NUMBER_JUNK,
  oddText,
  PERCENT_JUNK,
  PROTOTYPE_NAMES,
  sometimes,
  StatusTally,
  timeAllowance,
} from './fuzzing.ts';

const rest = useRestCatalogue();
const settings = fuzzSettings(2000);
/** The share of runs sent over a socket with a raw request target. */
const RAW_SHARE = 0.1;

let demoToken = '';
let served: ServedApp;
beforeAll(async () => {
  // Fetched before any fuzzed token request can lock the demo client out.
  demoToken = await rest.token();
  served = await serveApp(rest.catalogue.database, {
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
    RATE_LIMIT_CLIENT_PER_MINUTE: '0',
  });
});
afterAll(() => served?.close());

// ---------------------------------------------------------------------------------------
// A request, as generated

/** How one query-string name or value is written. */
type Writing = 'encoded' | 'raw' | 'junk-escape';

interface Pair {
  name: string;
  value: string | undefined;
  writing: Writing;
}

/** Who the request claims to be: the demo partner, a bad credential, or nobody. */
type Credential = { kind: 'demo' } | { kind: 'none' } | { kind: 'header'; value: string };

interface RestCase {
  method: string;
  /** Path and query, as written on the request line. */
  target: string;
  credential: Credential;
  headers: [string, string][];
  body?: string;
  /** Answers in RFC 6749's error shape rather than the service's (the token endpoint). */
  oauth: boolean;
}

/** Percent-encoded; a lone surrogate, which no URL can carry, as U+FFFD. */
function encoded(text: string): string {
  return encodeURIComponent(text.replace(/\p{Cs}/gu, '\ufffd'));
}

function write(text: string, writing: Writing): string {
  switch (writing) {
    case 'encoded':
      return encoded(text);
    case 'raw':
      return text;
    case 'junk-escape':
      return `${encoded(text)}%${text.length % 2 === 0 ? 'zz' : ''}`;
  }
}

const writing = fc.constantFrom<Writing>(
  'encoded',
  'encoded',
  'encoded',
  'encoded',
  'raw',
  'junk-escape',
);

function queryString(pairs: Pair[]): string {
  const text = pairs
    .map(({ name, value, writing: how }) =>
      value === undefined ? write(name, how) : `${write(name, how)}=${write(value, how)}`,
    )
    .join('&');
  return text === '' ? '' : `?${text}`;
}

// ---------------------------------------------------------------------------------------
// Names and values

/** Misspellings of a declared name: case, plural, a letter dropped, doubled or swapped. */
function misspelled(name: string): fc.Arbitrary<string> {
  return fc
    .nat({ max: Math.max(0, name.length - 1) })
    .chain((at) =>
      fc.constantFrom(
        name.toUpperCase(),
        `${name}s`,
        name.slice(0, at) + name.slice(at + 1),
        name.slice(0, at) + name[at] + name.slice(at),
        name.slice(0, at) + (name[at + 1] ?? '') + name[at] + name.slice(at + 2),
        `${name}_`,
        ` ${name}`,
        `${name}[]`,
        `${name}[0]`,
      ),
    );
}

const unknownName: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('_', 'utm_source', 'callback', 'cb', 'x', 'filter', 'filter[]', 'filter['),
  fc.constantFrom('filter[price_trend][gte][x]', 'filter[category][0]', 'fields[]', '[]', '='),
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
  hostileText,
);

function parameterName(route: RestRoute): fc.Arbitrary<string> {
  const declared = queryParams(route).map((spec) => spec.name);
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...declared) },
    { weight: 2, arbitrary: fc.constantFrom(...declared).chain(misspelled) },
    { weight: 2, arbitrary: unknownName },
  );
}

const SEARCH_TERMS = ['b', 'a', 'phone', 'tv', 'pro max', 'x y z', 'É', '中文', '1'];
const IDS = fc.integer({ min: 1, max: 400 });

function idList(maxItems: number): fc.Arbitrary<string> {
  return fc.array(IDS, { minLength: 1, maxLength: maxItems + 3 }).map((ids) => ids.join(','));
}

/** A value the declaration accepts, mostly, at small sizes (a page of 250 is slow to build). */
function validValue(spec: ParamSpec): fc.Arbitrary<string> {
  const { schema } = spec;
  switch (schema.type) {
    case 'enum':
      return fc.constantFrom(...schema.values);
    case 'integer':
      return fc
        .oneof(
          { weight: 5, arbitrary: fc.integer({ min: schema.minimum, max: schema.minimum + 4 }) },
          { weight: 1, arbitrary: fc.integer({ min: schema.minimum, max: schema.maximum }) },
        )
        .map(String);
    case 'number':
      return fc
        .integer({ min: schema.minimum * 100, max: schema.maximum * 100 })
        .map((hundredths) => String(hundredths / 100));
    case 'idList':
      return idList(schema.maxItems > 10 ? 20 : 10);
    case 'string':
      if (spec.name === 'ref') return fc.constantFrom('demo-ref', 'other-ref', 'a', 'x.y~z');
      if (spec.name === 'fields') return fc.constant('id');
      return fc.constantFrom(...SEARCH_TERMS);
  }
}

/** A value for any parameter: one it could take, or anything hostile. */
function anyValue(route: RestRoute): fc.Arbitrary<string> {
  const specs = queryParams(route);
  return fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...specs).chain(validValue) },
    { weight: 1, arbitrary: fc.constantFrom(...NUMBER_JUNK) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
    { weight: 2, arbitrary: hostileText },
  );
}

function queryParams(route: RestRoute): ParamSpec[] {
  return route.params.filter((spec) => spec.in === 'query');
}

// ---------------------------------------------------------------------------------------
// `fields`

/** Every name declared anywhere below a resource: what a confused client might ask for. */
function namesBelow(resource: Resource, seen = new Set<string>()): Set<string> {
  for (const [name, field] of Object.entries(resource.fields)) {
    seen.add(name);
    const below =
      field.kind === 'object' ? field.fields : field.kind === 'list' ? field.item : null;
    if (below && !seen.has(`#${below.name}`)) {
      seen.add(`#${below.name}`);
      namesBelow(below, seen);
    }
  }
  return seen;
}

const fieldsCache = new Map<string, fc.Arbitrary<string>>();

/**
 * A `fields` expression for `resource`: declared names at the right level, in either nesting
 * form; when `mixed`, also names of other levels, misspellings, prototype names and empty
 * parts.
 */
function fieldsOf(resource: Resource, depth: number, mixed: boolean): fc.Arbitrary<string> {
  const key = `${resource.name}:${depth}:${mixed}`;
  const cached = fieldsCache.get(key);
  if (cached) return cached;
  const names = Object.keys(resource.fields);
  const nested = Object.entries(resource.fields).flatMap(([name, field]) =>
    field.kind === 'leaf' ? [] : [[name, field.kind === 'object' ? field.fields : field.item]],
  ) as [string, Resource][];
  const options: fc.WeightedArbitrary<string>[] = [
    { weight: 6, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.constant('*') },
  ];
  if (nested.length > 0 && depth < 4) {
    options.push({
      weight: 3,
      arbitrary: fc
        .constantFrom(...nested)
        .chain(([name, below]) =>
          fc
            .tuple(fieldsOf(below, depth + 1, mixed), fc.boolean())
            .map(([inner, dotted]) =>
              dotted && !inner.includes(',') ? `${name}.${inner}` : `${name}(${inner})`,
            ),
        ),
    });
  }
  if (mixed) {
    const stranger = [...namesBelow(resource)].filter((name) => !name.startsWith('#'));
    options.push(
      { weight: 1, arbitrary: fc.constantFrom(...stranger) },
      { weight: 1, arbitrary: fc.constantFrom(...names).chain(misspelled) },
      { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(
            fc.constantFrom(...names),
            fc.constantFrom(...PROTOTYPE_NAMES, 'x', '*', ''),
            fc.boolean(),
          )
          .map(([name, below, dotted]) => (dotted ? `${name}.${below}` : `${name}(${below})`)),
      },
      { weight: 1, arbitrary: fc.constantFrom('', ' ', '()', '(,)', '.', 'a..b', '(', ')') },
    );
  }
  const separator = mixed ? fc.constantFrom(',', ', ', ',,', ' , ') : fc.constantFrom(',', ' , ');
  const list = fc
    .tuple(fc.array(fc.oneof(...options), { minLength: 1, maxLength: 5 }), separator)
    .map(([items, between]) => items.join(between));
  fieldsCache.set(key, list);
  return list;
}

/** Beyond the grammar's bounds: deep, long, many names, unbalanced, odd characters. */
function hostileFields(resource: Resource): fc.Arbitrary<string> {
  const names = Object.keys(resource.fields);
  return fc.oneof(
    fc
      .tuple(fc.constantFrom(...names), fc.integer({ min: 5, max: 60 }))
      .map(([name, depth]) => `${`${name}(`.repeat(depth)}id${')'.repeat(depth)}`),
    fc
      .tuple(fc.constantFrom(...PROTOTYPE_NAMES), fc.integer({ min: 2, max: 12 }))
      .map(([name, depth]) => Array.from({ length: depth }, () => name).join('.')),
    fc.integer({ min: 1, max: 3000 }).map((count) => '('.repeat(count)),
    fc.integer({ min: 1, max: 3000 }).map((count) => `id${')'.repeat(count)}`),
    fc.integer({ min: 150, max: 800 }).map((count) => Array(count).fill('id').join(',')),
    fc.integer({ min: 4000, max: 20_000 }).map((length) => 'a'.repeat(length)),
    fc.constantFrom('*.*', 'a.*', '**', '*(id)', 'id()', 'id(*)', ',id', 'id,', '1a', '_'),
    oddText,
  );
}

function fieldsValue(route: RestRoute): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fieldsOf(route.resource, 0, false) },
    { weight: 2, arbitrary: fieldsOf(route.resource, 0, true) },
    { weight: 1, arbitrary: hostileFields(route.resource) },
  );
}

// ---------------------------------------------------------------------------------------
// Routes, paths, methods, headers

const METHODS = fc.oneof(
  { weight: 20, arbitrary: fc.constant('GET') },
  { weight: 2, arbitrary: fc.constant('HEAD') },
  { weight: 3, arbitrary: fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS') },
  { weight: 1, arbitrary: fc.constantFrom('FOO', 'PROPFIND', 'get', 'M-SEARCH', 'QUERY') },
);

/** A path parameter: one that exists, one that does not, or junk, written any way. */
function pathValue(spec: ParamSpec): fc.Arbitrary<string> {
  const valid = spec.schema.type === 'idList' ? idList(20) : IDS.map(String);
  return fc.oneof(
    { weight: 10, arbitrary: valid },
    { weight: 1, arbitrary: fc.constantFrom(...NUMBER_JUNK).map(encoded) },
    { weight: 1, arbitrary: fc.constantFrom(...PERCENT_JUNK) },
    { weight: 1, arbitrary: fc.constantFrom(...PROTOTYPE_NAMES, '..', '.', '%2F', '41;x', '41,') },
    {
      weight: 2,
      arbitrary: fc
        .tuple(hostileText, fc.boolean())
        .map(([text, encode]) =>
          encode ? encoded(text) : text.replace(/[/?#\\]/g, '').slice(0, 300),
        ),
    },
  );
}

function pathOf(route: RestRoute): fc.Arbitrary<string> {
  const specs = route.params.filter((spec) => spec.in === 'path');
  return fc
    .tuple(...specs.map(pathValue), fc.constantFrom(...Array<string>(8).fill(''), '/', '//'))
    .map(([...parts]) => {
      const suffix = parts.pop()!;
      let index = 0;
      return route.path.replace(/\{\w+\}/g, () => parts[index++] ?? '') + suffix;
    });
}

const JUNK_AUTHORIZATION = fc.oneof(
  fc.constantFrom('Bearer', 'Bearer ', 'Bearer  x', 'bearer x', 'Basic', 'Basic !!!', 'Token x'),
  fc.constantFrom('Bearer a.b.c', 'Bearer ....', 'Bearer eyJhbGciOiJub25lIn0.e30.', 'Negotiate'),
  hostileText.map((text) => `Bearer ${headerSafe(text)}`),
  hostileText.map(headerSafe),
  fc.integer({ min: 1000, max: 12_000 }).map((length) => `Bearer ${'a'.repeat(length)}`),
);

function credentialFor(route: RestRoute): fc.Arbitrary<Credential> {
  const demo = fc.constant<Credential>({ kind: 'demo' });
  const none = fc.constant<Credential>({ kind: 'none' });
  const junk = JUNK_AUTHORIZATION.map((value): Credential => ({ kind: 'header', value }));
  return route.access === 'partner'
    ? fc.oneof(
        { weight: 8, arbitrary: demo },
        { weight: 1, arbitrary: none },
        { weight: 2, arbitrary: junk },
      )
    : fc.oneof(
        { weight: 8, arbitrary: none },
        { weight: 1, arbitrary: demo },
        { weight: 2, arbitrary: junk },
      );
}

const REQUEST_ID_JUNK = fc.oneof(
  fc.constantFrom('', ' ', 'abc', 'a b', 'a'.repeat(129), 'a'.repeat(128), '../x', 'é', '1;2'),
  hostileText.map(headerSafe),
);

/** Other headers a client (or an attacker) may send along. */
const EXTRA_HEADERS: fc.Arbitrary<[string, string][]> = fc.array(
  fc.oneof(
    REQUEST_ID_JUNK.map((value): [string, string] => ['x-request-id', value]),
    fc
      .constantFrom('*', '"x"', 'W/"x"', '"', '', 'W/', '*, "a"', `"${'a'.repeat(5000)}"`)
      .map((value): [string, string] => ['if-none-match', value]),
    fc
      .constantFrom('application/json', 'text/html', '*/*', '', 'x/y;q=oops', 'application/xml')
      .map((value): [string, string] => ['accept', value]),
    fc
      .constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', '', ';;')
      .map((value): [string, string] => ['content-type', value]),
    fc
      .constantFrom('evil.example', '', 'a b', '[::1]:0', 'x'.repeat(300))
      .map((value): [string, string] => ['x-forwarded-host', value]),
    fc
      .constantFrom('1.2.3.4', 'junk', ', , ,', '::1, 10.0.0.1')
      .map((value): [string, string] => ['x-forwarded-for', value]),
  ),
  { maxLength: 3 },
);

/** The parameters a route needs to answer 200, before anything is done to them. */
function baseline(route: RestRoute): Pair[] {
  const pairs: Pair[] = [{ name: 'market', value: 'se', writing: 'encoded' }];
  if (route.access === 'partner')
    pairs.push({ name: 'ref', value: 'demo-ref', writing: 'encoded' });
  if (route.id === 'categories') pairs.push({ name: 'q', value: 'b', writing: 'encoded' });
  if (route.id === 'partnerSearchProducts') {
    pairs.push({ name: 'productIds', value: '41,42', writing: 'encoded' });
  }
  return pairs;
}

function dataRouteCase(route: RestRoute): fc.Arbitrary<RestCase> {
  const base = baseline(route);
  const extra = fc.record({
    name: parameterName(route),
    value: fc.option(anyValue(route), { nil: undefined, freq: 10 }),
    writing,
  });
  return fc
    .record({
      method: METHODS,
      path: pathOf(route),
      // Each baseline parameter kept, dropped, or given a hostile value.
      kept: fc.tuple(
        ...base.map((pair) =>
          fc.oneof(
            { weight: 8, arbitrary: fc.constant<Pair | null>(pair) },
            { weight: 1, arbitrary: fc.constant<Pair | null>(null) },
            {
              weight: 1,
              arbitrary: fc
                .tuple(anyValue(route), writing)
                .map(([value, how]): Pair | null => ({ ...pair, value, writing: how })),
            },
          ),
        ),
      ),
      extras: fc.oneof(
        { weight: 2, arbitrary: fc.constant([]) },
        { weight: 1, arbitrary: fc.array(extra, { minLength: 1, maxLength: 4 }) },
      ),
      fields: fc.option(
        fc.tuple(fieldsValue(route), writing).map(([value, how]) => ({ value, how })),
        { freq: 2 },
      ),
      repeat: fc.constantFrom(false, false, false, false, false, true),
      credential: credentialFor(route),
      headers: EXTRA_HEADERS,
      body: fc.option(hostileText, { freq: 3 }),
    })
    .map((generated): RestCase => {
      const pairs = [...generated.kept.filter((pair) => pair !== null), ...generated.extras];
      if (generated.fields) {
        const { value, how } = generated.fields;
        pairs.push({ name: 'fields', value, writing: how });
      }
      if (generated.repeat && pairs.length > 0 && generated.extras.length === 0) {
        pairs.push(pairs[0]!);
      }
      const withBody = !['GET', 'HEAD'].includes(generated.method.toUpperCase());
      return {
        method: generated.method,
        target: generated.path + queryString(pairs),
        credential: generated.credential,
        headers: generated.headers,
        ...(withBody && generated.body !== null ? { body: generated.body } : {}),
        oauth: false,
      };
    });
}

/** Form bodies for the token endpoint, right and wrong, and Basic credentials. */
const TOKEN_FORM_NAMES = ['grant_type', 'client_id', 'client_secret', 'scope', 'Grant_Type'];
const TOKEN_FORM_VALUES = [
  'client_credentials',
  DEMO_CLIENT.id,
  DEMO_CLIENT.secret,
  'password',
  'unknown-client',
];

const basic = (text: string) => `Basic ${Buffer.from(text, 'latin1').toString('base64')}`;

const tokenCase: fc.Arbitrary<RestCase> = fc
  .record({
    method: fc.oneof(
      { weight: 8, arbitrary: fc.constant('POST') },
      { weight: 1, arbitrary: METHODS },
    ),
    query: fc.constantFrom('', '?grant_type=client_credentials', '?%zz', '?__proto__=1'),
    pairs: fc.array(
      fc.record({
        name: fc.oneof(fc.constantFrom(...TOKEN_FORM_NAMES), unknownName),
        value: fc.option(fc.oneof(fc.constantFrom(...TOKEN_FORM_VALUES), hostileText), {
          nil: undefined,
          freq: 10,
        }),
        writing,
      }),
      { maxLength: 5 },
    ),
    rawBody: sometimes(
      fc.oneof(
        hostileText,
        fc.integer({ min: 8000, max: 20_000 }).map((n) => 'a=b&'.repeat(n / 4)),
      ),
      0.25,
    ),
    contentType: fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded',
      'application/x-www-form-urlencoded; charset=utf-8',
      'application/json',
      'text/plain',
      'multipart/form-data; boundary=x',
      '',
      'application/x-www-form-urlencoded;;;',
    ),
    authorization: fc.option(
      fc.oneof(
        fc.tuple(hostileText, hostileText).map(([id, secret]) => basic(`${id}:${secret}`)),
        fc.constantFrom(
          basic(`${DEMO_CLIENT.id}:${DEMO_CLIENT.secret}`),
          basic(`${DEMO_CLIENT.id}:wrong`),
          basic('no-colon'),
          basic(':'),
        ),
        JUNK_AUTHORIZATION,
      ),
      { freq: 2 },
    ),
    headers: EXTRA_HEADERS,
  })
  .map((generated): RestCase => {
    const headers: [string, string][] = [...generated.headers];
    if (generated.contentType !== '') headers.unshift(['content-type', generated.contentType]);
    const withBody = !['GET', 'HEAD'].includes(generated.method.toUpperCase());
    const body = generated.rawBody ?? queryString(generated.pairs).slice(1);
    return {
      method: generated.method,
      target: TOKEN_PATH + generated.query,
      credential:
        generated.authorization === null
          ? { kind: 'none' }
          : { kind: 'header', value: generated.authorization },
      headers,
      ...(withBody ? { body } : {}),
      oauth: true,
    };
  });

/** Paths no data route serves: the operational ones, near misses, junk. */
const otherPathCase: fc.Arbitrary<RestCase> = fc
  .record({
    method: METHODS,
    path: fc.oneof(
      fc.constantFrom('/healthz', '/readyz', '/metrics', '/openapi.json', '/docs', '/docs/'),
      fc.constantFrom('/', '//', '/v1', '/v1/', '/V1/PRODUCTS', '/products/', '/partner-search'),
      fc.constantFrom('/v1/products/41/offers', '/v1/categories/3/products/4', '/./v1/products'),
      fc.constantFrom('/v1/../v1/products', '/%2e%2e/v1/products', '/partner-search/token/'),
      fc.constantFrom('/graphiql/x/y.js', '/graphiql/', '/docs/../../etc/passwd', '/favicon.ico'),
      fc.constantFrom(...PROTOTYPE_NAMES).map((name) => `/${name}`),
      fc.constantFrom(...PERCENT_JUNK).map((junk) => `/v1/${junk}`),
      hostileText.map((text) => `/${encoded(text)}`),
      hostileText.map((text) => `/docs/${text.replace(/[?#]/g, '')}`),
    ),
    query: fc.constantFrom('', '?market=se', '?%zz=%zz', '?fields=constructor', '?&&=&'),
    headers: EXTRA_HEADERS,
  })
  .map((generated): RestCase => ({
    method: generated.method,
    target: generated.path + generated.query,
    credential: { kind: 'none' },
    headers: generated.headers,
    oauth: false,
  }));

const restCase: fc.Arbitrary<RestCase> = fc.oneof(
  ...restRoutes.map((route) => ({ weight: 8, arbitrary: dataRouteCase(route) })),
  { weight: 3, arbitrary: tokenCase },
  { weight: 6, arbitrary: otherPathCase },
);

// ---------------------------------------------------------------------------------------
// Sending and checking

function headersOf(testCase: RestCase): [string, string][] {
  const headers = [...testCase.headers];
  if (testCase.credential.kind === 'demo') headers.push(['authorization', `Bearer ${demoToken}`]);
  if (testCase.credential.kind === 'header') {
    headers.push(['authorization', headerSafe(testCase.credential.value)]);
  }
  return headers.map(([name, value]) => [name, headerSafe(value)]);
}

async function read(response: Response): Promise<RestResponse> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** RFC 6749 section 5.2's body, with the request id (docs/api.md, Authentication). */
function expectTokenErrorBody(response: RestResponse) {
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(Object.keys(response.body ?? {})).toEqual(['error', 'error_description', 'request_id']);
  expect(TOKEN_ERROR_CODES).toContain(response.body.error);
  expect(response.body.error_description).toMatch(/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/);
  expect(response.body.request_id).toBe(response.headers.get('x-request-id'));
}

/**
 * The path the service routes a request to (src/request-target.ts): an origin-form target is
 * a path even when it starts with `//`; an absolute one counts only with http(s) and no
 * credentials; TRACE never reaches a route.
 */
function routedPath(target: string, method: string): string | undefined {
  if (method === 'TRACE') return undefined;
  try {
    const url = target.startsWith('/') ? new URL(`${BASE_URL}${target}`) : new URL(target);
    const routable =
      ['http:', 'https:'].includes(url.protocol) && url.username === '' && url.password === '';
    return routable ? url.pathname : undefined;
  } catch {
    return undefined;
  }
}

/** What every answer must be, whatever was asked. */
function expectWellFormed(response: RestResponse, testCase: RestCase, method: string) {
  const context = `${method} ${testCase.target.slice(0, 300)} → ${response.status}: ${response.text.slice(0, 500)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(leaksIn(response.text), context).toEqual([]);
  expect(response.headers.get('x-request-id'), context).toBeTruthy();
  if (response.status < 400 || response.text === '') return;
  // The token endpoint's own refusals are OAuth's; a path it does not own is the service's.
  const oauth = testCase.oauth && routedPath(testCase.target, method) === TOKEN_PATH;
  if (oauth) expectTokenErrorBody(response);
  else expectErrorBody(response, response.status);
}

const tally = new StatusTally();
const rawTally = new StatusTally();
afterAll(() => {
  if (settings.probe) {
    console.info(`REST fuzz, seed ${settings.seed}: app.fetch ${tally}; over a socket ${rawTally}`);
  }
});

describe('REST under fuzzed requests', () => {
  it(
    'answers every request below 500, with nothing internal and 4xx in the documented shape',
    async () => {
      await fc.assert(
        fc.asyncProperty(restCase, async (testCase) => {
          const init: RequestInit = { method: testCase.method, headers: headersOf(testCase) };
          if (testCase.body !== undefined) init.body = testCase.body;
          const request = new Request(`${BASE_URL}${testCase.target}`, init);
          const response = await read(await rest.app.fetch(request));
          tally.record(response.status);
          expectWellFormed(response, testCase, request.method);
        }),
        assertParameters(settings),
      );
    },
    timeAllowance(settings.runs, 40),
  );

  /** Request targets fetch cannot send: absolute URLs of any authority, `*`, other schemes. */
  const rawTarget = fc
    .tuple(
      restCase,
      fc.oneof(
        { weight: 2, arbitrary: fc.constant('') },
        {
          weight: 4,
          arbitrary: fc.constantFrom(
            'http://127.0.0.1',
            'https://127.0.0.1',
            'http://evil.example',
            'HTTP://Other.Example:8080',
            'http://[::1]',
            'http://user:pass@host',
            'http://a b',
            'http://',
            'http:',
            'ftp://host',
            'mailto:x@',
            'urn:x:',
            '//host',
          ),
        },
        { weight: 1, arbitrary: fc.constantFrom('*', '*?x', '**') },
      ),
      fc.constantFrom('GET', 'GET', 'HEAD', 'OPTIONS', 'POST', 'TRACE', 'DELETE'),
      sometimes(fc.constantFrom('', 'evil.example', 'a b', 'x'.repeat(300), '[::1'), 0.25),
    )
    .map(([testCase, origin, method, host]) => ({
      testCase,
      method,
      host,
      target: origin.startsWith('*')
        ? origin
        : (origin + testCase.target).replace(/[\s\u0000-\u001f\u007f]/g, '').replace(/^$/, '/'),
    }));

  it(
    'answers every raw request target below 500 (Node’s own refusals bare, the rest as above)',
    async () => {
      await fc.assert(
        fc.asyncProperty(rawTarget, async ({ testCase, method, host, target }) => {
          const headers = headersOf(testCase);
          if (host !== undefined) headers.push(['Host', host]);
          const body = method === 'POST' ? testCase.body : undefined;
          const response = await sendRaw(served.port, {
            method,
            target,
            headers,
            ...(body !== undefined ? { body } : {}),
          });
          rawTally.record(response.status);
          if (response.headers.get('x-request-id') === null) {
            // Node's HTTP parser refused the request line or headers before the app saw them.
            expect([400, 413, 414, 431], `${method} ${target}: ${response.text}`).toContain(
              response.status,
            );
            expect(leaksIn(response.text)).toEqual([]);
            return;
          }
          expectWellFormed(response, { ...testCase, target }, method);
        }),
        assertParameters(settings, RAW_SHARE),
      );
    },
    timeAllowance(settings.runs * RAW_SHARE, 60),
  );
});
