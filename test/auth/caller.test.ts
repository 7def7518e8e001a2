import { describe, expect, it } from 'vitest';
import {
  authenticate,
  refuseAccess,
  rejectInvalidToken,
  requirePartner,
  requireShop,
  type Caller,
} from '../../src/auth/caller.ts';
import { issueToken } from '../../src/auth/tokens.ts';

const config = { tokenSecrets: ['s'.repeat(40)], tokenTtlSeconds: 600 };
const client = { id: 'acme', refs: ['acme-se', 'acme-no'], generation: 'generation-1' };
const ISSUED = new Date('2025-01-01T12:00:00Z');
const LATER = new Date(ISSUED.getTime() + 601_000);

const requestWith = (authorization?: string) =>
  new Request('http://test/partner-search', {
    headers: authorization === undefined ? {} : { authorization },
  });

async function validToken(): Promise<string> {
  return (await issueToken(config, client, { now: ISSUED })).access_token;
}

describe('authenticate', () => {
  it('is anonymous without an Authorization header, or with another scheme', async () => {
    for (const header of [undefined, '', 'Basic YWNtZTpzZWNyZXQ=', 'Digest username="acme"']) {
      expect(await authenticate(requestWith(header), config)).toEqual({ kind: 'anonymous' });
    }
  });

  it('is the client of a valid bearer token, whatever the scheme case', async () => {
    const token = await validToken();
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `  BEARER   ${token} `]) {
      expect(await authenticate(requestWith(header), config, { now: ISSUED })).toEqual({
        kind: 'client',
        clientId: 'acme',
        refs: ['acme-se', 'acme-no'],
      });
    }
  });

  it('tells a malformed header from an invalid and an expired token', async () => {
    const token = await validToken();
    const cases: [string, string][] = [
      ['Bearer', 'malformed'],
      ['Bearer two tokens', 'malformed'],
      [`Bearer ${token}, Bearer ${token}`, 'malformed'],
      ['Bearer not"a"token', 'malformed'],
      ['Bearer abc.def.ghi', 'invalid'],
      [`Bearer ${token}x`, 'invalid'],
    ];
    for (const [header, reason] of cases) {
      expect(await authenticate(requestWith(header), config, { now: ISSUED }), header).toEqual({
        kind: 'invalid',
        reason,
      });
    }
    expect(await authenticate(requestWith(`Bearer ${token}`), config, { now: LATER })).toEqual({
      kind: 'invalid',
      reason: 'expired',
    });
  });
});

describe('requirePartner', () => {
  const acme: Caller = { kind: 'client', clientId: 'acme', refs: ['acme-se', 'acme-no'] };

  async function expectUnauthorized(response: Response | null, challenge: string) {
    expect(response?.status).toBe(401);
    expect(response?.headers.get('www-authenticate')).toBe(challenge);
    expect(await response?.json()).toEqual({
      error: { code: 'http.401', message: expect.any(String), request_id: 'req-1' },
    });
  }

  it('answers 401 with a bare Bearer challenge when no token was sent', async () => {
    await expectUnauthorized(
      requirePartner({ kind: 'anonymous' }, 'acme-se', 'req-1'),
      'Bearer realm="partner-search"',
    );
  });

  it('answers 401 with error="invalid_token" for a refused token (RFC 6750)', async () => {
    await expectUnauthorized(
      requirePartner({ kind: 'invalid', reason: 'expired' }, 'acme-se', 'req-1'),
      'Bearer realm="partner-search", error="invalid_token", ' +
        'error_description="the access token has expired"',
    );
    for (const reason of ['invalid', 'malformed'] as const) {
      const response = requirePartner({ kind: 'invalid', reason }, 'acme-se', 'req-1');
      expect(response?.status).toBe(401);
      expect(response?.headers.get('www-authenticate')).toMatch(
        /^Bearer realm="partner-search", error="invalid_token", error_description="[^"]+"$/,
      );
    }
  });

  it('answers 403 for a ref another client owns', async () => {
    const response = requirePartner(acme, 'globex-se', 'req-1');
    expect(response?.status).toBe(403);
    expect(await response?.json()).toEqual({
      error: {
        code: 'http.403',
        message: 'ref "globex-se" does not belong to this client',
        details: [{ parameter: 'ref', reason: 'not_owned' }],
        request_id: 'req-1',
      },
    });
  });

  it("answers 403 to a shop's client, which owns no ref", async () => {
    const shop: Caller = { kind: 'client', clientId: 'shop-12-a', refs: [], shopId: 12 };
    const response = requirePartner(shop, 'acme-se', 'req-1');
    expect(response?.status).toBe(403);
    expect((await response?.json()).error.details).toEqual([
      { parameter: 'ref', reason: 'not_owned' },
    ]);
  });

  it('lets a client through for each ref it owns, and leaves a missing ref to validation', () => {
    expect(requirePartner(acme, 'acme-se', 'req-1')).toBeNull();
    expect(requirePartner(acme, 'acme-no', 'req-1')).toBeNull();
    expect(requirePartner(acme, undefined, 'req-1')).toBeNull();
    expect(requirePartner(acme, 'ACME-SE', 'req-1')?.status).toBe(403);
  });
});

