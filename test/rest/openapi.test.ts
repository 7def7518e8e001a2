/**
 * The OpenAPI document (src/http/openapi.ts): valid OpenAPI 3.1 with valid JSON Schemas, true
 * to the route declarations, served at /openapi.json and browsable at /docs without any
 * outside host, committed as docs/openapi.json, and true to what the routes answer: real
 * answers of every route, with every field requested, validate against its documented schema.
 */
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/http/openapi.ts';
import type { RestRoute } from '../../src/rest/route.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { packageVersion } from '../../src/version.ts';
import { demoTokenRequest, everyField } from '../helpers/rest.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const OPENAPI_FILE = new URL('../../docs/openapi.json', import.meta.url);

const document = buildOpenApiDocument(restRoutes, { version: packageVersion() });
type Json = Record<string, any>;
/** A token the caller has, or one its tool gets with the client id and secret: either. */
const BEARER_REQUIRED = [{ bearerAuth: [] }, { clientCredentials: [] }];
const operationOf = (route: RestRoute) => document.paths[route.path]?.[route.method.toLowerCase()];

// ---------------------------------------------------------------------------------------
// JSON Schema validation of the document's schemas (ajv, JSON Schema 2020-12, strict)

const COMPONENTS_ID = 'urn:openapi:components';

/** A schema with its `#/components/schemas/...` references pointed at the components. */
function retarget(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((element) => retarget(element));
  if (value === null || typeof value !== 'object') return value;
  const result: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    result[key] =
      key === '$ref' && typeof inner === 'string'
        ? inner.replace('#/components/schemas/', `${COMPONENTS_ID}#/$defs/`)
        : retarget(inner);
  }
  return result;
}

function schemaValidator() {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addFormat('password', true);
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: retarget(document.components.schemas) });
  return (schema: unknown): ValidateFunction => ajv.compile(retarget(schema) as Json);
}

