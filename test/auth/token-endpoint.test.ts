import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, requirePartner } from '../../src/auth/caller.ts';
import { hashClientSecret } from '../../src/auth/client-secrets.ts';
import { verifyToken, type TokenResponse } from '../../src/auth/tokens.ts';
import { findApiClientWithRefs } from '../../src/db/repositories/api-clients.ts';
import { buildOpenApiDocument } from '../../src/http/openapi.ts';
import { packageVersion } from '../../src/version.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import {
  MAX_TOKEN_REQUEST_BYTES,
  TOKEN_PATH,
  handleTokenRequest,
  type TokenErrorCode,
} from '../../src/auth/token-endpoint.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';

const config = { tokenSecrets: ['s'.repeat(40)], tokenTtlSeconds: 3600 };
const ACME = { id: 'acme', secret: 'acme-secret', refs: ['acme-se', 'acme-no'] };
/** A secret with the characters RFC 6749 section 2.3.1 makes Basic clients url-encode. */
const ODD = { id: 'odd.client_1', secret: 'p@ss:wörd+100%&=', refs: ['odd-ref'] };
const LONELY = { id: 'lonely', secret: 'lonely-secret', refs: [] as string[] };
const GLOBEX_REF = 'globex-se';
const REQUEST_ID = 'req-token-test';
const FORM = 'application/x-www-form-urlencoded';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
  const clients = [
    ACME,
    ODD,
    LONELY,
    { id: 'globex', secret: 'globex-secret', refs: [GLOBEX_REF] },
  ];
  for (const client of clients) {
    await database.db
      .insertInto('api_clients')
      .values({
        id: client.id,
        name: client.id,
        secret_hash: await hashClientSecret(client.secret),
      })
      .execute();
    for (const ref of client.refs) {
      await database.db
        .insertInto('api_client_refs')
        .values({ ref, client_id: client.id })
        .execute();
    }
  }
});
afterAll(() => database?.dispose());

function basic(id: string, secret: string): string {
  const pair = `${encodeURIComponent(id)}:${encodeURIComponent(secret)}`;
  return `Basic ${Buffer.from(pair).toString('base64')}`;
}

interface TokenRequestOptions {
  body?: string | ReadableStream<Uint8Array> | Record<string, string>;
  headers?: Record<string, string>;
  method?: string;
}

