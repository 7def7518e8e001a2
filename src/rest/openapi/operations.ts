/**
 * The REST routes' operations, built from their declarations (src/rest/routes): parameters
 * from the declared parameters, the 200 body from the route's `responseSchema` around its
 * resource's item schema, security from its access, and the errors the engine, the access
 * checks and the pipeline answer it with. A route changes, its document does.
 */
import { TOKEN_PATH } from '../../auth/token-endpoint.ts';
import {
  DEFECT,
  errorAnswer,
  headersOf,
  IF_NONE_MATCH,
  JSON_MEDIA_TYPE,
  OPTIONAL_BEARER,
  REQUIRED_BEARER,
  UNAVAILABLE,
  type JsonSchema,
  type OpenApiAnswer,
  type OpenApiOperation,
  type OpenApiPaths,
} from '../../openapi/vocabulary.ts';
import type { RestRoute } from '../route.ts';
import { ItemSchemas } from './item-schemas.ts';
import { parameterOf } from './parameters.ts';

export interface RestOperations {
  paths: OpenApiPaths;
  /** The item schemas the operations refer to, by name in code-point order. */
  schemas: Record<string, JsonSchema>;
}

/** `reservedSchemaNames`: the other components' names, which no resource may take. */
export function restOperations(
  routes: readonly RestRoute[],
  reservedSchemaNames: readonly string[],
): RestOperations {
  const items = new ItemSchemas(
    routes.map((route) => route.resource),
    reservedSchemaNames,
  );
  const paths: OpenApiPaths = {};
  for (const route of routes) {
    const methods = (paths[route.path] ??= {});
    const method = route.method.toLowerCase();
    if (methods[method]) throw new Error(`two routes for ${route.method} ${route.path}`);
    methods[method] = routeOperation(route, items);
  }
  return { paths, schemas: sorted(items.components) };
}

function routeOperation(route: RestRoute, items: ItemSchemas): OpenApiOperation {
  return {
    operationId: route.id,
    tags: [route.tag],
    summary: route.summary,
    description: route.description,
    parameters: [...route.params.map(parameterOf), IF_NONE_MATCH],
    security: route.access === 'public' ? OPTIONAL_BEARER : REQUIRED_BEARER,
    responses: routeResponses(route, items.schemaOf(route.resource)),
  };
}

/** Why a route that requires a token refuses a valid one. */
const FORBIDDEN = {
  partner: 'The `ref` does not belong to the token’s client.',
  shop: 'The token’s client is not the client of the shop the path names (a partner’s client, or another shop’s).',
} as const;

function routeResponses(route: RestRoute, item: JsonSchema): Record<string, OpenApiAnswer> {
  const tokenRequired = route.access !== 'public';
  const versioned = route.apiVersion === undefined ? [] : ['API-Version'];
  const deprecation = route.params.some((param) => param.replacedBy !== undefined)
    ? ['Deprecation']
    : [];
  const cached = ['ETag', 'Cache-Control', 'Vary', 'X-Request-Id', ...versioned, ...deprecation];
  const unknownNames =
    'an unknown name in `fields` or a filter naming nothing (such as an unknown category)';
  const responses: Record<string, OpenApiAnswer> = {
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
      tokenRequired
        ? `No access token, or an invalid or expired one (get one from \`POST ${TOKEN_PATH}\`).`
        : 'A token was sent but is invalid or expired (the token is optional here, a broken one is refused).',
      ['WWW-Authenticate', ...versioned],
    ),
  };
  if (route.access !== 'public') {
    responses['403'] = errorAnswer(FORBIDDEN[route.access], versioned);
  }
  if (route.params.some((param) => param.in === 'path')) {
    responses['404'] = errorAnswer('Nothing has that id.', versioned);
  }
  if (route.unknownNameStatus === 422) {
    responses['422'] = errorAnswer(
      `Well-formed, but names something unknown: ${unknownNames}.`,
      versioned,
    );
  }
  responses['429'] = errorAnswer('Rate limited.', ['Retry-After']);
  responses['500'] = errorAnswer(DEFECT, versioned);
  responses['503'] = errorAnswer(UNAVAILABLE, ['Retry-After', ...versioned]);
  return responses;
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
