/**
 * The OpenAPI 3.1 document of the REST layer, generated from the same route declarations the
 * engine serves (src/rest/routes): paths, parameters, item schemas from the resources, the
 * envelopes from each route's `responseSchema`, and the error answers the engine, the access
 * checks and the app give. Nothing here is written twice: a route changes, its document does.
 *
 * Component names: every resource reached from a route becomes `components.schemas[name]`
 * when all the resources declared under that name have the same shape. Some names are shared
 * by different shapes (`Money` with and without `includingShipping`; `Property` and
 * `CoreProperty`, whose trees are declared level by level, each level one shallower): those
 * are inlined where they are used, with their name as `title`, rather than given a component
 * that would describe only one of them.
 */
import packageJson from '../../package.json' with { type: 'json' };
import { MAX_TOKEN_REQUEST_BYTES, TOKEN_ERROR_CODES, TOKEN_PATH } from './token-endpoint.ts';
import type { ParamSchema, ParamSpec } from './params.ts';
import type { JsonSchema, Resource, RestField } from './resources.ts';
import type { RestRoute } from './route.ts';

export interface OpenApiOptions {
  /** `info.version`: the service's version (package.json). */
  version: string;
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, Record<string, unknown>>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
};

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  parameters?: OpenApiParameter[];
  security?: Record<string, string[]>[];
  requestBody?: Record<string, unknown>;
  responses: Record<string, Record<string, unknown>>;
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

/** The version in package.json (imported, so the production bundle carries it). */
export function packageVersion(): string {
  return packageJson.version;
}

