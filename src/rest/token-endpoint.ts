/**
 * `POST /partner-search/token`: the OAuth2 client credentials grant (RFC 6749 section 4.4),
 * as partners already use it (decisions section 2). The client authenticates with HTTP Basic
 * or with client_id and client_secret in the form body, never both (section 2.3).
 *
 * Errors carry the service's one error body (decisions section 3) rather than RFC 6749's
 * `{"error": "invalid_client"}`: a malformed request is 400, failed client authentication is
 * 401 (always with a Basic challenge, which RFC 9110 requires of every 401), a body over
 * 8 KiB is 413 and anything but a form body is 415.
 *
 * The secret is never logged, echoed or put in a message, and an unknown client gets exactly
 * the answer a wrong secret gets, after the same scrypt work, so neither the body nor the
 * timing tells which client ids exist.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hashClientSecret, verifyClientSecret } from '../auth/client-secrets.ts';
import { issueToken, type ClockOptions, type TokenConfig } from '../auth/tokens.ts';
import { findApiClientWithRefs } from '../db/repositories/api-clients.ts';
import type { Database } from '../db/types.ts';
import type { ErrorDetail } from '../errors.ts';
import { errorResponse, jsonResponse } from './http.ts';

export const TOKEN_PATH = '/partner-search/token';

/** A client credentials request is a few hundred bytes; nothing legitimate comes near this. */
export const MAX_TOKEN_REQUEST_BYTES = 8 * 1024;

const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';
const BASIC_REALM = 'partner-search';
const BASIC_CHALLENGE = `Basic realm="${BASIC_REALM}"`;
const CLIENT_CREDENTIALS = 'client_credentials';

/** The ids api_clients accepts: anything else is unknown without asking the database. */
const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface TokenEndpointDependencies extends ClockOptions {
  db: Kysely<Database>;
  config: TokenConfig;
  requestId: string;
}

interface Credentials {
  clientId: string;
  secret: string;
}

/** The request is not a token request we can act on: answer this and stop. */
class Refusal {
  constructor(readonly response: Response) {}
}

export async function handleTokenRequest(
  request: Request,
  deps: TokenEndpointDependencies,
): Promise<Response> {
  try {
    requirePost(request, deps.requestId);
    const form = await readForm(request, deps.requestId);
    requireClientCredentialsGrant(form, deps.requestId);
    const credentials = credentialsOf(request, form, deps.requestId);
    const client = await authenticateClient(deps.db, credentials);
    if (!client) return clientAuthenticationFailed(deps.requestId);
    const token = await issueToken(deps.config, client, deps);
    // RFC 6749 section 5.1: a token response must never be cached.
    return jsonResponse(200, token, { 'cache-control': 'no-store', pragma: 'no-cache' });
  } catch (error) {
    if (error instanceof Refusal) return error.response;
    throw error;
  }
}

function refuse(
  status: number,
  message: string,
  requestId: string,
  options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
): never {
  throw new Refusal(errorResponse(status, message, requestId, options));
}

function badParameter(
  message: string,
  parameter: string,
  reason: string,
  requestId: string,
): never {
  return refuse(400, message, requestId, { details: [{ parameter, reason }] });
}

// --- the request ---------------------------------------------------------------------------

function requirePost(request: Request, requestId: string): void {
  if (request.method !== 'POST') {
    refuse(405, `${TOKEN_PATH} takes POST only`, requestId, { headers: { allow: 'POST' } });
  }
}

async function readForm(request: Request, requestId: string): Promise<URLSearchParams> {
  if (mediaTypeOf(request) !== FORM_CONTENT_TYPE) {
    refuse(415, `the body must be ${FORM_CONTENT_TYPE}`, requestId);
  }
  const body = await readBodyWithin(request, MAX_TOKEN_REQUEST_BYTES);
  if (body === undefined) {
    refuse(413, `the body must not exceed ${MAX_TOKEN_REQUEST_BYTES} bytes`, requestId);
  }
  const form = new URLSearchParams(body);
  // RFC 6749 section 3.2: no parameter may appear twice; which one would we believe?
  for (const name of ['grant_type', 'client_id', 'client_secret']) {
    if (form.getAll(name).length > 1) {
      badParameter(`${name} must appear once`, name, 'repeated', requestId);
    }
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

function requireClientCredentialsGrant(form: URLSearchParams, requestId: string): void {
  const grantType = form.get('grant_type');
  if (!grantType) {
    badParameter(
      `grant_type is required: ${CLIENT_CREDENTIALS}`,
      'grant_type',
      'missing',
      requestId,
    );
  }
  if (grantType !== CLIENT_CREDENTIALS) {
    badParameter(
      `grant_type must be ${CLIENT_CREDENTIALS}`,
      'grant_type',
      'unsupported_grant_type',
      requestId,
    );
  }
}

// --- the credentials --------------------------------------------------------------------

/**
 * From the Authorization header or the body, exactly one of them (RFC 6749 section 2.3).
 * Missing body credentials are a malformed request (400); a header that is not usable Basic
 * credentials is a failed authentication attempt (401 with a challenge, section 5.2).
 */
function credentialsOf(request: Request, form: URLSearchParams, requestId: string): Credentials {
  const authorization = request.headers.get('authorization');
  const inBody = form.has('client_id') || form.has('client_secret');
  if (authorization !== null && inBody) {
    refuse(
      400,
      'send the client credentials either in HTTP Basic or in the body, not both',
      requestId,
      {
        details: [{ parameter: 'client_id', reason: 'ambiguous' }],
      },
    );
  }
  if (authorization !== null) return basicCredentials(authorization, requestId);

  const clientId = form.get('client_id');
  const secret = form.get('client_secret');
  if (!clientId) {
    badParameter(
      'client_id is required (or HTTP Basic credentials)',
      'client_id',
      'missing',
      requestId,
    );
  }
  if (!secret) {
    badParameter('client_secret is required', 'client_secret', 'missing', requestId);
  }
  return { clientId, secret };
}

/** `Basic base64(urlencode(id) ":" urlencode(secret))`, RFC 7617 with RFC 6749 section 2.3.1. */
function basicCredentials(authorization: string, requestId: string): Credentials {
  const parsed = parseBasic(authorization);
  if (!parsed) {
    refuse(401, 'the Authorization header must be HTTP Basic client credentials', requestId, {
      headers: { 'www-authenticate': BASIC_CHALLENGE },
    });
  }
  return parsed;
}

function parseBasic(authorization: string): Credentials | undefined {
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

/** The client and its refs when the secret is right, else undefined, whatever was wrong. */
async function authenticateClient(
  db: Kysely<Database>,
  { clientId, secret }: Credentials,
): Promise<{ id: string; refs: string[] } | undefined> {
  const client = CLIENT_ID_PATTERN.test(clientId)
    ? await findApiClientWithRefs(db, clientId)
    : undefined;
  const matches = await verifyClientSecret(secret, client?.secretHash ?? (await decoy()));
  return client && matches ? { id: client.id, refs: client.refs } : undefined;
}

function clientAuthenticationFailed(requestId: string): Response {
  return errorResponse(401, 'client authentication failed', requestId, {
    headers: { 'www-authenticate': BASIC_CHALLENGE },
  });
}
