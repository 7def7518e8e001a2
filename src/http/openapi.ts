/**
 * The OpenAPI 3.1 document of the service, put together from parts written beside what they
 * describe: the REST routes' operations built from their declarations (src/rest/openapi/),
 * every other route's operations from the module that answers it, the shared components from
 * src/openapi/components.ts. Only the service's overview is written here. It sits in src/http,
 * beside the handler table, because that is the one place that may import every answering
 * module.
 */
import { TOKEN_PATH } from '../auth/token-endpoint.ts';
import { TOKEN_ENDPOINT_OPENAPI, TOKEN_ENDPOINT_SCHEMAS } from '../auth/token-endpoint-openapi.ts';
import { FEED_ROUTE_SCHEMAS, FEED_ROUTES_OPENAPI } from '../feeds/routes/feed-routes-openapi.ts';
import { GRAPHQL_OPENAPI } from '../graph/graphql-openapi.ts';
import { IMAGE_ROUTES_OPENAPI } from '../images/image-routes-openapi.ts';
import { GRAPHQL_PATH } from '../graph/yoga.ts';
import { METRICS_OPENAPI } from '../metrics.ts';
import { ERROR_BODY, HEADERS, securitySchemes, TAG_DESCRIPTIONS } from '../openapi/components.ts';
import { ERROR_SCHEMA, type JsonSchema, type OpenApiPaths } from '../openapi/vocabulary.ts';
import { DOCS_OPENAPI } from '../rest/docs-page.ts';
import { restOperations } from '../rest/openapi/operations.ts';
import type { RestRoute } from '../rest/route.ts';
import { LIVENESS_OPENAPI } from './liveness.ts';
import { READINESS_OPENAPI } from './readiness.ts';

export interface OpenApiOptions {
  /** `info.version`: the service's version (package.json). */
  version: string;
}

export type OpenApiDocument = Record<string, unknown> & {
  openapi: string;
  paths: OpenApiPaths;
  components: {
    schemas: Record<string, JsonSchema>;
    headers: Record<string, Record<string, unknown>>;
    securitySchemes: Record<string, Record<string, unknown>>;
  };
};

const DESCRIPTION = `The price-comparison catalogue's REST compatibility layer. The same catalogue is a GraphQL API at \`${GRAPHQL_PATH}\` (GraphiQL in a browser); every REST route here runs a GraphQL operation on it.

- **Authentication**: \`POST ${TOKEN_PATH}\` (OAuth2 client credentials) gives a Bearer token (here: **Authorize**, scheme \`clientCredentials\`, with a client id and secret). Partner search requires it; elsewhere it is optional and raises the rate limit, but a broken one is refused with 401.
- **Errors**: every REST error has one body, \`{"error": {"code": "http.<status>", "message", "details", "request_id"}}\`, except those of the token endpoint, which are OAuth 2.0 errors (RFC 6749), \`{"error": "invalid_client", "error_description", "request_id"}\`, as OAuth 2.0 client libraries expect.
- **Unknown parameters** are ignored (cache busters, tracking), unless one looks like a misspelling of a parameter the route takes: the same name in other letter case, with or without a plural \`s\`, or within a few edits of it (Levenshtein distance, letter case aside; none for names of one or two characters, 1 for three or four, 2 for longer ones). That is a 400 naming both, \`unknown parameter "gtins"; did you mean "gtin"?\`, with \`details\` \`[{"parameter": "gtins", "reason": "unknown_parameter"}]\`.
- **\`fields\`**: every data route takes a \`fields\` expression choosing the fields of each item (\`*\` for the standard ones, nesting with dots or parentheses).
- **Paging**: \`limit\` and \`offset\`; envelopes link the next and previous pages.
- **Caching**: data answers carry an \`ETag\`; \`If-None-Match\` with it answers 304.
- **Prices** are in the market's currency; only offers available for purchase are ever shown.
- **Feeds**: a shop's client sends its offers (a full feed, pushed items, withdrawn items); each is a run, answered \`202\` with its \`Location\`.`;

/** The OpenAPI 3.1 document of `routes`, the token endpoint and the operational routes. */
export function buildOpenApiDocument(
  routes: readonly RestRoute[],
  options: OpenApiOptions,
): OpenApiDocument {
  const fixedSchemas = {
    [ERROR_SCHEMA]: ERROR_BODY,
    ...TOKEN_ENDPOINT_SCHEMAS,
    ...FEED_ROUTE_SCHEMAS,
  };
  const rest = restOperations(routes, Object.keys(fixedSchemas));
  const paths = joinPaths([
    TOKEN_ENDPOINT_OPENAPI,
    rest.paths,
    FEED_ROUTES_OPENAPI,
    IMAGE_ROUTES_OPENAPI,
    GRAPHQL_OPENAPI,
    LIVENESS_OPENAPI,
    READINESS_OPENAPI,
    METRICS_OPENAPI,
    DOCS_OPENAPI,
  ]);
  return {
    openapi: '3.1.0',
    info: { title: 'Catalogue gateway', version: options.version, description: DESCRIPTION },
    servers: [{ url: '/', description: 'This server' }],
    tags: tagsOf(paths),
    paths,
    components: {
      schemas: { ...fixedSchemas, ...rest.schemas },
      headers: HEADERS,
      securitySchemes: securitySchemes(TOKEN_PATH),
    },
  };
}

/** The parts' paths in order; a path two parts document is a mistake, not an override. */
function joinPaths(parts: readonly OpenApiPaths[]): OpenApiPaths {
  const paths: OpenApiPaths = {};
  for (const part of parts) {
    for (const [path, operations] of Object.entries(part)) {
      if (paths[path]) throw new Error(`${path} is documented twice`);
      paths[path] = operations;
    }
  }
  return paths;
}

/** The tags the operations use, described ones first in their order (components.ts). */
function tagsOf(paths: OpenApiPaths): { name: string; description?: string }[] {
  const used = new Set(
    Object.values(paths).flatMap((operations) =>
      Object.values(operations).flatMap((operation) => operation.tags),
    ),
  );
  return [...new Set([...Object.keys(TAG_DESCRIPTIONS), ...used])]
    .filter((name) => used.has(name))
    .map((name) => {
      const description = TAG_DESCRIPTIONS[name];
      return description === undefined ? { name } : { name, description };
    });
}
