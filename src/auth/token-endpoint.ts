/**
 * `POST /partner-search/token`: the OAuth2 client credentials grant (RFC 6749 section 4.4),
 * for partners' and shops' clients alike. The client authenticates with HTTP Basic
 * or with client_id and client_secret in the form body, never both (section 2.3).
 *
 * Errors are RFC 6749 section 5.2 bodies, `{"error": "invalid_client", "error_description",
 * "request_id"}`, not the service's own error body (docs/api.md, "Errors"): OAuth 2.0 client
 * libraries read `error` as a string and would not understand ours. `request_id` is an
 * extension member, as section 5.2 allows. Every error is 400 (section 5.2's default) except:
 * failed client authentication through the Authorization header is 401 with a Basic challenge
 * (section 5.2 requires it there; a client that sent its credentials in the body gets 400, for
 * a 401 must carry a challenge, and client libraries report a challenge instead of the body),
 * what is wrong with the HTTP request itself keeps its HTTP status: 405, 413 for a body over
 * 8 KiB, 415 for anything but a form body; and a limit reached is 429 with Retry-After.
 *
 * The secret is never logged, echoed or put in a message, and an unknown client gets exactly
 * the answer a wrong secret gets, after the same scrypt work, so neither the body nor the
 * timing tells which client ids exist.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { CLIENT_ID_PATTERN, loggableClientId } from './client-id.ts';
import { clientGeneration, hashClientSecret, verifyClientSecret } from './client-secrets.ts';
import type { TokenAttemptLimiter } from './token-attempts.ts';
import { issueToken, type ClockOptions, type TokenConfig, type TokenSubject } from './tokens.ts';
import { findApiClientWithRefs } from '../db/repositories/api-clients.ts';
import type { Database } from '../db/types.ts';
import { noteTokenRequest } from '../request-log.ts';
import { jsonResponse } from '../responses.ts';

export const TOKEN_PATH = '/partner-search/token';

/** A client credentials request is a few hundred bytes; nothing legitimate comes near this. */
export const MAX_TOKEN_REQUEST_BYTES = 8 * 1024;

export const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
const BASIC_REALM = 'partner-search';
const BASIC_CHALLENGE = `Basic realm="${BASIC_REALM}"`;
export const CLIENT_CREDENTIALS = 'client_credentials';
/** RFC 6749 section 5.1: no token response (nor, here, an error) may be cached. */
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface TokenEndpointDependencies extends ClockOptions {
  db: Kysely<Database>;
  config: TokenConfig;
  requestId: string;
  /** The delays after failed client authentication; without it, none. */
  attempts?: TokenAttemptLimiter;
  /** The address the failure delays count (src/proxy-trust.ts). */
  clientIp?: string | undefined;
}

/** How the client authenticated, by the names OAuth 2.0 registers for the two methods. */
type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post';

interface Credentials {
  clientId: string;
  secret: string;
  method: ClientAuthMethod;
}

/** The error codes of RFC 6749 section 5.2 this endpoint answers. */
export const TOKEN_ERROR_CODES = [
  'invalid_request',
  'invalid_client',
  'unsupported_grant_type',
  // Section 5.2 has no code for a rate limit: this is RFC 6749's "retry later" (section
  // 4.1.2.1), said with every 429, whether a request rate or failed attempts tripped it.
  'temporarily_unavailable',
] as const;
export type TokenErrorCode = (typeof TOKEN_ERROR_CODES)[number];

/** RFC 6749 section 5.2's body, with the request id as an extension member. */
export interface TokenErrorBody {
  error: TokenErrorCode;
  error_description: string;
  request_id: string;
}

/** The request is not a token request we can act on: answer this error and stop. */
class Refusal {
  constructor(
    readonly error: TokenErrorCode,
    /** Printable ASCII without `"` and `\` (RFC 6749 section 5.2). */
    readonly description: string,
    readonly status = 400,
    readonly headers: Record<string, string> = {},
  ) {}
}