describe('rejectInvalidToken, for routes where a token is optional', () => {
  it('passes anonymous callers and clients, and answers 401 to a refused token', () => {
    expect(rejectInvalidToken({ kind: 'anonymous' }, 'req-1')).toBeNull();
    expect(rejectInvalidToken({ kind: 'client', clientId: 'a', refs: [] }, 'req-1')).toBeNull();
    const response = rejectInvalidToken({ kind: 'invalid', reason: 'expired' }, 'req-1');
    expect(response?.status).toBe(401);
    expect(response?.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});

describe('requireShop, for the routes of a shop named by the path', () => {
  const shop12: Caller = { kind: 'client', clientId: 'shop-12-a', refs: [], shopId: 12 };
  const acme: Caller = { kind: 'client', clientId: 'acme', refs: ['acme-se'] };

  it("lets the shop's own client through, and only for its shop's id as the path writes it", () => {
    expect(requireShop(shop12, '12', 'req-1')).toBeNull();
    for (const shopId of ['13', '012', '12.0', ' 12', undefined]) {
      expect(requireShop(shop12, shopId, 'req-1')?.status, String(shopId)).toBe(403);
    }
  });

  it('answers 401 with the Bearer challenge without a token, and for a refused one', async () => {
    const anonymous = requireShop({ kind: 'anonymous' }, '12', 'req-1');
    expect(anonymous?.status).toBe(401);
    expect(anonymous?.headers.get('www-authenticate')).toBe('Bearer realm="partner-search"');
    expect((await anonymous?.json()).error.message).toBe(
      'shop feeds require an access token from POST /partner-search/token',
    );
    const expired = requireShop({ kind: 'invalid', reason: 'expired' }, '12', 'req-1');
    expect(expired?.status).toBe(401);
    expect(expired?.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it("answers 403 to a partner's client and to another shop's, saying which", async () => {
    const partner = requireShop(acme, '12', 'req-1');
    expect(partner?.status).toBe(403);
    expect(await partner?.json()).toEqual({
      error: {
        code: 'http.403',
        message: 'this client is not a shop’s client',
        details: [{ parameter: 'shopId', reason: 'not_a_shop_client' }],
        request_id: 'req-1',
      },
    });
    const otherShop = requireShop(shop12, '7', 'req-1');
    expect(await otherShop?.json()).toEqual({
      error: {
        code: 'http.403',
        message: 'shop 7 is not this client’s shop',
        details: [{ parameter: 'shopId', reason: 'not_owned' }],
        request_id: 'req-1',
      },
    });
  });
});

describe('refuseAccess, by the access a route declares', () => {
  const shop12: Caller = { kind: 'client', clientId: 'shop-12-a', refs: [], shopId: 12 };
  const acme: Caller = { kind: 'client', clientId: 'acme', refs: ['acme-se'] };
  const anonymous: Caller = { kind: 'anonymous' };

  it("`shop`: 401 without a token, 403 for a partner's or another shop's, through for its own", () => {
    expect(refuseAccess('shop', anonymous, { shopId: '12' }, 'req-1')?.status).toBe(401);
    expect(refuseAccess('shop', acme, { shopId: '12', ref: 'acme-se' }, 'req-1')?.status).toBe(403);
    expect(refuseAccess('shop', shop12, { shopId: '7' }, 'req-1')?.status).toBe(403);
    expect(refuseAccess('shop', shop12, { shopId: '12' }, 'req-1')).toBeNull();
  });

  it('`partner`: the ref decides, whatever the shop; `public`: only a refused token is refused', () => {
    expect(refuseAccess('partner', shop12, { ref: 'acme-se', shopId: '12' }, 'req-1')?.status).toBe(
      403,
    );
    expect(refuseAccess('partner', acme, { ref: 'acme-se' }, 'req-1')).toBeNull();
    expect(refuseAccess('partner', anonymous, { ref: 'acme-se' }, 'req-1')?.status).toBe(401);
    expect(refuseAccess('public', anonymous, {}, 'req-1')).toBeNull();
    expect(refuseAccess('public', shop12, {}, 'req-1')).toBeNull();
    const invalid: Caller = { kind: 'invalid', reason: 'invalid' };
    expect(refuseAccess('public', invalid, {}, 'req-1')?.status).toBe(401);
  });
});
