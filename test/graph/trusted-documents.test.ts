/**
 * Trusted documents on /graphql, on a seeded catalogue (PGlite, or a server database under
 * TEST_DATABASE_URL): a stored document run by `documentId` (both forms) and by Apollo's
 * persistedQuery extension, by POST and by GET (cacheable: Cache-Control, ETag, 304); an
 * unknown id; TRUSTED_DOCUMENTS_ONLY refusing text but from GraphiQL while it is served; and
 * the per-process store in front of the database (a repeated id costs no SQL, no new parse).
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { insertTrustedDocuments } from '../../src/db/repositories/trusted-documents.ts';
import { sha256Hex } from '../../src/graph/document-ids.ts';
import { createTrustedDocumentStore } from '../../src/graph/trusted-document-store.ts';
import { GRAPHIQL_MARKER_HEADER } from '../../src/graph/trusted-documents.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

const PRODUCT = 'query Product($id: Int!) { product(market: SE, id: $id) { productId name } }';
const HASH = sha256Hex(PRODUCT);
const UNKNOWN = sha256Hex('query Unknown { markets { code } }');
const GRAPHQL_RESPONSE = 'application/graphql-response+json';

let database: TestDatabase;
const apps: App[] = [];

function appWith(env: Record<string, string>): App {
  // No response cache: each request runs, so its statements can be counted.
  const config = loadConfig({ RESPONSE_CACHE_TTL_SECONDS: '0', ...env });
  const app = createApp({ config, database, logger: pino({ level: 'silent' }) });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  database = await createTestDatabase({ contents: 'seeded' });
  await insertTrustedDocuments(database.db, [{ hash: HASH, document: PRODUCT }], 'test.json');
});

afterAll(async () => {
  await Promise.all(apps.map((app) => app.dispose()));
  await database?.dispose();
});

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {} };
}

async function post(app: App, body: unknown, headers: Record<string, string> = {}) {
  database.statements.length = 0;
  const request = new Request('http://test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: GRAPHQL_RESPONSE, ...headers },
    body: JSON.stringify(body),
  });
  return answer(await app.fetch(request));
}

async function get(
  app: App,
  params: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  const search = new URLSearchParams(
    Object.entries(params).map(([name, value]) => [
      name,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
  database.statements.length = 0;
  const request = new Request(`http://test/graphql?${search}`, {
    headers: { accept: GRAPHQL_RESPONSE, ...headers },
  });
  return answer(await app.fetch(request));
}

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });
const PRODUCT_1 = { product: { productId: 1, name: expect.any(String) } };

describe('a stored document sent by id', () => {
  let app: App;
  beforeAll(() => {
    app = appWith({});
  });

  it.each([
    ['documentId sha256:<hex>', { documentId: `sha256:${HASH}` }],
    ['documentId <hex> (codegen)', { documentId: HASH }],
    ['extensions.persistedQuery (Apollo)', { extensions: apq(HASH) }],
  ])('runs by POST with %s', async (_form, id) => {
    const { status, body } = await post(app, { ...id, variables: { id: 1 } });
    expect(status).toBe(200);
    expect(body).toEqual({ data: PRODUCT_1 });
  });

  it.each([
    ['documentId sha256:<hex>', { documentId: `sha256:${HASH}` }],
    ['documentId <hex> (codegen)', { documentId: HASH }],
    ['extensions.persistedQuery (Apollo)', { extensions: apq(HASH) }],
  ])('runs by GET with %s, cacheable like a REST answer', async (_form, id) => {
    const first = await get(app, { ...id, variables: { id: 2 } });
    expect(first.status).toBe(200);
    expect(first.body.data.product.productId).toBe(2);
    expect(first.headers.get('cache-control')).toBe('public, max-age=30');
    expect(first.headers.get('vary')).toBe('Accept');
    const tag = first.headers.get('etag');
    expect(tag).toMatch(/^".+"$/);

    const again = await get(app, { ...id, variables: { id: 2 } }, { 'if-none-match': tag! });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(tag);
    expect(again.headers.get('cache-control')).toBe('public, max-age=30');
  });

  it('costs no SQL for the document once the process holds it', async () => {
    await post(app, { documentId: HASH, variables: { id: 3 } });
    const { status } = await post(app, { documentId: HASH, variables: { id: 4 } });
    expect(status).toBe(200);
    expect(database.statements.filter((sql) => sql.includes('trusted_documents'))).toEqual([]);
  });

  it('does not mark a GET of a document sent as text cacheable', async () => {
    const { status, headers } = await get(app, { query: PRODUCT, variables: { id: 1 } });
    expect(status).toBe(200);
    expect(headers.get('etag')).not.toBeNull();
    expect(headers.get('cache-control')).toBeNull();
  });

  it('runs the text with a matching hash (Apollo after a miss), refuses a mismatching one', async () => {
    const other = 'query Markets { markets { code } }';
    const ran = await post(app, { query: other, extensions: apq(sha256Hex(other)) });
    expect(ran.status).toBe(200);
    expect(ran.body.data.markets.length).toBeGreaterThan(0);

    const mismatch = await post(app, { query: other, extensions: apq(HASH) });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_REQUEST' });
  });

  it('refuses a malformed id with 400', async () => {
    for (const documentId of ['md5:abc', HASH.toUpperCase(), `sha256:${HASH.slice(1)}`]) {
      const { status, body } = await post(app, { documentId });
      expect(status).toBe(400);
      expect(body.errors![0]!.message).toContain('`documentId` must be');
    }
  });
});

describe('an unknown id', () => {
  let app: App;
  beforeAll(() => {
    app = appWith({});
  });

  it('answers documentId with PERSISTED_QUERY_NOT_FOUND, 404', async () => {
    const { status, body } = await post(app, { documentId: `sha256:${UNKNOWN}` });
    expect(status).toBe(404);
    expect(body.data).toBeUndefined();
    expect(body.errors).toEqual([
      {
        message: `No trusted document has the id "sha256:${UNKNOWN}" (docs/api.md, "Trusted documents").`,
        extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }),
      },
    ]);
  });

  it("answers Apollo's form with the message its clients read, 200 for application/json", async () => {
    const { status, body } = await post(
      app,
      { extensions: apq(UNKNOWN) },
      { accept: 'application/json' },
    );
    expect(status).toBe(200);
    expect(body.errors).toEqual([
      {
        message: 'PersistedQueryNotFound',
        extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_FOUND' }),
      },
    ]);
  });

  it('answers a GET with the same error, not cacheable', async () => {
    const { status, headers } = await get(app, { documentId: UNKNOWN });
    expect(status).toBe(404);
    expect(headers.get('cache-control')).toBeNull();
  });
});

describe('TRUSTED_DOCUMENTS_ONLY=true', () => {
  const TEXT_REFUSED = {
    message: expect.stringContaining('This API runs trusted documents only'),
    extensions: expect.objectContaining({ code: 'TRUSTED_DOCUMENT_REQUIRED' }),
  };

  it('refuses a document sent as text, by POST and by GET, and still runs stored ones', async () => {
    const app = appWith({ TRUSTED_DOCUMENTS_ONLY: 'true', GRAPHIQL: 'false' });
    const posted = await post(app, { query: PRODUCT, variables: { id: 1 } });
    expect(posted.status).toBe(400);
    expect(posted.body.errors).toEqual([TEXT_REFUSED]);
    expect(database.statements).toEqual([]);
    const got = await get(app, { query: PRODUCT, variables: { id: 1 } });
    expect(got.status).toBe(400);
    expect(got.body.errors).toEqual([TEXT_REFUSED]);

    const stored = await post(app, { documentId: HASH, variables: { id: 1 } });
    expect(stored.body).toEqual({ data: PRODUCT_1 });
    const apollo = await post(app, { extensions: apq(HASH), variables: { id: 1 } });
    expect(apollo.body).toEqual({ data: PRODUCT_1 });
  });

  it("refuses an unknown id's text too (no registering from clients)", async () => {
    const app = appWith({ TRUSTED_DOCUMENTS_ONLY: 'true', GRAPHIQL: 'false' });
    const other = 'query Markets { markets { code } }';
    const { status, body } = await post(app, { query: other, extensions: apq(sha256Hex(other)) });
    expect(status).toBe(404);
    expect(body.errors![0]!.message).toBe('PersistedQueryNotFound');
  });

  it("lets GraphiQL's requests send any document while GraphiQL is served", async () => {
    const app = appWith({ TRUSTED_DOCUMENTS_ONLY: 'true', GRAPHIQL: 'true' });
    const marked = { [GRAPHIQL_MARKER_HEADER]: '1' };
    const fromGraphiQL = await post(app, { query: PRODUCT, variables: { id: 1 } }, marked);
    expect(fromGraphiQL.body).toEqual({ data: PRODUCT_1 });
    const unmarked = await post(app, { query: PRODUCT, variables: { id: 1 } });
    expect(unmarked.body.errors).toEqual([TEXT_REFUSED]);

    const page = await app.fetch(
      new Request('http://test/graphql', { headers: { accept: 'text/html' } }),
    );
    expect(await page.text()).toContain(GRAPHIQL_MARKER_HEADER);
  });

  it("ignores GraphiQL's header when GraphiQL is off (production's default)", async () => {
    const app = appWith({
      TRUSTED_DOCUMENTS_ONLY: 'true',
      NODE_ENV: 'production',
      TOKEN_SECRET: 'trusted-documents-test-secret-0123456789abcdef',
    });
    const marked = { [GRAPHIQL_MARKER_HEADER]: '1' };
    const { status, body } = await post(app, { query: PRODUCT, variables: { id: 1 } }, marked);
    expect(status).toBe(400);
    expect(body.errors).toEqual([TEXT_REFUSED]);
    const page = await app.fetch(
      new Request('http://test/graphql', { headers: { accept: 'text/html' } }),
    );
    // No page: a browser's request is not one yoga can answer with JSON either.
    expect(page.status).toBe(406);
  });
});

describe('the store in front of the database', () => {
  it('reads a document once, parses it once, and keeps the most recently used', async () => {
    const other = 'query Markets { markets { code } }';
    await insertTrustedDocuments(database.db, [{ hash: sha256Hex(other), document: other }], 't');
    const store = createTrustedDocumentStore(database.db, 1);
    database.statements.length = 0;
    const [first, together] = await Promise.all([store.load(HASH), store.load(HASH)]);
    expect(database.statements).toHaveLength(1);
    expect(first!.text).toBe(PRODUCT);
    expect(together).toBe(first);
    expect(store.held(HASH)!.parsed).toBe(first!.parsed);

    expect(await store.load(UNKNOWN)).toBeUndefined();
    expect(store.held(UNKNOWN)).toBeUndefined();
    await store.load(sha256Hex(other));
    // One entry at most: the newer document pushed the older out.
    expect(store.held(HASH)).toBeUndefined();
    expect(store.held(sha256Hex(other))!.text).toBe(other);
  });
});