export async function handleTokenRequest(
  request: Request,
  deps: TokenEndpointDependencies,
): Promise<Response> {
  try {
    requirePost(request);
    const form = await readForm(request);
    requireClientCredentialsGrant(form);
    const credentials = credentialsOf(request, form);
    noteTokenRequest(loggableClientId(credentials.clientId));
    const client = await authenticateWithinLimits(deps, credentials);
    if (!client) clientAuthenticationFailed(credentials.method);
    const token = await issueToken(deps.config, client, deps);
    return jsonResponse(200, token, NO_STORE);
  } catch (error) {
    if (error instanceof Refusal) return tokenErrorResponse(error, deps.requestId);
    throw error;
  }
}

function tokenErrorResponse(refusal: Refusal, requestId: string): Response {
  const body: TokenErrorBody = {
    error: refusal.error,
    error_description: refusal.description,
    request_id: requestId,
  };
  return jsonResponse(refusal.status, body, { ...NO_STORE, ...refusal.headers });
}

function invalidRequest(description: string, status = 400, headers?: Record<string, string>) {
  return new Refusal('invalid_request', description, status, headers);
}

/** 429 in the endpoint's own error shape, for its request rate limit and its delays. */
export function tokenRateLimitedResponse(retryAfterSeconds: number, requestId: string): Response {
  return tokenErrorResponse(
    tooManyRequests(`rate limit exceeded: retry after ${retryAfterSeconds} s`, retryAfterSeconds),
    requestId,
  );
}

function tooManyRequests(description: string, retryAfterSeconds: number): Refusal {
  return new Refusal('temporarily_unavailable', description, 429, {
    'retry-after': String(retryAfterSeconds),
  });
}

// --- the request ---------------------------------------------------------------------------

function requirePost(request: Request): void {
  if (request.method !== 'POST') {
    throw invalidRequest(`${TOKEN_PATH} takes POST only`, 405, { allow: 'POST' });
  }
}

async function readForm(request: Request): Promise<URLSearchParams> {
  if (mediaTypeOf(request) !== FORM_CONTENT_TYPE) {
    throw invalidRequest(`the body must be ${FORM_CONTENT_TYPE}`, 415);
  }
  const body = await readBodyWithin(request, MAX_TOKEN_REQUEST_BYTES);
  if (body === undefined) {
    throw invalidRequest(`the body must not exceed ${MAX_TOKEN_REQUEST_BYTES} bytes`, 413);
  }
  const form = new URLSearchParams(body);
  // RFC 6749 section 3.2: no parameter may appear twice; which one would we believe?
  for (const name of ['grant_type', 'client_id', 'client_secret']) {
    if (form.getAll(name).length > 1) throw invalidRequest(`${name} must appear once`);
  }
  return form;
}

function mediaTypeOf(request: Request): string | undefined {
  return request.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase();
}

/**
 * The body as text, or undefined when it is larger than `limit` bytes: a declared length is
 * refused before reading, a chunked body as soon as it passes the limit, so a client can never
 * make us buffer more than that.
 */