function tokenRequest({ body, headers = {}, method = 'POST' }: TokenRequestOptions): Request {
  const encoded =
    typeof body === 'object' && !(body instanceof ReadableStream)
      ? new URLSearchParams(body).toString()
      : body;
  return new Request(`http://test${TOKEN_PATH}`, {
    method,
    headers: { 'content-type': FORM, ...headers },
    body: encoded ?? null,
    ...(encoded instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

const post = (options: TokenRequestOptions) =>
  handleTokenRequest(tokenRequest(options), { db: database.db, config, requestId: REQUEST_ID });

const grant = { grant_type: 'client_credentials' };

/** error_description's characters (RFC 6749 section 5.2): printable ASCII but `"` and `\`. */
const DESCRIPTION_CHARACTERS = /^[\x20-\x21\x23-\x5B\x5D-\x7E]+$/;

/** The error body the OpenAPI document promises. */
const documentedTokenError = new Ajv2020({ strict: true }).compile(
  buildOpenApiDocument(restRoutes, { version: packageVersion() }).components.schemas.TokenError!,
);

/** An RFC 6749 section 5.2 error, never cached, with a challenge exactly on a 401. */
async function expectError(response: Response, status: number, error: TokenErrorCode) {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  expect(documentedTokenError(body), JSON.stringify(documentedTokenError.errors)).toBe(true);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  expect(response.headers.get('cache-control')).toBe('no-store');
  expect(response.headers.get('pragma')).toBe('no-cache');
  expect(response.headers.get('www-authenticate')).toBe(
    status === 401 ? 'Basic realm="partner-search"' : null,
  );
  expect(body).toEqual({
    error,
    error_description: expect.stringMatching(DESCRIPTION_CHARACTERS),
    request_id: REQUEST_ID,
  });
  return body as { error: string; error_description: string; request_id: string };
}

describe(`findApiClientWithRefs on ${databaseKind}`, () => {
  it('answers a client with its refs, sorted, in one statement', async () => {
    database.statements.length = 0;
    const client = await findApiClientWithRefs(database.db, 'acme');
    expect(client).toEqual({
      id: 'acme',
      name: 'acme',
      secretHash: expect.stringMatching(/^scrypt\$/),
      refs: ['acme-no', 'acme-se'],
      shopId: null,
    });
    expect(database.statements).toHaveLength(1);
  });

  it('answers an empty list for a client without refs, and undefined for no client', async () => {
    expect((await findApiClientWithRefs(database.db, 'lonely'))?.refs).toEqual([]);
    expect(await findApiClientWithRefs(database.db, 'nobody')).toBeUndefined();
  });
});

describe(`POST ${TOKEN_PATH} on ${databaseKind}`, () => {
  describe('issues a token', () => {
    async function expectToken(response: Response, client: { id: string; refs: string[] }) {
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
      const body = (await response.json()) as TokenResponse;
      expect(body).toEqual({
        access_token: expect.any(String),
        expires_in: 3600,
        token_type: 'Bearer',
      });
      expect(await verifyToken(config, body.access_token)).toEqual({
        kind: 'client',
        clientId: client.id,
        refs: [...client.refs].sort(),
      });
    }

    it('for client credentials in the form body', async () => {
      await expectToken(
        await post({ body: { ...grant, client_id: ACME.id, client_secret: ACME.secret } }),
        ACME,
      );
    });

    it('for client credentials in HTTP Basic, url-decoded (RFC 6749 section 2.3.1)', async () => {
      await expectToken(
        await post({ body: grant, headers: { authorization: basic(ACME.id, ACME.secret) } }),
        ACME,
      );
      await expectToken(
        await post({ body: grant, headers: { authorization: basic(ODD.id, ODD.secret) } }),
        ODD,
      );
    });

    it('with the odd secret form-encoded in the body, and a charset on the content type', async () => {
      await expectToken(
        await post({
          body: { ...grant, client_id: ODD.id, client_secret: ODD.secret },
          headers: { 'content-type': 'Application/X-WWW-Form-Urlencoded; charset=UTF-8' },
        }),
        ODD,
      );
    });

    it('with no refs for a client that owns none', async () => {
      await expectToken(
        await post({ body: { ...grant, client_id: LONELY.id, client_secret: LONELY.secret } }),
        LONELY,
      );
    });

    it("as Swagger UI's Authorize asks for it: Basic, an empty scope, X-Requested-With", async () => {
      // swagger-ui's authorizeApplication: `btoa(id + ":" + secret)` with nothing url-encoded,
      // and a form of grant_type and the scopes, empty for a scheme with none.
      const swaggerHeaders = {
        accept: 'application/json, text/plain, */*',
        'x-requested-with': 'XMLHttpRequest',
      };
      await expectToken(
        await post({
          body: 'grant_type=client_credentials&scope=',
          headers: {
            ...swaggerHeaders,
            authorization: `Basic ${Buffer.from(`${ACME.id}:${ACME.secret}`).toString('base64')}`,
          },
        }),
        ACME,
      );
      await expectToken(
        await post({
          body: { ...grant, scope: '', client_id: ACME.id, client_secret: ACME.secret },
          headers: swaggerHeaders,
        }),
        ACME,
      );
    });
  });

  describe('refuses client authentication', () => {
    /** Everything but the timing-free parts a client could compare. */
    async function failure(response: Response) {
      return {
        status: response.status,
        headers: [...response.headers].filter(([name]) => name !== 'content-length'),
        body: await response.text(),
      };
    }

    it('in the form body: 400 invalid_client, the same for a wrong secret and an unknown client', async () => {
      const wrongSecret = await post({
        body: { ...grant, client_id: ACME.id, client_secret: 'guess' },
      });
      const body = await expectError(wrongSecret.clone(), 400, 'invalid_client');
      expect(body.error_description).toBe('client authentication failed');
      const expected = await failure(wrongSecret);
      const others = [
        await post({ body: { ...grant, client_id: 'nobody', client_secret: 'guess' } }),
        await post({ body: { ...grant, client_id: 'not a valid id!', client_secret: 'guess' } }),
        // Another client's secret is just a wrong secret.
        await post({ body: { ...grant, client_id: ACME.id, client_secret: LONELY.secret } }),
      ];
      for (const response of others) expect(await failure(response)).toEqual(expected);
    });

    it('by HTTP Basic: 401 invalid_client with a Basic challenge (RFC 6749 section 5.2), the same for every failure', async () => {
      const wrongSecret = await post({
        body: grant,
        headers: { authorization: basic(ACME.id, 'guess') },
      });
      const body = await expectError(wrongSecret.clone(), 401, 'invalid_client');
      expect(body.error_description).toBe('client authentication failed');
      const expected = await failure(wrongSecret);
      const others = [
        await post({ body: grant, headers: { authorization: basic('nobody', 'guess') } }),
        await post({ body: grant, headers: { authorization: basic(ACME.id, '') } }),
        await post({ body: grant, headers: { authorization: basic(ACME.id, LONELY.secret) } }),
      ];
      for (const response of others) expect(await failure(response)).toEqual(expected);
    });

    it('with 401 invalid_client and a Basic challenge for a malformed or non-Basic Authorization header', async () => {
      const headers = [
        'Basic',
        'Basic !!!not-base64',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        `Basic ${Buffer.from(':secret-without-id').toString('base64')}`,
        `Basic ${Buffer.from('acme:%zz').toString('base64')}`,
        `Basic ${Buffer.from('acme:x').toString('base64')} extra`,
        'Bearer some-token',
      ];
      for (const authorization of headers) {
        await expectError(
          await post({ body: grant, headers: { authorization } }),
          401,
          'invalid_client',
        );
      }
    });

    it('with 400 invalid_request when the credentials come both in Basic and in the body', async () => {
      const response = await post({
        body: { ...grant, client_id: ACME.id, client_secret: ACME.secret },
        headers: { authorization: basic(ACME.id, ACME.secret) },
      });
      await expectError(response, 400, 'invalid_request');
    });

    it('with 400 invalid_client without client authentication (an empty value counts as none)', async () => {
      for (const body of [
        grant,
        { ...grant, client_id: ACME.id },
        { ...grant, client_id: ACME.id, client_secret: '' },
        { ...grant, client_id: '', client_secret: ACME.secret },
        { ...grant, client_secret: ACME.secret },
      ]) {
        const error = await expectError(await post({ body }), 400, 'invalid_client');
        expect(error.error_description).toMatch(/required/);
      }
    });

    it('never repeats the secret it was sent', async () => {
      const secret = 'very-distinctive-secret-value';
      const responses = [
        await post({ body: { ...grant, client_id: ACME.id, client_secret: secret } }),
        await post({ body: { grant_type: 'password', client_id: ACME.id, client_secret: secret } }),
        await post({ body: grant, headers: { authorization: basic('nobody', secret) } }),
        await post({
          body: { ...grant, client_secret: secret },
          headers: { authorization: basic(ACME.id, secret) },
        }),
      ];
      for (const response of responses) {
        const text = await response.text();
        expect(text).not.toContain(secret);
        expect(JSON.stringify([...response.headers])).not.toContain(secret);
      }
    });
  });

  describe('refuses a malformed request', () => {
    const credentials = { client_id: ACME.id, client_secret: ACME.secret };

    it('with 400 invalid_request for a missing grant_type', async () => {
      for (const body of [credentials, { ...credentials, grant_type: '' }]) {
        const error = await expectError(await post({ body }), 400, 'invalid_request');
        expect(error.error_description).toContain('grant_type');
      }
    });

    it('with 400 unsupported_grant_type for another grant', async () => {
      for (const grantType of ['password', 'authorization_code', 'CLIENT_CREDENTIALS']) {
        const body = { ...credentials, grant_type: grantType };
        await expectError(await post({ body }), 400, 'unsupported_grant_type');
      }
    });

    it('with 400 invalid_request for a repeated parameter', async () => {
      const body = `grant_type=client_credentials&client_id=acme&client_id=globex&client_secret=x`;
      const error = await expectError(await post({ body }), 400, 'invalid_request');
      expect(error.error_description).toBe('client_id must appear once');
    });

    it('with 415 invalid_request for anything but a form body', async () => {
      await expectError(
        await post({
          body: JSON.stringify({ ...grant, ...credentials }),
          headers: { 'content-type': 'application/json' },
        }),
        415,
        'invalid_request',
      );
      await expectError(
        await post({ body: 'x', headers: { 'content-type': 'text/plain; charset=utf-8' } }),
        415,
        'invalid_request',
      );
      const untyped = new Request(`http://test${TOKEN_PATH}`, { method: 'POST' });
      await expectError(
        await handleTokenRequest(untyped, { db: database.db, config, requestId: REQUEST_ID }),
        415,
        'invalid_request',
      );
    });

    it(`with 413 for a body over ${MAX_TOKEN_REQUEST_BYTES} bytes, declared or streamed`, async () => {
      const padding = 'x'.repeat(MAX_TOKEN_REQUEST_BYTES);
      const oversize = new URLSearchParams({ ...grant, ...credentials, padding }).toString();
      await expectError(await post({ body: oversize }), 413, 'invalid_request');

      // No Content-Length: the reader stops at the limit instead of buffering everything.
      let pulled = 0;
      const endless = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new TextEncoder().encode('a'.repeat(1024)));
        },
      });
      await expectError(await post({ body: endless }), 413, 'invalid_request');
      expect(pulled).toBeLessThan(20);

      const justFits = new URLSearchParams({ ...grant, ...credentials }).toString();
      const padded = `${justFits}&pad=${'x'.repeat(MAX_TOKEN_REQUEST_BYTES - justFits.length - 5)}`;
      expect(Buffer.byteLength(padded)).toBe(MAX_TOKEN_REQUEST_BYTES);
      expect((await post({ body: padded })).status).toBe(200);
    });

    it('with 413 from a declared Content-Length before reading anything', async () => {
      const request = new Request(`http://test${TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': FORM, 'content-length': String(MAX_TOKEN_REQUEST_BYTES + 1) },
        body: 'grant_type=client_credentials',
      });
      await expectError(
        await handleTokenRequest(request, { db: database.db, config, requestId: REQUEST_ID }),
        413,
        'invalid_request',
      );
    });

    it('with 405 invalid_request and Allow for another method', async () => {
      const response = await handleTokenRequest(
        new Request(`http://test${TOKEN_PATH}`, { method: 'GET' }),
        { db: database.db, config, requestId: REQUEST_ID },
      );
      expect(response.headers.get('allow')).toBe('POST');
      await expectError(response, 405, 'invalid_request');
    });
  });
});

describe(`a token from the endpoint at partner search on ${databaseKind}`, () => {
  it('opens the client its own refs, answers 403 for others, and expires', async () => {
    const issuedAt = new Date();
    const response = await handleTokenRequest(
      tokenRequest({ body: grant, headers: { authorization: basic(ACME.id, ACME.secret) } }),
      { db: database.db, config, requestId: REQUEST_ID, now: issuedAt },
    );
    const { access_token: token } = (await response.json()) as TokenResponse;
    const search = new Request('http://test/partner-search', {
      headers: { authorization: `Bearer ${token}` },
    });

    const caller = await authenticate(search, config);
    expect(requirePartner(caller, 'acme-se', REQUEST_ID)).toBeNull();
    expect(requirePartner(caller, GLOBEX_REF, REQUEST_ID)?.status).toBe(403);

    const anHourLater = new Date(issuedAt.getTime() + config.tokenTtlSeconds * 1000);
    const expired = await authenticate(search, config, { now: anHourLater });
    const refused = requirePartner(expired, 'acme-se', REQUEST_ID);
    expect(refused?.status).toBe(401);
    expect(refused?.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
