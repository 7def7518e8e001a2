import { describe, expect, it } from 'vitest';
import {
  authenticate,
  rejectInvalidToken,
  requirePartner,
  type Caller,
} from '../../src/auth/caller.ts';
import { issueToken } from '../../src/auth/tokens.ts';

const config = { tokenSecret: 's'.repeat(40), tokenTtlSeconds: 600 };
const client = { id: 'acme', refs: ['acme-se', 'acme-no'] };
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
