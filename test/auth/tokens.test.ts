import fc from 'fast-check';
import { SignJWT, UnsecuredJWT, decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  MAX_TOKEN_LENGTH,
  TOKEN_AUDIENCE,
  TOKEN_ISSUER,
  issueToken,
  verifyToken,
} from '../../src/auth/tokens.ts';

const config = { tokenSecrets: ['s'.repeat(40)], tokenTtlSeconds: 600 };
const client = { id: 'acme', refs: ['acme-se', 'acme-no'], generation: 'generation-1' };
const ISSUED = new Date('2025-01-01T12:00:00Z');
const secondsAfterIssue = (seconds: number) => new Date(ISSUED.getTime() + seconds * 1000);

const tokenOf = async (overrides: Partial<typeof config> = {}) =>
  (await issueToken({ ...config, ...overrides }, client, { now: ISSUED })).access_token;

/** A token we did not issue, signed with `secret` and whatever header and claims a test likes. */
function forge(
  claims: Record<string, unknown>,
  { secret = config.tokenSecrets[0]!, alg = 'HS256', typ = 'JWT' } = {},
) {
  const issuedAt = Math.floor(ISSUED.getTime() / 1000);
  return new SignJWT({
    iss: TOKEN_ISSUER,
    aud: TOKEN_AUDIENCE,
    sub: client.id,
    refs: client.refs,
    iat: issuedAt,
    exp: issuedAt + 600,
    ...claims,
  })
    .setProtectedHeader({ alg, typ })
    .sign(new TextEncoder().encode(secret));
}

describe('issueToken', () => {
  it('answers the RFC 6749 token response with a signed HS256 JWT', async () => {
    const response = await issueToken(config, client, { now: ISSUED });
    expect(response).toEqual({
      access_token: expect.any(String),
      expires_in: 600,
      token_type: 'Bearer',
    });
    expect(decodeProtectedHeader(response.access_token)).toEqual({ alg: 'HS256', typ: 'JWT' });
    const issuedAt = ISSUED.getTime() / 1000;
    expect(decodeJwt(response.access_token)).toEqual({
      iss: TOKEN_ISSUER,
      aud: TOKEN_AUDIENCE,
      sub: 'acme',
      refs: ['acme-se', 'acme-no'],
      gen: 'generation-1',
      iat: issuedAt,
      exp: issuedAt + 600,
    });
  });
});

