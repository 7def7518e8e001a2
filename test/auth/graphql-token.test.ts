/**
 * One rule for tokens, on /graphql as on REST: no token is anonymous, a token that is sent must
 * be valid. An expired, forged, revoked or garbled one is a 401 with the RFC 6750 challenge, in
 * GraphQL's error shape, before anything of the document runs.
 */
import { describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/tokens.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { tokenSubjectOf } from '../helpers/clients.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const TOKEN_SECRET = 'graphql-token-test-secret-0123456789abcdef';
const TTL_SECONDS = 600;
const catalogue = useSeededCatalogue({
  TOKEN_SECRET,
  TOKEN_TTL_SECONDS: String(TTL_SECONDS),
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
  RATE_LIMIT_CLIENT_PER_MINUTE: '0',
});

const QUERY = '{ markets { code currency } }';

async function tokenSigned(
  secret: string,
  issuedAt = new Date(),
  generation?: string,
): Promise<string> {
  const config = { tokenSecrets: [secret], tokenTtlSeconds: TTL_SECONDS };
  const demo = await tokenSubjectOf(catalogue.database.db, DEMO_CLIENT.id);
  const subject = { ...demo, generation: generation ?? demo.generation };
  return (await issueToken(config, subject, { now: issuedAt })).access_token;
}

async function refusedTokens(): Promise<Record<string, { header: string; message: string }>> {
  const anHourAgo = new Date(Date.now() - 3600_000);
  const valid = await tokenSigned(TOKEN_SECRET);
  const [header, payload] = valid.split('.');
  return {
    expired: {
      header: `Bearer ${await tokenSigned(TOKEN_SECRET, anHourAgo)}`,
      message: 'the access token has expired',
    },
    'signed with another secret': {
      header: `Bearer ${await tokenSigned('someone-elses-secret-0123456789abcdef')}`,
      message: 'the access token is invalid',
    },
    // The demo client's id, but another secret's: the client was deleted and added again.
    'of a revoked client': {
      header: `Bearer ${await tokenSigned(TOKEN_SECRET, new Date(), 'another-generation')}`,
      message: 'the access token has been revoked',
    },
    'with a forged signature': {
      header: `Bearer ${header}.${payload}.${'A'.repeat(43)}`,
      message: 'the access token is invalid',
    },
    garbage: { header: 'Bearer garbage', message: 'the access token is invalid' },
    'missing from a Bearer header': {
      header: 'Bearer',
      message: 'the Authorization header must be "Bearer <access token>"',
    },
  };
}

async function graphqlGet(authorization?: string): Promise<Response> {
  const url = `http://test/graphql?query=${encodeURIComponent(QUERY)}`;
  return await catalogue.app.fetch(
    new Request(url, {
      headers: { accept: 'application/json', ...(authorization ? { authorization } : {}) },
    }),
  );
}

describe(`a token on /graphql on ${databaseKind}`, () => {
  it('refused: 401 UNAUTHENTICATED with an invalid_token challenge, running nothing', async () => {
    for (const [name, { header, message }] of Object.entries(await refusedTokens())) {
      for (const send of [
        () => catalogue.post({ query: QUERY }, { authorization: header }),
        () => graphqlGet(header),
      ]) {
        catalogue.statements.length = 0;
        const response = await send();
        expect(response.status, name).toBe(401);
        expect(response.headers.get('www-authenticate'), name).toBe(
          `Bearer realm="partner-search", error="invalid_token", error_description="${message.replaceAll('"', "'")}"`,
        );
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await response.json(), name).toEqual({
          errors: [{ message, extensions: { code: 'UNAUTHENTICATED' } }],
        });
        expect(catalogue.statements, name).toEqual([]);
      }
    }
  });

  it('refused the same way REST refuses it: the same status and challenge', async () => {
    for (const [name, { header }] of Object.entries(await refusedTokens())) {
      const graphql = await catalogue.post({ query: QUERY }, { authorization: header });
      const rest = await catalogue.app.fetch(
        new Request('http://test/suggestions?market=se&limit=1', {
          headers: { authorization: header },
        }),
      );
      expect([graphql.status, rest.status], name).toEqual([401, 401]);
      expect(graphql.headers.get('www-authenticate'), name).toBe(
        rest.headers.get('www-authenticate'),
      );
    }
  });

  it('valid: answered, the same as without a token', async () => {
    const anonymous = await catalogue.post({ query: QUERY });
    const withToken = await catalogue.post(
      { query: QUERY },
      { authorization: `Bearer ${await tokenSigned(TOKEN_SECRET)}` },
    );
    expect(anonymous.status).toBe(200);
    expect(withToken.status).toBe(200);
    const body = await withToken.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.markets).toHaveLength(7);
    expect(body).toEqual(await anonymous.json());
  });

  it('absent, or under another scheme: anonymous', async () => {
    for (const authorization of [undefined, 'Basic ZGVtbzpkZW1v']) {
      const response = await graphqlGet(authorization);
      expect(response.status, authorization).toBe(200);
      expect((await response.json()).data.markets).toHaveLength(7);
    }
  });
});
