/**
 * Request targets no browser sends but HTTP/1.1 servers must take (RFC 9112 section 3.2): the
 * absolute form (what a client talking through a forward proxy writes), `*`, and origin-form
 * targets under an odd Host header. Written over a raw socket to the app served by node:http,
 * as src/main.ts serves it. None may answer 500 or show a stack or a file path.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendRaw, serveApp, type RawRequest, type ServedApp } from '../helpers/raw-http.ts';
import { expectErrorBody, type RestResponse } from '../helpers/rest.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();
let served: ServedApp;

beforeAll(async () => {
  served = await serveApp(catalogue.database);
});
afterAll(() => served?.close());

const send = (request: RawRequest) => sendRaw(served.port, request);
const get = (target: string, headers?: [string, string][]) =>
  send({ method: 'GET', target, ...(headers ? { headers } : {}) });

const PRODUCTS = '/v1/products?market=se&limit=2&fields=id';

/** Nothing internal in an answer: no stack frame, no source file, no exception. */
function expectNothingInternal(response: RestResponse) {
  expect(response.status, response.text).toBeLessThan(500);
  expect(response.text).not.toMatch(/\bat \S+ \(|\.[cm]?[jt]s:\d|node_modules|\/work\/|Error\b/);
}

describe('absolute-form targets', () => {
  it('are served as the path they name, whatever the scheme and authority', async () => {
    const expected = await get(PRODUCTS);
    expect(expected.status, expected.text).toBe(200);
    expect(expected.body.items).toHaveLength(2);
    for (const origin of [
      `http://127.0.0.1:${served.port}`,
      `https://127.0.0.1:${served.port}`,
      'http://other.example',
      'HTTP://Other.Example:8080',
    ]) {
      const response = await get(`${origin}${PRODUCTS}`);
      expect(response.status, `${origin}: ${response.text}`).toBe(200);
      expect(response.body.items).toEqual(expected.body.items);
    }
  });

  it('give links on the service’s own address, not on the authority they carry', async () => {
    const response = await get(`http://evil.example${PRODUCTS}`);
    expect(response.status, response.text).toBe(200);
    expect(response.body.meta.paging.next).toBe(
      `http://localhost:${served.port}${PRODUCTS}&offset=2`,
    );
  });

  it('reach every kind of route: operations, the token endpoint, GraphQL with a body', async () => {
    const origin = `http://127.0.0.1:${served.port}`;
    expect((await get(`${origin}/healthz`)).body).toEqual({ status: 'ok' });
    expect((await get(`${origin}/openapi.json`)).body.openapi).toMatch(/^3\./);
    const graphql = await send({
      method: 'POST',
      target: `${origin}/graphql`,
      headers: [['Content-Type', 'application/json']],
      body: JSON.stringify({ query: '{ markets { code } }' }),
    });
    expect(graphql.status, graphql.text).toBe(200);
    expect(graphql.body.data.markets).toHaveLength(7);
    const token = await send({
      method: 'POST',
      target: `${origin}/partner-search/token`,
      headers: [['Content-Type', 'application/x-www-form-urlencoded']],
      body: 'grant_type=client_credentials&client_id=demo-partner&client_secret=demo-secret',
    });
    expect(token.status, token.text).toBe(200);
    expect(token.body.access_token).toMatch(/\S/);
  });

  it('without a path name "/", which nothing is served at', async () => {
    expectErrorBody(await get('http://example.com'), 404);
  });
});

describe('the asterisk form', () => {
  it('OPTIONS * tells the methods the server answers', async () => {
    const response = await send({ method: 'OPTIONS', target: '*' });
    expect(response.status).toBe(204);
    expect(response.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    expect(response.text).toBe('');
  });

  it.each(['GET', 'POST', 'DELETE'])('%s * is a 400: * is for OPTIONS only', async (method) => {
    const error = expectErrorBody(await send({ method, target: '*' }), 400);
    expect(error.message).toBe(`the request target * is for OPTIONS only, not ${method}`);
  });

  it('HEAD * is a 400 without a body', async () => {
    const response = await send({ method: 'HEAD', target: '*' });
    expect(response.status).toBe(400);
    expect(response.text).toBe('');
  });
});

describe('TRACE, which no route serves', () => {
  it.each([PRODUCTS, `http://example.com${PRODUCTS}`, '*', '/healthz'])(
    'is a 405 for %s',
    async (target) => {
      const response = await send({ method: 'TRACE', target });
      expect(expectErrorBody(response, 405).message).toBe('TRACE is not allowed here');
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
    },
  );
});

describe('targets that name no resource', () => {
  it.each([
    'ftp://example.com/v1/products',
    'ws://example.com/graphql',
    'file:///etc/passwd',
    // RFC 9110 section 4.2.4: userinfo in an http(s) URI is an error.
    `http://user:secret@example.com${PRODUCTS}`,
    'https://user@example.com/graphql',
  ])('%s is a 400', async (target) => {
    const error = expectErrorBody(await get(target), 400);
    expect(error.message).toBe(
      'the request target must be a path, an http(s) URL without credentials, or *',
    );
  });

  it.each(['example.com:443', 'mailto:someone@example.com'])(
    '%s (no "//") Node itself refuses with a bare 400',
    async (target) => {
      const response = await get(target);
      expect(response.status).toBe(400);
      expect(response.text).toBe('');
    },
  );
});

describe('origin-form targets', () => {
  it.each(['evil.example/v1/categories?', '[::1', 'example.com:99999', 'a@b', '%'])(
    'are routed on the target alone, under Host: %s',
    async (host) => {
      const response = await get(PRODUCTS, [['Host', host]]);
      expect(response.status, response.text).toBe(200);
      expect(response.body.items).toHaveLength(2);
    },
  );

  it('keep a path that starts with "//" a path, not an authority', async () => {
    const error = expectErrorBody(await get('//evil.example/v1/products?market=se'), 404);
    expect(error.message).toBe('no route for //evil.example/v1/products');
  });

  it('naming a member of Object.prototype find nothing', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      expectErrorBody(await get(`/docs/assets/${name}`), 404);
    }
  });
});

describe('every odd target', () => {
  const requests: RawRequest[] = [
    { method: 'GET', target: `http://127.0.0.1${PRODUCTS}` },
    { method: 'GET', target: 'http://example.com' },
    { method: 'GET', target: 'http://example.com?market=se' },
    { method: 'GET', target: 'https://[::1]:1/graphql?query={__typename}' },
    { method: 'OPTIONS', target: '*' },
    { method: 'GET', target: '*' },
    { method: 'POST', target: '*', body: '{}' },
    { method: 'OPTIONS', target: '/v1/products' },
    { method: 'OPTIONS', target: 'http://example.com/v1/products' },
    { method: 'TRACE', target: 'http://example.com/graphql' },
    { method: 'PUT', target: 'http://example.com/partner-search/token', body: 'x' },
    { method: 'GET', target: 'ftp://example.com/' },
    { method: 'GET', target: 'example.com:443' },
    { method: 'GET', target: '//' },
    { method: 'GET', target: '/%' },
    { method: 'GET', target: '/v1/products/%E0%A4%A?market=se' },
    { method: 'GET', target: '/v1/products?market=se&fields=constructor' },
    { method: 'GET', target: '/', headers: [['Host', '[']] },
  ];

  it.each(requests)('$method $target answers without a 5xx or anything internal', async (req) => {
    expectNothingInternal(await send(req));
  });
});