async function readBodyWithin(request: Request, limit: number): Promise<string | undefined> {
  const declared = Number(request.headers.get('content-length') ?? 0);
  if (declared > limit) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** An empty parameter counts as absent (RFC 6749 section 3.1). */
function requireClientCredentialsGrant(form: URLSearchParams): void {
  const grantType = form.get('grant_type');
  if (!grantType) throw invalidRequest(`grant_type is required: ${CLIENT_CREDENTIALS}`);
  if (grantType !== CLIENT_CREDENTIALS) {
    throw new Refusal('unsupported_grant_type', `grant_type must be ${CLIENT_CREDENTIALS}`);
  }
}

// --- the credentials --------------------------------------------------------------------

/**
 * From the Authorization header or the body, exactly one of them (RFC 6749 section 2.3: two
 * methods at once are invalid_request). No client authentication, or a client_id without a
 * secret (public clients have none here), is invalid_client (section 5.2); so is a header
 * that is not usable Basic credentials.
 */
function credentialsOf(request: Request, form: URLSearchParams): Credentials {
  const authorization = request.headers.get('authorization');
  const inBody = form.has('client_id') || form.has('client_secret');
  if (authorization !== null && inBody) {
    throw invalidRequest(
      'send the client credentials either in HTTP Basic or in the body, not both',
    );
  }
  if (authorization !== null) return basicCredentials(authorization);

  const clientId = form.get('client_id');
  const secret = form.get('client_secret');
  if (!clientId) {
    throw new Refusal('invalid_client', 'client_id and client_secret are required (or HTTP Basic)');
  }
  if (!secret) throw new Refusal('invalid_client', 'client_secret is required');
  return { clientId, secret, method: 'client_secret_post' };
}

/** `Basic base64(urlencode(id) ":" urlencode(secret))`, RFC 7617 with RFC 6749 section 2.3.1. */
function basicCredentials(authorization: string): Credentials {
  const parsed = parseBasic(authorization);
  if (!parsed) {
    throw basicAuthenticationRefused(
      'the Authorization header must be HTTP Basic client credentials',
    );
  }
  return { ...parsed, method: 'client_secret_basic' };
}

function parseBasic(authorization: string): Omit<Credentials, 'method'> | undefined {
  const [scheme, encoded, ...rest] = authorization.trim().split(/\s+/);
  if (scheme?.toLowerCase() !== 'basic' || !encoded || rest.length > 0) return undefined;
  if (!BASE64.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  // The id cannot contain a colon (RFC 7617 section 2); the secret may.
  const colon = decoded.indexOf(':');
  if (colon < 1) return undefined;
  const clientId = formDecode(decoded.slice(0, colon));
  const secret = formDecode(decoded.slice(colon + 1));
  if (!clientId || secret === undefined) return undefined;
  return { clientId, secret };
}

/** application/x-www-form-urlencoded decoding of one value; undefined for a broken escape. */
function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

// --- authentication ---------------------------------------------------------------------

let decoyHash: Promise<string> | undefined;

/** A hash no secret matches, verified against for unknown clients so they take as long. */
function decoy(): Promise<string> {
  decoyHash ??= hashClientSecret(randomBytes(32).toString('base64'));
  return decoyHash;
}

/**
 * The client, its refs and its shop when the secret is right, else undefined, whatever was
 * wrong. A revoked client no longer exists, so it is refused like an unknown one.
 */
async function authenticateClient(
  db: Kysely<Database>,
  { clientId, secret }: Credentials,
): Promise<TokenSubject | undefined> {
  const client = CLIENT_ID_PATTERN.test(clientId)
    ? await findApiClientWithRefs(db, clientId)
    : undefined;
  const matches = await verifyClientSecret(secret, client?.secretHash ?? (await decoy()));
  if (!client || !matches) return undefined;
  const { id, refs, shopId, secretHash } = client;
  return { id, refs, shopId, generation: clientGeneration(secretHash) };
}

/**
 * authenticateClient within the failure delays. An address held back (alone or with this
 * client id) is refused before any database or scrypt work, known id or unknown, right secret
 * or not: nothing in the answer or its timing says which.
 */
async function authenticateWithinLimits(
  { db, attempts, clientIp }: TokenEndpointDependencies,
  credentials: Credentials,
): Promise<TokenSubject | undefined> {
  const verify = () => authenticateClient(db, credentials);
  if (!attempts) return verify();
  const outcome = await attempts.attempt(credentials.clientId, clientIp, verify);
  if (!outcome.throttled) return outcome.result;
  const { retryAfterSeconds } = outcome;
  throw tooManyRequests(
    `too many failed attempts: retry after ${retryAfterSeconds} s`,
    retryAfterSeconds,
  );
}

/** The same answer for an unknown client and a wrong secret, by the method the client used. */
function clientAuthenticationFailed(method: ClientAuthMethod): never {
  const description = 'client authentication failed';
  throw method === 'client_secret_basic'
    ? basicAuthenticationRefused(description)
    : new Refusal('invalid_client', description);
}

/** Through the Authorization header: 401 with the challenge RFC 6749 section 5.2 requires. */
function basicAuthenticationRefused(description: string): Refusal {
  return new Refusal('invalid_client', description, 401, { 'www-authenticate': BASIC_CHALLENGE });
}
