/**
 * /graphql (yoga.ts) in the OpenAPI document. GraphQL describes itself (the SDL, GraphiQL);
 * this says only what HTTP sees: the request, the statuses, the headers.
 */
import {
  headersOf,
  IF_NONE_MATCH,
  JSON_MEDIA_TYPE,
  jsonAnswer,
  OPTIONAL_BEARER,
  UNAVAILABLE,
  type JsonSchema,
  type OpenApiAnswer,
  type OpenApiPaths,
} from '../openapi/vocabulary.ts';
import { GRAPHQL_PATH } from './yoga.ts';

const GRAPHQL_RESPONSE: JsonSchema = {
  type: 'object',
  properties: {
    data: { type: ['object', 'null'] },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          message: { type: 'string' },
          extensions: { type: 'object', properties: { code: { type: 'string' } } },
        },
      },
    },
  },
};

const OK = {
  ...jsonAnswer(
    'A GraphQL response; errors carry `extensions.code` (BAD_USER_INPUT, NOT_FOUND, UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED, QUERY_TOO_COMPLEX, PERSISTED_QUERY_NOT_FOUND, TRUSTED_DOCUMENT_REQUIRED, SERVICE_UNAVAILABLE, TIMEOUT, INTERNAL_SERVER_ERROR). A response without errors carries an `ETag`.',
    GRAPHQL_RESPONSE,
  ),
  headers: headersOf(['ETag', 'X-Request-Id']),
};

/** The answers of both methods but GET's 200, which can also be GraphiQL's page. */
const ANSWERS_BUT_OK: Record<string, OpenApiAnswer> = {
  '304': {
    description: 'Not modified: the response has the ETag sent in `If-None-Match`.',
    headers: headersOf(['ETag', 'X-Request-Id']),
  },
  '401': {
    ...jsonAnswer(
      'A token was sent but is invalid or expired (the token is optional, a broken one is refused): `UNAUTHENTICATED`, with a `Bearer` challenge saying `invalid_token`.',
      GRAPHQL_RESPONSE,
    ),
    headers: headersOf(['WWW-Authenticate', 'X-Request-Id']),
  },
  '429': jsonAnswer('Rate limited, in GraphQL’s own shape, with `Retry-After`.', GRAPHQL_RESPONSE),
  '503': {
    ...jsonAnswer(
      `${UNAVAILABLE} The errors say \`SERVICE_UNAVAILABLE\` or \`TIMEOUT\`.`,
      GRAPHQL_RESPONSE,
    ),
    headers: headersOf(['Retry-After', 'X-Request-Id']),
  },
};

const GRAPHIQL_OR_OK = {
  ...OK,
  content: { ...OK.content, 'text/html': { schema: { type: 'string' } } },
  // A trusted document's answer, by its id, may be kept like a REST answer.
  headers: headersOf(['ETag', 'Cache-Control', 'X-Request-Id']),
};

const DOCUMENT_ID_DESCRIPTION =
  'A trusted document\'s id instead of `query`: `sha256:<hex>` or the 64 hex digits alone (docs/api.md, "Trusted documents").';
const DOCUMENT_ID = { type: 'string', pattern: '^(sha256:)?[0-9a-f]{64}$' } as const;

const REQUEST_BODY = {
  required: true,
  content: {
    [JSON_MEDIA_TYPE]: {
      schema: {
        type: 'object',
        description:
          '`query`, or a trusted document by `documentId` or `extensions.persistedQuery` (required with TRUSTED_DOCUMENTS_ONLY).',
        properties: {
          query: { type: 'string' },
          documentId: { ...DOCUMENT_ID, description: DOCUMENT_ID_DESCRIPTION },
          variables: { type: ['object', 'null'] },
          operationName: { type: ['string', 'null'] },
          extensions: { type: ['object', 'null'] },
        },
      },
    },
  },
};

export const GRAPHQL_OPENAPI: OpenApiPaths = {
  [GRAPHQL_PATH]: {
    get: {
      operationId: 'graphqlGet',
      tags: ['GraphQL'],
      summary: 'GraphiQL, or a query in the URL',
      description:
        "In a browser (`Accept: text/html`): GraphiQL with example operations, when it is served. Otherwise a GraphQL query in `query`, or a trusted document by `documentId` (and `variables`, `operationName`, `extensions`); a trusted document's answer carries `Cache-Control`.",
      security: OPTIONAL_BEARER,
      responses: { '200': GRAPHIQL_OR_OK, ...ANSWERS_BUT_OK },
      parameters: [
        IF_NONE_MATCH,
        {
          name: 'documentId',
          in: 'query',
          required: false,
          description: DOCUMENT_ID_DESCRIPTION,
          schema: DOCUMENT_ID,
        },
      ],
    },
    post: {
      operationId: 'graphqlPost',
      tags: ['GraphQL'],
      summary: 'Run a GraphQL operation',
      description:
        'The whole catalogue as a graph; the REST routes run the same schema in-process. A token is optional (it raises the rate limit).',
      security: OPTIONAL_BEARER,
      responses: { '200': OK, ...ANSWERS_BUT_OK },
      parameters: [IF_NONE_MATCH],
      requestBody: REQUEST_BODY,
    },
  },
};