describe('verifyToken', () => {
  it('answers the client and its refs for a valid token, without a database', async () => {
    const token = await tokenOf();
    expect(await verifyToken(config, token, { now: secondsAfterIssue(599) })).toEqual({
      kind: 'client',
      clientId: 'acme',
      refs: ['acme-se', 'acme-no'],
    });
  });

  it("carries a shop's client's shop as its `shop` claim, and a partner's none", async () => {
    const shopClient = { id: 'shop-12-abc', refs: [], shopId: 12, generation: 'generation-2' };
    const { access_token: token } = await issueToken(config, shopClient, { now: ISSUED });
    expect(decodeJwt(token)).toMatchObject({ sub: 'shop-12-abc', refs: [], shop: 12 });
    expect(await verifyToken(config, token, { now: ISSUED })).toEqual({
      kind: 'client',
      clientId: 'shop-12-abc',
      refs: [],
      shopId: 12,
    });
    const partner = await issueToken(config, { ...client, shopId: null }, { now: ISSUED });
    expect(decodeJwt(partner.access_token)).not.toHaveProperty('shop');
    expect(await verifyToken(config, partner.access_token, { now: ISSUED })).not.toHaveProperty(
      'shopId',
    );
  });

  it('says revoked when its client no longer stands, with the generation the token names', async () => {
    const asked: [string, string | undefined][] = [];
    const standing = (verdict: boolean) => ({
      stands: async (clientId: string, generation: string | undefined) => {
        asked.push([clientId, generation]);
        return verdict;
      },
    });
    const token = await tokenOf();
    const now = { now: ISSUED };
    expect(await verifyToken(config, token, { ...now, clients: standing(true) })).toMatchObject({
      kind: 'client',
      clientId: 'acme',
    });
    expect(await verifyToken(config, token, { ...now, clients: standing(false) })).toEqual({
      kind: 'invalid',
      reason: 'revoked',
    });
    // A token of a release before generations: its client's existence alone is asked.
    const { gen: _generation, ...older } = decodeJwt(token);
    expect(
      await verifyToken(config, await forge(older), { ...now, clients: standing(true) }),
    ).toMatchObject({ kind: 'client' });
    expect(asked).toEqual([
      ['acme', 'generation-1'],
      ['acme', 'generation-1'],
      ['acme', undefined],
    ]);
    // A forgery or an expired token never gets that far.
    const expired = { now: secondsAfterIssue(600), clients: standing(true) };
    expect(await verifyToken(config, token, expired)).toMatchObject({ reason: 'expired' });
    const badGeneration = await forge({ gen: 7 });
    expect(
      await verifyToken(config, badGeneration, { ...now, clients: standing(true) }),
    ).toMatchObject({
      reason: 'invalid',
    });
    expect(asked).toHaveLength(3);
  });

  it('says expired from the token lifetime on', async () => {
    const token = await tokenOf();
    expect(await verifyToken(config, token, { now: secondsAfterIssue(600) })).toEqual({
      kind: 'invalid',
      reason: 'expired',
    });
    const shortLived = await tokenOf({ tokenTtlSeconds: 60 });
    expect(await verifyToken(config, shortLived, { now: secondsAfterIssue(61) })).toMatchObject({
      reason: 'expired',
    });
  });

  it('refuses a tampered payload or signature', async () => {
    const [header, payload, signature] = (await tokenOf()).split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, refs: ['someone-else'] })).toString(
      'base64url',
    );
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    for (const token of [`${header}.${widened}.${signature}`, `${header}.${payload}.${flipped}`]) {
      expect(await verifyToken(config, token, { now: ISSUED })).toEqual({
        kind: 'invalid',
        reason: 'invalid',
      });
    }
  });

  it('refuses a token signed with another secret, even an expired one', async () => {
    const other = await tokenOf({ tokenSecrets: ['o'.repeat(40)] });
    expect(await verifyToken(config, other, { now: ISSUED })).toMatchObject({ reason: 'invalid' });
    // Expiry is checked after the signature: a forgery is never merely "expired".
    const expiredForgery = await forge({ exp: 1 }, { secret: 'o'.repeat(40) });
    expect(await verifyToken(config, expiredForgery, { now: ISSUED })).toMatchObject({
      reason: 'invalid',
    });
  });

  it('verifies with every configured secret, signs with the first only', async () => {
    const [first, second] = ['n'.repeat(40), config.tokenSecrets[0]!];
    const rotated = { ...config, tokenSecrets: [first, second] };
    const withOld = await tokenOf();
    const withNew = await tokenOf({ tokenSecrets: rotated.tokenSecrets });
    expect(await verifyToken(rotated, withOld, { now: ISSUED })).toMatchObject({ kind: 'client' });
    expect(await verifyToken(rotated, withNew, { now: ISSUED })).toMatchObject({ kind: 'client' });
    // Signed with the first: the old secret alone refuses it.
    expect(await verifyToken(config, withNew, { now: ISSUED })).toMatchObject({
      reason: 'invalid',
    });
    // Expired under either secret is still 'expired', checked after the signature.
    expect(await verifyToken(rotated, withOld, { now: secondsAfterIssue(600) })).toMatchObject({
      reason: 'expired',
    });
  });

  it('refuses alg none and any algorithm but HS256', async () => {
    const unsecured = new UnsecuredJWT({ refs: client.refs })
      .setSubject(client.id)
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setIssuedAt()
      .setExpirationTime('1h')
      .encode();
    expect(await verifyToken(config, unsecured)).toEqual({ kind: 'invalid', reason: 'invalid' });
    const hs512 = await forge({}, { alg: 'HS512' });
    expect(await verifyToken(config, hs512, { now: ISSUED })).toMatchObject({ reason: 'invalid' });
  });

  it('refuses our own signature over claims we would not write', async () => {
    const now = { now: ISSUED };
    expect(await verifyToken(config, await forge({}), now)).toMatchObject({ kind: 'client' });
    for (const claims of [
      { iss: 'someone-else' },
      { aud: 'graphql' },
      { sub: undefined },
      { sub: '' },
      { exp: undefined },
      { refs: 'acme-se' },
      { refs: [1, 2] },
      { shop: '12' },
      { shop: 0 },
      { shop: -3 },
      { shop: 1.5 },
      { shop: null },
    ]) {
      expect(await verifyToken(config, await forge(claims), now), JSON.stringify(claims)).toEqual({
        kind: 'invalid',
        reason: 'invalid',
      });
    }
    const notJwt = await forge({}, { typ: 'at+jwt' });
    expect(await verifyToken(config, notJwt, now)).toMatchObject({ reason: 'invalid' });
  });

  it('refuses an oversize token before any cryptography', async () => {
    const huge = await forge({ refs: Array.from({ length: 1000 }, (_, i) => `ref-${i}`) });
    expect(huge.length).toBeGreaterThan(MAX_TOKEN_LENGTH);
    expect(await verifyToken(config, huge, { now: ISSUED })).toMatchObject({ reason: 'invalid' });
  });

  it('never throws, whatever string it is given', async () => {
    const tokenish = fc.oneof(
      fc.string(),
      fc.array(fc.base64String(), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('.')),
    );
    await fc.assert(
      fc.asyncProperty(tokenish, async (token) => {
        expect(await verifyToken(config, token)).toEqual({ kind: 'invalid', reason: 'invalid' });
      }),
      { numRuns: 300 },
    );
  });
});
