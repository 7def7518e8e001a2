/**
 * The words every module that documents a route writes its part of the OpenAPI document in:
 * operation and parameter shapes, references to the shared components (components.ts), and
 * the answers several routes give alike. Imports nothing, so that a handler's module can
 * document its route without reaching up to where the document is assembled.
 */

/** A JSON Schema fragment. */
export type JsonSchema = Record<string, unknown>;

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters?: OpenApiParameter[];
  security?: Record<string, string[]>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, OpenApiAnswer>;
  [extension: string]: unknown;
}

export interface OpenApiParameter {
  name: string;
  in: 'query' | 'path' | 'header';
  description: string;
  required?: boolean;
  deprecated?: boolean;
  schema: JsonSchema;
}

/** An OpenAPI response object: one status's answer. */
export type OpenApiAnswer = Record<string, unknown>;

/** Operations by path, then by lower-case method. */
export type OpenApiPaths = Record<string, Record<string, OpenApiOperation>>;

export const JSON_MEDIA_TYPE = 'application/json';

/** The component names of the two error bodies (components.ts, the token endpoint's). */
export const ERROR_SCHEMA = 'Error';
export const TOKEN_ERROR_SCHEMA = 'TokenError';

/** The security schemes' names (components.ts). */
export const BEARER = 'bearerAuth';
export const CLIENT_BASIC = 'clientBasic';
export const OAUTH_CLIENT_CREDENTIALS = 'clientCredentials';

/**
 * A Bearer token is required: one the caller brings (`bearerAuth`), or one obtained from the
 * token endpoint by the caller's tool itself (`clientCredentials`: Swagger UI's Authorize, a
 * generated client's OAuth2 support). Either requirement is enough; the token is the same.
 */
export const REQUIRED_BEARER: Record<string, string[]>[] = [
  { [BEARER]: [] },
  { [OAUTH_CLIENT_CREDENTIALS]: [] },
];

/** A token is optional (it raises the rate limit), but a broken one is refused. */
export const OPTIONAL_BEARER: Record<string, string[]>[] = [{}, ...REQUIRED_BEARER];

export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The named shared headers (components.ts), as an answer's `headers`. */
export function headersOf(names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}

export function jsonAnswer(description: string, schema: JsonSchema) {
  return { description, content: { [JSON_MEDIA_TYPE]: { schema } } };
}

/** An answer with an error body, which always carries the request id. */
export function errorAnswer(
  description: string,
  headers: readonly string[],
  schema = ERROR_SCHEMA,
): OpenApiAnswer {
  return {
    description,
    headers: headersOf(['X-Request-Id', ...headers]),
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) } },
  };
}

export const DEFECT = 'A defect: the body carries the request id, nothing internal.';

/** Why any route that reads the catalogue answers 503. */
export const UNAVAILABLE =
  'The database cannot serve (unreachable, restarting, dropped, or without its tables), or the request took too long (`REQUEST_TIMEOUT_MS`, `STATEMENT_TIMEOUT_MS`): retry after `Retry-After` seconds.';

export const IF_NONE_MATCH: OpenApiParameter = {
  name: 'If-None-Match',
  in: 'header',
  description: 'An ETag of an earlier answer: the same answer again is 304 without a body.',
  schema: { type: 'string' },
};

/** An operation of the service itself (health, metrics, documentation): no token, no limit. */
export function operational(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, OpenApiAnswer>,
): OpenApiOperation {
  return { operationId, tags: ['Operations'], summary, description, security: [], responses };
}
