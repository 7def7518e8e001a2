/**
 * The token endpoint (token-endpoint.ts) in the OpenAPI document: its operation and its own
 * bodies, the token and RFC 6749's error, which no other route answers with.
 */
import {
  CLIENT_BASIC,
  DEFECT,
  errorAnswer,
  headersOf,
  JSON_MEDIA_TYPE,
  schemaRef,
  TOKEN_ERROR_SCHEMA,
  UNAVAILABLE,
  type JsonSchema,
  type OpenApiPaths,
} from '../openapi/vocabulary.ts';
import {
  CLIENT_CREDENTIALS,
  FORM_CONTENT_TYPE,
  MAX_TOKEN_REQUEST_BYTES,
  TOKEN_ERROR_CODES,
  TOKEN_PATH,
} from './token-endpoint.ts';

const ACCESS_TOKEN_SCHEMA = 'AccessToken';

/** The components the operation refers to. */
export const TOKEN_ENDPOINT_SCHEMAS: Record<string, JsonSchema> = {
  [TOKEN_ERROR_SCHEMA]: {
    type: 'object',
    description:
      'An OAuth 2.0 error (RFC 6749 section 5.2) of the token endpoint, with the request id as an extension member.',
    required: ['error', 'error_description', 'request_id'],
    properties: {
      error: { type: 'string', enum: [...TOKEN_ERROR_CODES] },
      error_description: {
        type: 'string',
        description: 'What went wrong, for a person (printable ASCII without `"` and `\\`).',
        pattern: '^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]+$',
      },
      request_id: { type: 'string', description: 'The request id (also `X-Request-Id`).' },
    },
  },
  [ACCESS_TOKEN_SCHEMA]: {
    type: 'object',
    required: ['access_token', 'expires_in', 'token_type'],
    properties: {
      access_token: { type: 'string', description: 'A signed, short-lived token.' },
      expires_in: { type: 'integer', minimum: 1, description: 'Seconds until it expires.' },
      token_type: { type: 'string', enum: ['Bearer'] },
    },
  },
};

/** An error of the token endpoint: RFC 6749's body, never cached. */
function tokenErrorAnswer(description: string, headers: readonly string[] = []) {
  return errorAnswer(description, ['Cache-Control', 'Pragma', ...headers], TOKEN_ERROR_SCHEMA);
}

const REQUEST_BODY = {
  required: true,
  description: `A form body of at most ${MAX_TOKEN_REQUEST_BYTES} bytes; no parameter may appear twice.`,
  content: {
    [FORM_CONTENT_TYPE]: {
      schema: {
        type: 'object',
        required: ['grant_type'],
        properties: {
          grant_type: { type: 'string', enum: [CLIENT_CREDENTIALS] },
          client_id: {
            type: 'string',
            description: 'The client id; required unless HTTP Basic is used.',
          },
          client_secret: {
            type: 'string',
            format: 'password',
            description: 'The client secret; required unless HTTP Basic is used.',
          },
        },
      },
    },
  },
};

export const TOKEN_ENDPOINT_OPENAPI: OpenApiPaths = {
  [TOKEN_PATH]: {
    post: {
      operationId: 'issueToken',
      tags: ['Authentication'],
      summary: 'Get an access token (OAuth2 client credentials)',
      description:
        'The client authenticates with `client_id` and `client_secret` in the form body, or with HTTP Basic (`base64(urlencode(id) ":" urlencode(secret))`), never both. The token is short-lived and goes in `Authorization: Bearer …`. Errors are OAuth 2.0 errors (RFC 6749 section 5.2, the `TokenError` schema), not the `Error` body of the other routes, so that OAuth 2.0 client libraries understand them; only server failures (500, 503) answer with `Error`.',
      security: [{}, { [CLIENT_BASIC]: [] }],
      requestBody: REQUEST_BODY,
      responses: {
        '200': {
          description: 'The access token.',
          headers: headersOf(['X-Request-Id', 'Cache-Control', 'Pragma']),
          content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(ACCESS_TOKEN_SCHEMA) } },
        },
        '400': tokenErrorAnswer(
          '`invalid_request`: `grant_type` missing, a parameter repeated, or credentials both in HTTP Basic and the body. `unsupported_grant_type`: `grant_type` is not `client_credentials`. `invalid_client`: client authentication in the form body failed (an unknown client and a wrong secret answer the same), or no client authentication at all.',
        ),
        '401': tokenErrorAnswer(
          '`invalid_client` for a client that used the Authorization header: HTTP Basic client authentication failed (an unknown client and a wrong secret answer the same), or the header is not HTTP Basic client credentials. With a `Basic` challenge.',
          ['WWW-Authenticate'],
        ),
        '413': tokenErrorAnswer(
          `\`invalid_request\`: the body is over ${MAX_TOKEN_REQUEST_BYTES} bytes.`,
        ),
        '415': tokenErrorAnswer(`\`invalid_request\`: the body is not ${FORM_CONTENT_TYPE}.`),
        '429': tokenErrorAnswer(
          '`temporarily_unavailable`: the endpoint’s own request rate limit, or too many failed client authentications from this IP (for this client id or any): a delay that grows with each further failure. Retry after `Retry-After` seconds.',
          ['Retry-After'],
        ),
        '500': errorAnswer(DEFECT, []),
        '503': errorAnswer(UNAVAILABLE, ['Retry-After']),
      },
    },
  },
};