/** Every `schema` in the document, with where it is. */
function allSchemas(value: unknown, at = '#'): [string, unknown][] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) =>
    key === 'schema'
      ? [[`${at}/schema`, inner] as [string, unknown]]
      : allSchemas(inner, `${at}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`),
  );
}

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 (the official schema)', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    const result = await new Validator().validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is checked by a validator that finds faults', async () => {
    const broken = structuredClone(document) as Json;
    delete broken.info;
    broken.paths['/products'].get.parameters[0].in = 'body';
    expect((await new Validator().validate(broken)).valid).toBe(false);
    expect(() => schemaValidator()({ type: 'string', minimun: 1 })).toThrow(/minimun/);
  });

  it('has schemas that are valid JSON Schema 2020-12 (strict: no unknown keywords)', () => {
    const compile = schemaValidator();
    const schemas = allSchemas(document.paths);
    expect(schemas.length).toBeGreaterThan(100);
    for (const [, schema] of schemas) compile(schema);
    for (const name of Object.keys(document.components.schemas)) {
      compile({ $ref: `#/components/schemas/${name}` });
    }
  });

  it('has every route with every parameter as declared', () => {
    for (const route of restRoutes) {
      const operation = operationOf(route);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      expect(operation!.operationId).toBe(route.id);
      expect(operation!.tags).toEqual([route.tag]);
      expect(operation!.summary).toBe(route.summary);
      const documented = operation!.parameters!.filter((p) => p.in !== 'header');
      expect(
        documented.map((p) => ({ name: p.name, in: p.in, required: p.required ?? false })),
      ).toEqual(
        route.params.map((p) => ({ name: p.name, in: p.in, required: p.required ?? false })),
      );
      for (const [index, spec] of route.params.entries()) {
        expect(documented[index]!.deprecated ?? false).toBe(spec.replacedBy !== undefined);
      }
      // Every path placeholder is a declared path parameter, and the other way round.
      const placeholders = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(route.params.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(placeholders);
    }
    const operations = Object.values(document.paths).flatMap((methods) => Object.keys(methods));
    // The data routes, the token endpoint, the operational routes, the five feed routes and
    // the two picture routes.
    expect(operations).toHaveLength(restRoutes.length + 1 + 7 + 5 + 2);
    expect(
      Object.entries(document.paths)
        .filter(([path]) => path.startsWith('/images/'))
        .map(([path, methods]) => [path, Object.keys(methods), methods.get!.tags]),
    ).toEqual([
      ['/images/products/{id}/{size}.svg', ['get'], ['Images']],
      ['/images/shops/{id}/logo.svg', ['get'], ['Images']],
    ]);
    expect(
      Object.entries(document.paths)
        .filter(([path]) => path.startsWith('/feeds/'))
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`)),
    ).toEqual([
      'put /feeds/shops/{shopId}',
      'post /feeds/shops/{shopId}/items',
      'delete /feeds/shops/{shopId}/items/{itemId}',
      'get /feeds/shops/{shopId}/runs',
      'get /feeds/runs/{runId}',
    ]);
  });

  it('documents parameter bounds, patterns and enums from the declarations', () => {
    const suggestions = operationOf(restRoutes.find((route) => route.id === 'suggestions')!)!;
    const parameter = (name: string) => suggestions.parameters!.find((p) => p.name === name)!;
    expect(parameter('market')).toMatchObject({
      required: true,
      schema: {
        type: 'string',
        enum: ['se', 'no', 'dk', 'fi', 'fr', 'gb', 'nz', 'SE', 'NO', 'DK', 'FI', 'FR', 'GB', 'NZ'],
      },
    });
    expect(parameter('limit').schema).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 30,
      default: 5,
    });
    expect(parameter('category')).toMatchObject({ deprecated: true });
    expect(parameter('filter[price_trend][lte]').schema).toMatchObject({ type: 'number' });
    expect(parameter('ref').schema).toMatchObject({ pattern: '^[A-Za-z0-9._~-]{1,64}$' });
  });

  it('documents auth, errors and headers per route', () => {
    for (const route of restRoutes) {
      const operation = operationOf(route)!;
      const statuses = Object.keys(operation.responses);
      const partner = route.access === 'partner';
      const single = route.params.some((p) => p.in === 'path');
      expect(statuses, route.id).toEqual(
        [
          '200',
          '304',
          '400',
          '401',
          ...(partner ? ['403'] : []),
          ...(single ? ['404'] : []),
          ...(route.unknownNameStatus === 422 ? ['422'] : []),
          '429',
          '500',
          '503',
        ].sort(),
      );
      expect(operation.security).toEqual(partner ? BEARER_REQUIRED : [{}, ...BEARER_REQUIRED]);
      const headers = Object.keys(operation.responses['200']!.headers as Json);
      expect(headers).toEqual(expect.arrayContaining(['ETag', 'Cache-Control', 'X-Request-Id']));
      expect(headers.includes('API-Version')).toBe(route.apiVersion !== undefined);
      expect(headers.includes('Deprecation')).toBe(
        route.params.some((p) => p.replacedBy !== undefined),
      );
      for (const status of statuses.filter((s) => Number(s) >= 400)) {
        expect(operation.responses[status]!.content).toEqual({
          'application/json': { schema: { $ref: '#/components/schemas/Error' } },
        });
      }
    }
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('offers the OAuth2 client credentials flow at the token endpoint wherever a token is taken', () => {
    // What Swagger UI's Authorize and generated clients use to fetch the token themselves; the
    // relative tokenUrl resolves against the document's only server, this one.
    expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(document.components.securitySchemes.clientCredentials).toMatchObject({
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: TOKEN_PATH, scopes: {} } },
    });
    const takingTokens = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([, operation]) =>
          (operation.security ?? []).some((requirement: Json) => 'bearerAuth' in requirement),
        )
        .map(([method, operation]) => [`${method} ${path}`, operation.security ?? []] as const),
    );
    expect(takingTokens.map(([operation]) => operation)).toEqual(
      expect.arrayContaining([
        'put /feeds/shops/{shopId}',
        'get /feeds/runs/{runId}',
        'post /graphql',
        'get /partner-search/products',
      ]),
    );
    for (const [operation, security] of takingTokens) {
      const required = security.filter((requirement: Json) => Object.keys(requirement).length > 0);
      expect(required, operation).toEqual(BEARER_REQUIRED);
    }
  });

  it('documents the token endpoint', () => {
    const token = document.paths[TOKEN_PATH]?.post;
    expect(token).toBeDefined();
    expect(token!.security).toEqual([{}, { clientBasic: [] }]);
    const form = (token!.requestBody as Json).content['application/x-www-form-urlencoded'].schema;
    expect(Object.keys(form.properties)).toEqual(['grant_type', 'client_id', 'client_secret']);
    expect(form.required).toEqual(['grant_type']);
    expect(Object.keys(token!.responses)).toEqual([
      '200',
      '400',
      '401',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
    expect(document.components.schemas.AccessToken).toMatchObject({
      required: ['access_token', 'expires_in', 'token_type'],
    });
  });

  it('mentions GraphQL and lists the operational routes', () => {
    expect((document.info as Json).description).toContain('/graphql');
    for (const path of ['/graphql', '/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      expect(document.paths[path], path).toBeDefined();
    }
  });

  it('is committed as docs/openapi.json (run `npm run schema:print` after changing a route)', async () => {
    const committed = JSON.parse(await readFile(OPENAPI_FILE, 'utf8')) as OpenApiDocument;
    expect(committed).toEqual(document);
  });
});

// ---------------------------------------------------------------------------------------
// Through the app, on a seeded catalogue

const catalogue = useSeededCatalogue();

async function get(path: string, headers: Record<string, string> = {}) {
  return catalogue.app.fetch(new Request(`http://test${path}`, { headers }));
}

describe('/openapi.json and /docs', () => {
  it('serves the document', async () => {
    const response = await get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual(document);
  });

  it('serves a page and every file it loads from this server, none from elsewhere', async () => {
    const response = await get('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const page = await response.text();
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    const loaded = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(loaded).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui.css',
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/init.js',
      ]),
    );
    for (const path of loaded) {
      const asset = await get(path);
      expect(asset.status, path).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
    }
    const init = await (await get('/docs/assets/init.js')).text();
    expect(init).toContain('"/openapi.json"');
    expect(init).toContain('validatorUrl: null');
  });

  it('serves nothing else under /docs, and only GET', async () => {
    expect((await get('/docs/assets/package.json')).status).toBe(404);
    expect((await get('/docs/assets/../../package.json')).status).toBe(404);
    const post = await catalogue.app.fetch(
      new Request('http://test/openapi.json', { method: 'POST' }),
    );
    expect(post.status).toBe(405);
  });
});

// ---------------------------------------------------------------------------------------
// Real answers against the documented schemas

describe('real answers match the documented schemas', () => {
  const compile = schemaValidator();
  let token: string;
  const examples: Record<string, string> = { market: 'se', ref: DEMO_CLIENT.ref };

  function check(body: unknown, schema: unknown, what: string) {
    const validate = compile(schema);
    if (!validate(body)) {
      const errors = validate.errors!.slice(0, 5).map((e) => `${e.instancePath} ${e.message}`);
      expect.fail(`${what}: ${errors.join('; ')}`);
    }
  }

  const responseSchema = (operation: Json, status: string) =>
    operation.responses[status].content['application/json'].schema;

  beforeAll(async () => {
    const response = await catalogue.app.fetch(demoTokenRequest('http://test'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { access_token: string };
    check(body, responseSchema(document.paths[TOKEN_PATH]!.post!, '200'), 'token');
    token = body.access_token;

    // Ids and a category name the catalogue has, for the routes that need them.
    const products = (await (
      await get('/v1/products?market=se&limit=2&fields=id,category(id,name)')
    ).json()) as {
      items: { id: number; category: { id: string; name: string } }[];
    };
    const [first, second] = products.items;
    examples.productId = String(first!.id);
    examples.id = String(first!.id);
    examples.productIds = `${first!.id},${second!.id}`;
    examples.categoryId = first!.category.id;
    examples.q = first!.category.name.split(/\s+/)[0]!;
  });

  /** The URL of a route with every required parameter (and `ref`) filled in. */
  function urlOf(route: RestRoute, extra: Record<string, string> = {}): string {
    const query = new URLSearchParams();
    let path = route.path;
    for (const param of route.params) {
      const value =
        param.in === 'path' && route.path.startsWith('/v1/categories')
          ? examples.categoryId
          : examples[param.name];
      if (param.in === 'path') path = path.replace(`{${param.name}}`, value!);
      else if (value !== undefined && (param.required || param.name === 'ref')) {
        query.set(param.name, value);
      }
      if (param.required) expect(value, `an example value for ${param.name}`).toBeDefined();
    }
    for (const [name, value] of Object.entries(extra)) query.set(name, value);
    return `${path}?${query}`;
  }

  function itemCount(body: Json): number {
    if (Array.isArray(body.data)) return body.data.length;
    if (Array.isArray(body.items)) return body.items.length;
    return 1;
  }

  it('validates with teeth: a wrong type or an undocumented field fails', () => {
    const route = restRoutes.find((r) => r.path === '/products')!;
    const validate = compile(responseSchema(operationOf(route)!, '200'));
    const links = { self: 'http://test/products', next: null, prev: null };
    expect(validate({ links, data: [{ productId: '1' }] })).toBe(true);
    expect(validate({ links, data: [{ productId: 1 }] })).toBe(false);
    expect(validate({ links, data: [{ productId: '1', surprise: true }] })).toBe(false);
  });

  for (const route of restRoutes) {
    it(`${route.method} ${route.path}`, async () => {
      const operation = operationOf(route)!;
      const headers: Record<string, string> =
        route.access === 'partner' ? { authorization: `Bearer ${token}` } : {};
      for (const fields of [undefined, everyField(route.resource)]) {
        const url = urlOf(route, fields === undefined ? {} : { fields });
        const response = await get(url, headers);
        const body = (await response.json()) as Json;
        expect(response.status, `${url}: ${JSON.stringify(body)}`).toBe(200);
        expect(itemCount(body), url).toBeGreaterThan(0);
        check(body, responseSchema(operation, '200'), url);
        for (const header of ['ETag', 'Cache-Control', 'X-Request-Id', 'API-Version']) {
          const documented = header in (operation.responses['200']!.headers as Json);
          expect(response.headers.has(header), `${url}: ${header}`).toBe(documented);
        }
        const cached = await get(url, {
          ...headers,
          'if-none-match': response.headers.get('etag')!,
        });
        expect(cached.status).toBe(304);
      }

      const bad = await get(urlOf(route, { limit: '-1', fields: 'nope' }), headers);
      expect([400, 422]).toContain(bad.status);
      check(await bad.json(), responseSchema(operation, String(bad.status)), `${route.id} error`);
    });
  }

  it('answers the several-ids form of /products/{productIds} as documented', async () => {
    const route = restRoutes.find((r) => r.path === '/products/{productIds}')!;
    const url = `/products/${examples.productIds}?market=se&fields=${encodeURIComponent(everyField(route.resource))}`;
    const body = (await (await get(url)).json()) as Json;
    expect(body.data).toHaveLength(2);
    check(body, responseSchema(operationOf(route)!, '200'), url);
  });

  it('marks an answer to a deprecated parameter with the documented Deprecation header', async () => {
    const response = await get(`/suggestions?market=se&category=${examples.categoryId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('true');
  });

  it('answers 401, 403 and 404 with the documented error body', async () => {
    const partner = restRoutes.find((r) => r.access === 'partner')!;
    const errors = operationOf(partner)!;
    const anonymous = await get(urlOf(partner));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    check(await anonymous.json(), responseSchema(errors, '401'), 'anonymous');
    const foreign = await get(urlOf(partner, { ref: 'not-mine' }), {
      authorization: `Bearer ${token}`,
    });
    expect(foreign.status).toBe(403);
    check(await foreign.json(), responseSchema(errors, '403'), 'foreign ref');

    const missing = await get('/v1/products/2147483647?market=se');
    expect(missing.status).toBe(404);
    check(await missing.json(), { $ref: '#/components/schemas/Error' }, 'missing');
  });
});