const JSON_MEDIA_TYPE = 'application/json';
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
const ERROR_SCHEMA = 'Error';
const TOKEN_ERROR_SCHEMA = 'TokenError';
const BEARER = 'bearerAuth';
const CLIENT_BASIC = 'clientBasic';

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` });
const schemaRef = (name: string) => ref('schemas', name);
const headerRef = (name: string) => ref('headers', name);

// ---------------------------------------------------------------------------------------
// Parameters

/** A regular expression as a JSON Schema `pattern` (ECMA-262, the same dialect). */
function patternOf(pattern: RegExp): string {
  if (pattern.flags.replace('u', '') !== '') {
    throw new Error(`pattern /${pattern.source}/${pattern.flags}: flags cannot be documented`);
  }
  return pattern.source;
}

/** The JSON Schema of a parameter's declared contract (every parameter refuses ''). */
export function paramSchema(schema: ParamSchema): JsonSchema {
  switch (schema.type) {
    case 'string':
      return {
        type: 'string',
        minLength: 1,
        ...(schema.maxLength === undefined ? {} : { maxLength: schema.maxLength }),
        ...(schema.pattern ? { pattern: patternOf(schema.pattern) } : {}),
        ...(schema.maxTerms === undefined
          ? {}
          : { description: `At most ${schema.maxTerms} space-separated terms.` }),
      };
    case 'integer':
      return {
        type: 'integer',
        minimum: schema.minimum,
        maximum: schema.maximum,
        ...(schema.default === undefined ? {} : { default: schema.default }),
      };
    case 'number':
      return { type: 'number', minimum: schema.minimum, maximum: schema.maximum };
    case 'enum':
      return { type: 'string', enum: [...schema.values] };
    case 'idList':
      return {
        type: 'string',
        pattern: patternOf(schema.pattern),
        description: `Up to ${schema.maxItems} comma-separated unsigned decimal integers.`,
      };
  }
}

export function parameterOf(spec: ParamSpec): OpenApiParameter {
  if (spec.in === 'path' && !spec.required) {
    throw new Error(`path parameter ${spec.name} must be required`);
  }
  let description = spec.description;
  if (spec.replacedBy !== undefined && !description.includes(spec.replacedBy)) {
    description += ` Deprecated: use ${spec.replacedBy}.`;
  }
  return {
    name: spec.name,
    in: spec.in,
    description,
    ...(spec.required ? { required: true } : {}),
    ...(spec.replacedBy === undefined ? {} : { deprecated: true }),
    schema: paramSchema(spec.schema),
  };
}

const IF_NONE_MATCH: OpenApiParameter = {
  name: 'If-None-Match',
  in: 'header',
  description: 'An ETag of an earlier answer: the same answer again is 304 without a body.',
  schema: { type: 'string' },
};

// ---------------------------------------------------------------------------------------
// Item schemas from resources

const ON_REQUEST = 'Returned only when named in `fields`.';

function withDescription(schema: JsonSchema, description: string): JsonSchema {
  return description === '' ? schema : { ...schema, description };
}

function fieldDescription(field: RestField): string {
  return field.standard ? field.description : `${field.description} ${ON_REQUEST}`.trim();
}

function subResource(field: RestField): Resource | undefined {
  return field.kind === 'object' ? field.fields : field.kind === 'list' ? field.item : undefined;
}

/**
 * Builds the schemas of resources, registering a component for every resource name that
 * names one shape only (see the file comment).
 */
class ItemSchemas {
  readonly components: Record<string, JsonSchema> = {};
  private readonly shapesByName = new Map<string, Set<string>>();

  constructor(resources: Iterable<Resource>, reserved: readonly string[]) {
    for (const resource of resources) this.collect(resource);
    for (const name of reserved) {
      if (this.shapesByName.has(name)) throw new Error(`resource name ${name} is reserved`);
    }
  }

  /** The schema of one item of `resource`: a component reference, or the schema inline. */
  schemaOf(resource: Resource): JsonSchema {
    if (!this.isComponent(resource.name)) return this.objectSchema(resource, false);
    this.components[resource.name] ??= this.objectSchema(resource, true);
    return schemaRef(resource.name);
  }

  private isComponent(name: string): boolean {
    return this.shapesByName.get(name)?.size === 1;
  }

  private collect(resource: Resource): void {
    const shapes = this.shapesByName.get(resource.name) ?? new Set<string>();
    shapes.add(JSON.stringify(this.inline(resource)));
    this.shapesByName.set(resource.name, shapes);
    for (const field of Object.values(resource.fields)) {
      const below = subResource(field);
      if (below) this.collect(below);
    }
  }

  /** The whole shape of a resource, everything inline: what two same-named ones compare. */
  private inline(resource: Resource): JsonSchema {
    return this.objectSchema(resource, false, (below) => this.inline(below));
  }

  private objectSchema(
    resource: Resource,
    component: boolean,
    nested: (resource: Resource) => JsonSchema = (below) => this.schemaOf(below),
  ): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    for (const [name, field] of Object.entries(resource.fields)) {
      properties[name] = withDescription(this.fieldSchema(field, nested), fieldDescription(field));
    }
    const standard = Object.entries(resource.fields)
      .filter(([, field]) => field.standard)
      .map(([name]) => name);
    const optional = Object.keys(resource.fields).length - standard.length;
    return {
      ...(component ? {} : { title: resource.name }),
      type: 'object',
      description:
        optional === 0
          ? 'Every field is returned by default; `fields` can choose fewer.'
          : `By default: ${standard.join(', ')}. The others only when named in \`fields\`, which can also choose fewer.`,
      properties,
      // The engine returns exactly the chosen fields, never others.
      additionalProperties: false,
    };
  }

  private fieldSchema(field: RestField, nested: (resource: Resource) => JsonSchema): JsonSchema {
    switch (field.kind) {
      case 'leaf':
        return field.schema;
      case 'object': {
        const schema = nested(field.fields);
        return field.nullIf === undefined ? schema : { anyOf: [schema, { type: 'null' }] };
      }
      case 'list':
        return { type: 'array', items: nested(field.item) };
    }
  }
}

// ---------------------------------------------------------------------------------------
// Responses

