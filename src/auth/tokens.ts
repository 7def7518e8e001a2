/**
 * Access tokens of partner and shop clients (docs/api.md, "Authentication"): HS256 JWTs signed
 * with the first of TOKEN_SECRET's secrets and verified with any of them, so that a secret is
 * rotated without ending the tokens already issued (docs/operations.md). A token carries the
 * client's id, the refs it owned at issue, for a shop's client its shop, and the generation of
 * its secret, so verifying one reads nothing per request: the client's standing is checked
 * against the list of clients each process keeps (src/auth/client-directory.ts), so that a
 * revoked client's tokens are refused within moments, not when they expire.
 */
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { Config } from '../config.ts';
import type { ClientDirectory } from './client-directory.ts';

/** Who issues tokens and who accepts them: a token made for anything else is refused. */
export const TOKEN_ISSUER = 'catalogue-gateway';
export const TOKEN_AUDIENCE = 'partner-search';

const ALGORITHM = 'HS256';
const TOKEN_TYPE = 'JWT';

/**
 * Longer than any token we issue for a client with a realistic number of refs, short enough
 * that nobody makes us parse and MAC megabytes from a header.
 */
export const MAX_TOKEN_LENGTH = 8192;

export type TokenConfig = Pick<Config, 'tokenSecrets' | 'tokenTtlSeconds'>;

/** The token endpoint's 200 body (RFC 6749 section 5.1). */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

/**
 * A verified token: the client it was issued to, the refs that client owned and, for a shop's
 * client, the shop it writes for.
 */
export interface VerifiedClient {
  kind: 'client';
  clientId: string;
  refs: string[];
  shopId?: number;
}

/** What a token is issued for: a client as the token endpoint authenticated it. */
export interface TokenSubject {
  id: string;
  refs: readonly string[];
  /** Absent, or null, for a partner's client. */
  shopId?: number | null;
  /** The generation of the client's secret (clientGeneration), the claim `gen`. */
  generation: string;
}

export type TokenFailureReason = 'expired' | 'invalid' | 'revoked';

export interface TokenFailure {
  kind: 'invalid';
  reason: TokenFailureReason;
}

export interface ClockOptions {
  /** The current time; tests move it instead of waiting. */
  now?: Date;
}

export interface VerifyOptions extends ClockOptions {
  /** The clients that exist; without it, the signature and the claims alone decide. */
  clients?: Pick<ClientDirectory, 'stands'>;
}

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

export async function issueToken(
  config: TokenConfig,
  client: TokenSubject,
  { now = new Date() }: ClockOptions = {},
): Promise<TokenResponse> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  const shop = client.shopId == null ? {} : { shop: client.shopId };
  const claims = { refs: [...client.refs], ...shop, gen: client.generation };
  const accessToken = await new SignJWT(claims)
    .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE })
    .setIssuer(TOKEN_ISSUER)
    .setAudience(TOKEN_AUDIENCE)
    .setSubject(client.id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + config.tokenTtlSeconds)
    .sign(keyOf(config.tokenSecrets[0]!));
  return { access_token: accessToken, expires_in: config.tokenTtlSeconds, token_type: 'Bearer' };
}

/**
 * The client a token was issued to, or why it is refused. Never throws for a bad token: every
 * jose failure (bad signature, another algorithm or `none`, wrong issuer or audience, garbage)
 * is 'invalid'; only a genuine, correctly signed token past its `exp` is 'expired', and one
 * whose client no longer exists (or exists with another secret's generation) 'revoked'. Each
 * secret is tried in turn, so a token signed with a secret that is no longer the first passes.
 */
export async function verifyToken(
  config: Pick<Config, 'tokenSecrets'>,
  token: string,
  { now, clients }: VerifyOptions = {},
): Promise<VerifiedClient | TokenFailure> {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) return failure('invalid');
  for (const secret of config.tokenSecrets) {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keyOf(secret), {
        algorithms: [ALGORITHM],
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        typ: TOKEN_TYPE,
        requiredClaims: ['sub', 'iat', 'exp'],
        ...(now ? { currentDate: now } : {}),
      }));
    } catch (error) {
      if (error instanceof errors.JWSSignatureVerificationFailed) continue;
      // jose checks `exp` only after the signature, so 'expired' is never said of a forgery.
      if (error instanceof errors.JWTExpired) return failure('expired');
      if (error instanceof errors.JOSEError) return failure('invalid');
      throw error;
    }
    const claimed = claimsOf(payload);
    if (claimed === undefined) return failure('invalid');
    const { client, generation } = claimed;
    if (clients && !(await clients.stands(client.clientId, generation))) return failure('revoked');
    return client;
  }
  return failure('invalid');
}

/**
 * The claims we put in, checked again: a correct signature says who wrote them, not what. A
 * token without `gen` was issued by a release before it: no generation to compare.
 */
function claimsOf(
  payload: JWTPayload,
): { client: VerifiedClient; generation: string | undefined } | undefined {
  const { sub, refs, shop, gen } = payload;
  if (typeof sub !== 'string' || sub.length === 0) return undefined;
  if (!Array.isArray(refs) || !refs.every((ref) => typeof ref === 'string')) return undefined;
  if (gen !== undefined && typeof gen !== 'string') return undefined;
  const client: VerifiedClient = { kind: 'client', clientId: sub, refs: refs as string[] };
  if (shop === undefined) return { client, generation: gen };
  if (!Number.isSafeInteger(shop) || (shop as number) <= 0) return undefined;
  return { client: { ...client, shopId: shop as number }, generation: gen };
}

function failure(reason: TokenFailureReason): TokenFailure {
  return { kind: 'invalid', reason };
}
