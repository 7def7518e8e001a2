/**
 * Who is calling: anonymous, a client with a valid bearer token, or a caller whose token was
 * refused; and what a route's declared access lets each of them do (docs/api.md,
 * "Authentication"): `partner` routes require a client owning the requested ref, `shop` routes
 * a client bound to the shop the path names, `public` routes accept a token without requiring
 * one.
 */
import type { Config } from '../config.ts';
import { errorResponse, graphqlErrorResponse } from '../responses.ts';
import { TOKEN_PATH } from './token-endpoint.ts';
import { verifyToken, type VerifiedClient, type VerifyOptions } from './tokens.ts';

export const PARTNER_REALM = 'partner-search';

/**
 * Who may call a route: anyone, a refused token aside (`public`), a partner's client owning the
 * `ref` asked for, or the client of the shop its `shopId` path parameter names.
 */
export type Access = 'public' | 'partner' | 'shop';

/** What a request names that its route's access is checked against. */
export interface AccessTarget {
  /** The `ref` query parameter; absent when not given or empty. */
  ref?: string | undefined;
  /** The `shopId` path parameter, as written in the path. */
  shopId?: string | undefined;
}

export type InvalidTokenReason = 'malformed' | 'invalid' | 'expired' | 'revoked';

export type Caller =
  { kind: 'anonymous' } | VerifiedClient | { kind: 'invalid'; reason: InvalidTokenReason };

/** RFC 6750 section 2.1: the characters a bearer token may consist of. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

const ANONYMOUS: Caller = { kind: 'anonymous' };

/**
 * The caller of a request, from its `Authorization: Bearer …` header. Another scheme (Basic
 * added by a proxy, say) counts as no token at all: RFC 6750 section 3.1 treats an unsupported
 * authentication method like none, so it neither breaks public routes nor earns an error code.
 */
export function authenticate(
  request: Request,
  config: Pick<Config, 'tokenSecrets'>,
  options: VerifyOptions = {},
): Promise<Caller> {
  return authenticateAuthorization(request.headers.get('authorization'), config, options);
}

/** The same verdict from an Authorization value carried elsewhere (a graphql-ws connection's). */
export async function authenticateAuthorization(
  authorization: string | null | undefined,
  config: Pick<Config, 'tokenSecrets'>,
  options: VerifyOptions = {},
): Promise<Caller> {
  const header = authorization?.trim();
  if (!header) return ANONYMOUS;
  const [scheme, ...credentials] = header.split(/\s+/);
  if (scheme?.toLowerCase() !== 'bearer') return ANONYMOUS;
  // Two Authorization headers arrive joined by ", ", which fails here too.
  const [token] = credentials;
  if (credentials.length !== 1 || token === undefined || !B64TOKEN.test(token)) {
    return { kind: 'invalid', reason: 'malformed' };
  }
  return verifyToken(config, token, options);
}

/** The refusal a route of this access gives the caller; null when the caller may go on. */
export function refuseAccess(
  access: Access,
  caller: Caller,
  target: AccessTarget,
  requestId: string,
): Response | null {
  switch (access) {
    case 'partner':
      return requirePartner(caller, target.ref, requestId);
    case 'shop':
      return requireShop(caller, target.shopId, requestId);
    case 'public':
      return rejectInvalidToken(caller, requestId);
  }
}

/**
 * Partner search's gate: null when the caller is a client owning `ref`, else the response to
 * send. Call it before validating the other parameters, so that an unauthenticated caller
 * learns that first. An absent ref passes here: the parameter validation answers 400 for it.
 */
export function requirePartner(
  caller: Caller,
  ref: string | undefined,
  requestId: string,
): Response | null {
  if (caller.kind !== 'client') {
    return unauthenticated(caller, 'partner search requires', requestId);
  }
  if (ref === undefined || caller.refs.includes(ref)) return null;
  return errorResponse(403, `ref "${ref}" does not belong to this client`, requestId, {
    details: [{ parameter: 'ref', reason: 'not_owned' }],
  });
}

/**
 * A shop's routes' gate: null when the caller is the client of the shop `shopId` names, else
 * the response to send. A partner's client, and another shop's, are refused 403; so is a path
 * whose shop id is not written as the shop's id is (`012` for 12), rather than guessed at.
 */
export function requireShop(
  caller: Caller,
  shopId: string | undefined,
  requestId: string,
): Response | null {
  if (caller.kind !== 'client') return unauthenticated(caller, 'shop feeds require', requestId);
  if (caller.shopId === undefined) {
    return errorResponse(403, 'this client is not a shop’s client', requestId, {
      details: [{ parameter: 'shopId', reason: 'not_a_shop_client' }],
    });
  }
  if (shopId === String(caller.shopId)) return null;
  return errorResponse(403, `shop ${shopId ?? '(none)'} is not this client’s shop`, requestId, {
    details: [{ parameter: 'shopId', reason: 'not_owned' }],
  });
}

/**
 * The 401 of a route that needs a client, to a caller without a valid token: `needs` says
 * what needs one ("partner search requires").
 */
function unauthenticated(
  caller: Exclude<Caller, VerifiedClient>,
  needs: string,
  requestId: string,
): Response {
  if (caller.kind === 'invalid') return invalidTokenResponse(caller.reason, requestId);
  return unauthorized(
    `${needs} an access token from POST ${TOKEN_PATH}`,
    requestId,
    bearerChallenge(),
  );
}

/**
 * For routes where a token is optional: a token that was sent but refused is answered 401
 * rather than silently ignored, so a partner learns its token expired before it meets the
 * anonymous rate limit. Null for anonymous callers and valid clients.
 */
export function rejectInvalidToken(caller: Caller, requestId: string): Response | null {
  return caller.kind === 'invalid' ? invalidTokenResponse(caller.reason, requestId) : null;
}

/**
 * The same rule on /graphql, before anything of the request runs: the same 401 and challenge,
 * with the errors in GraphQL's own shape.
 */
export function rejectInvalidGraphQLToken(caller: Caller): Response | null {
  if (caller.kind !== 'invalid') return null;
  const message = invalidTokenMessage(caller.reason);
  return graphqlErrorResponse('UNAUTHENTICATED', message, {
    'www-authenticate': bearerChallenge('invalid_token', message),
  });
}

const INVALID_TOKEN_MESSAGES: Record<InvalidTokenReason, string> = {
  malformed: 'the Authorization header must be "Bearer <access token>"',
  invalid: 'the access token is invalid',
  expired: 'the access token has expired',
  revoked: 'the access token has been revoked',
};

/** What a refused token is told, on every route and transport. */
export function invalidTokenMessage(reason: InvalidTokenReason): string {
  return INVALID_TOKEN_MESSAGES[reason];
}

function invalidTokenResponse(reason: InvalidTokenReason, requestId: string): Response {
  const message = invalidTokenMessage(reason);
  return unauthorized(message, requestId, bearerChallenge('invalid_token', message));
}

/** RFC 6750 section 3: the error code only when a token was actually presented. */
export function bearerChallenge(error?: 'invalid_token', description?: string): string {
  const parameters = [`realm="${PARTNER_REALM}"`];
  if (error) parameters.push(`error="${error}"`);
  if (description) parameters.push(`error_description="${description.replaceAll('"', "'")}"`);
  return `Bearer ${parameters.join(', ')}`;
}

function unauthorized(message: string, requestId: string, challenge: string): Response {
  return errorResponse(401, message, requestId, { headers: { 'www-authenticate': challenge } });
}