function headersOf(names: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

function errorAnswer(
  description: string,
  headers: readonly string[],
  schema = ERROR_SCHEMA,
): Record<string, unknown> {
  return {
    description,
    headers: headersOf(['X-Request-Id', ...headers]),
    content: { [JSON_MEDIA_TYPE]: { schema: schemaRef(schema) } },
  };
}

/** An error of the token endpoint: RFC 6749's body, never cached. */
function tokenErrorAnswer(description: string, headers: readonly string[] = []) {
  return errorAnswer(description, ['Cache-Control', 'Pragma', ...headers], TOKEN_ERROR_SCHEMA);
}

const UNAVAILABLE =
  'The database cannot serve (unreachable, restarting, dropped, or without its tables), or the request took too long (`REQUEST_TIMEOUT_MS`, `STATEMENT_TIMEOUT_MS`): retry after `Retry-After` seconds.';

function hasPathParameter(route: RestRoute): boolean {
  return route.params.some((param) => param.in === 'path');
}

function routeResponses(
  route: RestRoute,
  item: JsonSchema,
): Record<string, Record<string, unknown>> {
  const partner = route.auth === 'partner';
  const versioned = route.apiVersion === undefined ? [] : ['API-Version'];
  const deprecation = route.params.some((param) => param.replacedBy !== undefined)
    ? ['Deprecation']
    : [];
  const cached = ['ETag', 'Cache-Control', 'Vary', 'X-Request-Id', ...versioned, ...deprecation];
  const unknownNames =
    'an unknown name in `fields` or a filter naming nothing (such as an unknown category)';
  const responses: Record<string, Record<string, unknown>> = {
    '200': {
      description: 'OK.',
      headers: headersOf(cached),
      content: { [JSON_MEDIA_TYPE]: { schema: route.responseSchema(item) } },
    },
    '304': {
      description: 'Not modified: the answer has the ETag sent in `If-None-Match`.',
      headers: headersOf(cached),
    },
    '400': errorAnswer(
      'A parameter breaks its declared contract: a required one missing or repeated, the wrong type, out of bounds, a pattern mismatch, an unknown market, too many terms, malformed `fields`; or a parameter the route does not take that looks like a misspelling of one it does (`unknown parameter "gtins"; did you mean "gtin"?`, the rule is in the description of the API)' +
        (route.unknownNameStatus === 400 ? `; also ${unknownNames}.` : '.'),
      versioned,
    ),
    '401': errorAnswer(
      partner
        ? 'No access token, or an invalid or expired one (get one from `POST /partner-search/token`).'
        : 'A token was sent but is invalid or expired (the token is optional here, a broken one is refused).',
      ['WWW-Authenticate', ...versioned],
    ),
  };
  if (partner) {
    responses['403'] = errorAnswer('The `ref` does not belong to the token’s client.', versioned);
  }
  if (hasPathParameter(route)) {
    responses['404'] = errorAnswer('Nothing has that id.', versioned);
  }
  if (route.unknownNameStatus === 422) {
    responses['422'] = errorAnswer(`Well-formed, but names something unknown: ${unknownNames}.`, [
      ...versioned,
    ]);
  }
  responses['429'] = errorAnswer('Rate limited.', ['Retry-After']);
  responses['500'] = errorAnswer(
    'A defect: the body carries the request id, nothing internal.',
    versioned,
  );
  responses['503'] = errorAnswer(UNAVAILABLE, ['Retry-After', ...versioned]);
  return responses;
}

function routeOperation(route: RestRoute, items: ItemSchemas): OpenApiOperation {
  return {
    operationId: route.id,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    parameters: [...route.params.map(parameterOf), IF_NONE_MATCH],
    // Partner search needs a token; elsewhere one is optional (it raises the rate limit).
    security: route.auth === 'partner' ? [{ [BEARER]: [] }] : [{}, { [BEARER]: [] }],
    responses: routeResponses(route, items.schemaOf(route.resource)),
  };
}

// ---------------------------------------------------------------------------------------
// The token endpoint and the operational routes

function tokenOperation(): OpenApiOperation {
  return {
    operationId: 'issueToken',
    tags: ['Authentication'],
    summary: 'Get an access token (OAuth2 client credentials)',
    description:
      'The client authenticates with `client_id` and `client_secret` in the form body, or with HTTP Basic (`base64(urlencode(id) ":" urlencode(secret))`), never both. The token is short-lived and goes in `Authorization: Bearer …`. Errors are OAuth 2.0 errors (RFC 6749 section 5.2, the `TokenError` schema), not the `Error` body of the other routes, so that OAuth 2.0 client libraries understand them; only server failures (500, 503) answer with `Error`.',
    security: [{}, { [CLIENT_BASIC]: [] }],
    requestBody: {
      required: true,
      description: `A form body of at most ${MAX_TOKEN_REQUEST_BYTES} bytes; no parameter may appear twice.`,
      content: {
        [FORM_MEDIA_TYPE]: {
          schema: {
            type: 'object',
            required: ['grant_type'],
            properties: {
              grant_type: { type: 'string', enum: ['client_credentials'] },
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
    },
    responses: {
      '200': {
        description: 'The access token.',
        headers: headersOf(['X-Request-Id', 'Cache-Control', 'Pragma']),
        content: { [JSON_MEDIA_TYPE]: { schema: schemaRef('AccessToken') } },
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
      '415': tokenErrorAnswer(`\`invalid_request\`: the body is not ${FORM_MEDIA_TYPE}.`),
      '429': tokenErrorAnswer(
        '`temporarily_unavailable`: the endpoint’s own request rate limit, or too many failed client authentications from this IP (for this client id or any): a delay that grows with each further failure. Retry after `Retry-After` seconds.',
        ['Retry-After'],
      ),
      '500': errorAnswer('A defect: the body carries the request id, nothing internal.', []),
      '503': errorAnswer(UNAVAILABLE, ['Retry-After']),
    },
  };
}

function operational(
  operationId: string,
  summary: string,
  description: string,
  responses: Record<string, Record<string, unknown>>,
  tag = 'Operations',
): OpenApiOperation {
  return { operationId, tags: [tag], summary, description, security: [], responses };
}

const jsonAnswer = (description: string, schema: JsonSchema) => ({
  description,
  content: { [JSON_MEDIA_TYPE]: { schema } },
});

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

function operationalPaths(): Record<string, Record<string, OpenApiOperation>> {
  const graphqlResponses = {
    '200': {
      ...jsonAnswer(
        'A GraphQL response; errors carry `extensions.code` (BAD_USER_INPUT, NOT_FOUND, UNAUTHENTICATED, FORBIDDEN, RATE_LIMITED, QUERY_TOO_COMPLEX, SERVICE_UNAVAILABLE, TIMEOUT, INTERNAL_SERVER_ERROR). A response without errors carries an `ETag`.',
        GRAPHQL_RESPONSE,
      ),
      headers: headersOf(['ETag', 'X-Request-Id']),
    },
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
    '429': jsonAnswer(
      'Rate limited, in GraphQL’s own shape, with `Retry-After`.',
      GRAPHQL_RESPONSE,
    ),
    '503': {
      ...jsonAnswer(
        `${UNAVAILABLE} The errors say \`SERVICE_UNAVAILABLE\` or \`TIMEOUT\`.`,
        GRAPHQL_RESPONSE,
      ),
      headers: headersOf(['Retry-After', 'X-Request-Id']),
    },
  };
  return {
    '/graphql': {
      get: {
        ...operational(
          'graphqlGet',
          'GraphiQL, or a query in the URL',
          'In a browser (`Accept: text/html`): GraphiQL with example operations. Otherwise a GraphQL query in `query` (and `variables`, `operationName`).',
          {
            ...graphqlResponses,
            '200': {
              ...graphqlResponses['200'],
              content: {
                ...graphqlResponses['200'].content,
                'text/html': { schema: { type: 'string' } },
              },
            },
          },
          'GraphQL',
        ),
        security: [{}, { [BEARER]: [] }],
        parameters: [IF_NONE_MATCH],
      },
      post: {
        ...operational(
          'graphqlPost',
          'Run a GraphQL operation',
          'The whole catalogue as a graph; the REST routes run the same schema in-process. A token is optional (it raises the rate limit).',
          graphqlResponses,
          'GraphQL',
        ),
        security: [{}, { [BEARER]: [] }],
        parameters: [IF_NONE_MATCH],
        requestBody: {
          required: true,
          content: {
            [JSON_MEDIA_TYPE]: {
              schema: {
                type: 'object',
                required: ['query'],
                properties: {
                  query: { type: 'string' },
                  variables: { type: ['object', 'null'] },
                  operationName: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
      },
    },
    '/healthz': {
      get: operational('healthz', 'Liveness', 'Answers as soon as the process runs.', {
        '200': jsonAnswer('Alive.', {
          type: 'object',
          required: ['status'],
          properties: { status: { const: 'ok' } },
        }),
      }),
    },
    '/readyz': {
      get: operational(
        'readyz',
        'Readiness',
        'Ready when the database answers, every migration has been applied and every table is there.',
        {
          '200': jsonAnswer('Ready.', {
            type: 'object',
            required: ['status', 'database'],
            properties: {
              status: { const: 'ready' },
              database: { type: 'string' },
              databases: {
                description:
                  'With DATABASE_REPLICA_URLS, each database server: the primary, and every replica with whether it serves reads and its lag.',
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'role', 'statements'],
                  properties: {
                    name: { type: 'string' },
                    role: { enum: ['primary', 'replica'] },
                    statements: { type: 'integer' },
                    state: {
                      enum: ['unchecked', 'serving', 'lagging', 'unreachable', 'not-a-standby'],
                    },
                    lagMs: { type: ['integer', 'null'] },
                    reason: { type: 'string' },
                  },
                },
              },
            },
          }),
          '503': jsonAnswer(
            'Not ready: migrations pending, tables missing, the database unreachable, or the process shutting down (`draining`: requests already accepted are still answered).',
            {
              type: 'object',
              required: ['status'],
              properties: {
                status: { enum: ['migrating', 'unavailable', 'draining'] },
                pendingMigrations: { type: 'array', items: { type: 'string' } },
                reason: { type: 'string' },
                missing: { type: 'array', items: { type: 'string' } },
              },
            },
          ),
        },
      ),
    },
    '/metrics': {
      get: operational(
        'metrics',
        'Metrics',
        'Prometheus text format: requests by route, method and status; request durations by route; SQL statements executed, in all and per database server; each replica’s state and lag; response cache hits and misses; the process’s own figures (memory, CPU, event loop).',
        {
          '200': {
            description: 'The metrics.',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      ),
    },
    '/openapi.json': {
      get: operational('openapi', 'This document', 'The OpenAPI 3.1 document of the service.', {
        '200': jsonAnswer('The document.', { type: 'object' }),
      }),
    },
    '/docs': {
      get: operational('docs', 'API documentation', 'This document, browsable (Swagger UI).', {
        '200': {
          description: 'An HTML page.',
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      }),
    },
  };
}

// ---------------------------------------------------------------------------------------
// Shared components

const ERROR_BODY: JsonSchema = {
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

const TOKEN_ERROR: JsonSchema = {
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
};

const ACCESS_TOKEN: JsonSchema = {
  type: 'object',
  required: ['access_token', 'expires_in', 'token_type'],
  properties: {
    access_token: { type: 'string', description: 'A signed, short-lived token.' },
    expires_in: { type: 'integer', minimum: 1, description: 'Seconds until it expires.' },
    token_type: { type: 'string', enum: ['Bearer'] },
  },
};

const HEADERS: Record<string, Record<string, unknown>> = {
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

const TAG_DESCRIPTIONS: Record<string, string> = {
  Authentication:
    'OAuth2 client credentials: a client id and secret buy a short-lived Bearer token.',
  'Partner search':
    'For partners: requires a Bearer token and a `ref` owned by its client; every offer URL carries the `ref`. Version 1.0.0, in `API-Version`. Unknown names answer 400, never 422.',
  Suggestions: 'Products with a good price now, or matching a text query.',
  Categories: 'Categories by text query, usable as `filter[category]`.',
  Products: 'Products with offers, properties and core properties.',
  'Generic resources': 'Products and categories under /v1 in the generic `meta`/`items` envelope.',
  GraphQL: 'The graph the REST routes are built on.',
  Operations: 'Health, readiness, metrics and this documentation.',
};

const DESCRIPTION = `The price-comparison catalogue's REST compatibility layer. The same catalogue is a GraphQL API at \`/graphql\` (GraphiQL in a browser); every REST route here runs a GraphQL operation on it.

- **Authentication**: \`POST /partner-search/token\` (OAuth2 client credentials) gives a Bearer token. Partner search requires it; elsewhere it is optional and raises the rate limit, but a broken one is refused with 401.
- **Errors**: every REST error has one body, \`{"error": {"code": "http.<status>", "message", "details", "request_id"}}\`, except those of the token endpoint, which are OAuth 2.0 errors (RFC 6749), \`{"error": "invalid_client", "error_description", "request_id"}\`, as OAuth 2.0 client libraries expect.
- **Unknown parameters** are ignored (cache busters, tracking), unless one looks like a misspelling of a parameter the route takes: the same name in other letter case, with or without a plural \`s\`, or within a few edits of it (Levenshtein distance, letter case aside; none for names of one or two characters, 1 for three or four, 2 for longer ones). That is a 400 naming both, \`unknown parameter "gtins"; did you mean "gtin"?\`, with \`details\` \`[{"parameter": "gtins", "reason": "unknown_parameter"}]\`.
- **\`fields\`**: every data route takes a \`fields\` expression choosing the fields of each item (\`*\` for the standard ones, nesting with dots or parentheses).
- **Paging**: \`limit\` and \`offset\`; envelopes link the next and previous pages.
- **Caching**: data answers carry an \`ETag\`; \`If-None-Match\` with it answers 304.
- **Prices** are in the market's currency; only offers available for purchase are ever shown.`;

// ---------------------------------------------------------------------------------------
// The document

/** The OpenAPI 3.1 document of `routes`, the token endpoint and the operational routes. */
export function buildOpenApiDocument(
  routes: readonly RestRoute[],
  options: OpenApiOptions,
): OpenApiDocument {
  const items = new ItemSchemas(
    routes.map((route) => route.resource),
    [ERROR_SCHEMA, TOKEN_ERROR_SCHEMA, 'AccessToken'],
  );
  const paths: Record<string, Record<string, OpenApiOperation>> = {
    [TOKEN_PATH]: { post: tokenOperation() },
  };
  for (const route of routes) {
    const methods = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (methods[method]) throw new Error(`two routes for ${route.method} ${route.path}`);
    methods[method] = routeOperation(route, items);
  }
  Object.assign(paths, operationalPaths());

  const usedTags = new Set(
    Object.values(paths).flatMap((operations) =>
      Object.values(operations).flatMap((operation) => operation.tags),
    ),
  );
  const tagOrder = [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...usedTags])];
  return {
    openapi: '3.1.0',
    info: {
      title: 'Catalogue gateway',
      version: options.version,
      description: DESCRIPTION,
    },
    servers: [{ url: '/', description: 'This server' }],
    tags: tagOrder
      .filter((name) => usedTags.has(name))
      .map((name) => {
        const description = TAG_DESCRIPTIONS[name];
        return description === undefined ? { name } : { name, description };
      }),
    paths,
    components: {
      schemas: {
        [ERROR_SCHEMA]: ERROR_BODY,
        [TOKEN_ERROR_SCHEMA]: TOKEN_ERROR,
        AccessToken: ACCESS_TOKEN,
        ...sorted(items.components),
      },
      headers: HEADERS,
      securitySchemes: {
        [BEARER]: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: `An access token from \`POST ${TOKEN_PATH}\`.`,
        },
        [CLIENT_BASIC]: {
          type: 'http',
          scheme: 'basic',
          description: `Client id and secret at \`POST ${TOKEN_PATH}\` (instead of the form body).`,
        },
      },
    },
  };
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
