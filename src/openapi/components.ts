/**
 * The components the routes' documents refer to by name: the service's error body, the shared
 * headers, the security schemes, and the tags' descriptions. The token endpoint's own bodies
 * are documented beside it (src/auth/token-endpoint-openapi.ts).
 */
import { BEARER, CLIENT_BASIC, OAUTH_CLIENT_CREDENTIALS, type JsonSchema } from './vocabulary.ts';

export const ERROR_BODY: JsonSchema = {
  type: 'object',
  description:
    'The one error body of every REST answer that is not a success, except the token endpoint’s own errors (`TokenError`).',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: {
        code: {
          type: 'string',
          pattern: '^http\\.[1-5][0-9][0-9]$',
          description: '`http.` and the status, e.g. `http.400`.',
          examples: ['http.400'],
        },
        message: { type: 'string', description: 'What went wrong, for a person.' },
        details: {
          type: 'array',
          description: 'What was wrong with which parameter (absent when nothing to say).',
          items: {
            type: 'object',
            required: ['parameter', 'reason'],
            properties: {
              parameter: { type: 'string', examples: ['limit'] },
              reason: { type: 'string', examples: ['out_of_range'] },
            },
          },
        },
        request_id: { type: 'string', description: 'The request id (also `X-Request-Id`).' },
      },
    },
  },
};

export const HEADERS: Record<string, Record<string, unknown>> = {
  'X-Request-Id': {
    description:
      'The request id: the caller’s own `X-Request-Id` when it is a sane token (1–128 of `A-Za-z0-9._:-`), else a new one. Errors carry it as `request_id`.',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'A strong validator of the body, for `If-None-Match`.',
    schema: { type: 'string' },
  },
  'Cache-Control': {
    description:
      'Data answers may be cached briefly: `private` on partner search, `public` elsewhere. The token endpoint’s answers, errors too: `no-store`.',
    schema: { type: 'string' },
    examples: {
      public: { value: 'public, max-age=30' },
      private: { value: 'private, max-age=30' },
    },
  },
  Vary: { description: 'The answer depends on `Authorization`.', schema: { type: 'string' } },
  'API-Version': {
    description: 'The version of the partner search API.',
    schema: { type: 'string', examples: ['1.0.0'] },
  },
  Deprecation: {
    description: '`true` when the request used a deprecated parameter.',
    schema: { type: 'string', enum: ['true'] },
  },
  'Retry-After': {
    description: 'Seconds to wait before trying again.',
    schema: { type: 'integer', minimum: 0 },
  },
  'WWW-Authenticate': {
    description:
      'The challenge: `Bearer realm="partner-search"` (with `error="invalid_token"` when a token was refused), or `Basic realm="partner-search"` at the token endpoint.',
    schema: { type: 'string' },
  },
  Pragma: { description: '`no-cache`.', schema: { type: 'string' } },
};

/**
 * The ways to authenticate, all leading back to the token endpoint at `tokenPath`. A route
 * taking a Bearer token names both `bearerAuth` (a token the caller already has) and
 * `clientCredentials` (the OAuth2 flow that gets one: Swagger UI's Authorize asks for the
 * client id and secret and fetches the token itself). `tokenPath` stays relative, resolved
 * against the document's server (`/`), as OpenAPI 3.1 allows.
 */
export function securitySchemes(tokenPath: string): Record<string, Record<string, unknown>> {
  return {
    [OAUTH_CLIENT_CREDENTIALS]: {
      type: 'oauth2',
      description: `OAuth 2.0 client credentials: a client id and secret buy the access token at \`POST ${tokenPath}\` (HTTP Basic or the form body), sent as \`Authorization: Bearer\`. The same token as \`bearerAuth\`'s, fetched by the tool.`,
      flows: { clientCredentials: { tokenUrl: tokenPath, scopes: {} } },
    },
    [BEARER]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: `An access token from \`POST ${tokenPath}\`: a partner client's, carrying the refs it owns, or a shop client's, whose \`shop\` claim names the one shop whose routes it may call.`,
    },
    [CLIENT_BASIC]: {
      type: 'http',
      scheme: 'basic',
      description: `Client id and secret at \`POST ${tokenPath}\` (instead of the form body).`,
    },
  };
}

/** The tags in the order the document lists them. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication:
    'OAuth2 client credentials: a client id and secret buy a short-lived Bearer token. Partners’ and shops’ clients alike; operators add them with `npm run clients`.',
  'Partner search':
    'For partners: requires a Bearer token and a `ref` owned by its client; every offer URL carries the `ref`. Version 1.0.0, in `API-Version`. Unknown names answer 400, never 422.',
  Suggestions: 'Products with a good price now, or matching a text query.',
  Categories: 'Categories by text query, usable as `filter[category]`.',
  Products: 'Products with offers, properties and core properties.',
  'Generic resources': 'Products and categories under /v1 in the generic `meta`/`items` envelope.',
  Feeds:
    'For shops: a shop’s client (`npm run clients -- add-shop`) sends the shop’s offers. Every write is a run, stored, queued and applied in the order received; its answer, and `GET /feeds/runs/{runId}`, tell how it went.',
  Images:
    'Product pictures and shop logos the service draws itself (SVG), so answers show pictures without internet access.',
  GraphQL: 'The graph the REST routes are built on.',
  Operations: 'Health, readiness, metrics and this documentation.',
};
