/**
 * The handler table: every path the service answers, what each handler declares (handler.ts)
 * and the module that answers it. Operations and documentation count against no limit and
 * read no token; /graphql, the REST routes and paths nothing serves count against the caller's
 * limit; the token endpoint against its own.
 */
import { rejectInvalidGraphQLToken } from '../auth/caller.ts';
import {
  handleTokenRequest,
  TOKEN_PATH,
  type TokenEndpointDependencies,
} from '../auth/token-endpoint.ts';
import { GRAPHIQL_ASSETS_PATH, type GraphiQLAssets } from '../graph/graphiql-assets.ts';
import { GRAPHQL_PATH, type GraphQLServer } from '../graph/yoga.ts';
import { METRICS_PATH, UNMATCHED, type AppMetrics } from '../metrics.ts';
import { errorResponse } from '../responses.ts';
import { DOCS_PATH, OPENAPI_PATH, type DocsPages } from '../rest/docs-page.ts';
import type { RestEngine } from '../rest/engine.ts';
import type { RestRoute } from '../rest/route.ts';
import type { Handler } from './handler.ts';
import { liveness, LIVENESS_PATH } from './liveness.ts';
import { READINESS_PATH } from './readiness.ts';
import { GRAPHQL_REFUSALS, REST_REFUSALS, TOKEN_REFUSALS } from './refusals.ts';
import type { HandlerTable, Lookup } from './router.ts';

export interface HandlerDependencies {
  yoga: GraphQLServer;
  rest: RestEngine;
  readiness(): Promise<Response>;
  metrics: Pick<AppMetrics, 'respond'>;
  docs: DocsPages;
  graphiqlAssets: GraphiQLAssets;
  /** The token endpoint's dependencies other than the request's own. */
  token: Omit<TokenEndpointDependencies, 'requestId' | 'clientIp'>;
  /** The feed routes (src/feeds/routes/feed-routes.ts). */
  feeds: Lookup;
  /** The drawn pictures' routes (src/images/image-routes.ts). */
  images: Lookup;
}

export function createHandlerTable(deps: HandlerDependencies): HandlerTable {
  const operation = (route: string, answer: Handler['answer']): Handler => ({
    route,
    limit: 'none',
    refusals: REST_REFUSALS,
    answer,
  });
  const exact = new Map<string, Handler>([
    [LIVENESS_PATH, operation(LIVENESS_PATH, liveness)],
    [READINESS_PATH, operation(READINESS_PATH, deps.readiness)],
    [METRICS_PATH, operation(METRICS_PATH, deps.metrics.respond)],
    [
      GRAPHQL_PATH,
      {
        route: 'graphql',
        limit: 'caller',
        refusals: GRAPHQL_REFUSALS,
        // `handleRequest`, not `fetch`: yoga's `fetch` would also watch the request's signal,
        // building one per request, for a client's leaving the deadline already reads.
        // The client's address bounds its subscriptions (src/live/live-prices.ts).
        answer: ({ request, caller, source }) =>
          rejectInvalidGraphQLToken(caller) ??
          deps.yoga.handleRequest(request, {
            clientIp: source.clientIp,
            publicBase: source.publicBase,
          }),
      },
    ],
    [
      TOKEN_PATH,
      {
        route: 'token',
        limit: 'token',
        refusals: TOKEN_REFUSALS,
        answer: ({ request, requestId, source }) =>
          handleTokenRequest(request, { ...deps.token, requestId, clientIp: source.clientIp }),
      },
    ],
  ]);
  return {
    exact,
    lookups: [
      staticFiles(deps.docs.answer, (pathname) =>
        pathname === OPENAPI_PATH ? OPENAPI_PATH : DOCS_PATH,
      ),
      staticFiles(deps.graphiqlAssets.answer, () => GRAPHIQL_ASSETS_PATH),
      restRoutes(deps.rest),
      deps.feeds,
      deps.images,
    ],
    notFound: {
      route: UNMATCHED,
      limit: 'caller',
      refusals: REST_REFUSALS,
      answer: ({ url, requestId }) => errorResponse(404, `no route for ${url.pathname}`, requestId),
    },
  };
}

/** Files found by path (documentation, GraphiQL's): read-only, no limit, no token. */
function staticFiles(
  find: (pathname: string) => Promise<Response | undefined>,
  routeOf: (pathname: string) => string,
): Lookup {
  return async (pathname) => {
    const file = await find(pathname);
    if (!file) return undefined;
    const handler: Handler = {
      route: routeOf(pathname),
      limit: 'none',
      methods: ['GET', 'HEAD'],
      refusals: REST_REFUSALS,
      answer: () => file,
    };
    return { handler, pathParams: {} };
  };
}

/** Each declared REST route, found by its path pattern. */
function restRoutes(engine: RestEngine): Lookup {
  const handlers = new Map(engine.routes.map((route) => [route, restHandler(engine, route)]));
  return (pathname) => {
    const matched = engine.match(pathname);
    return matched && { handler: handlers.get(matched.route)!, pathParams: matched.pathParams };
  };
}

function restHandler(engine: RestEngine, route: RestRoute): Handler {
  return {
    route: route.id,
    limit: 'caller',
    methods: [route.method],
    ...(route.apiVersion ? { refusalHeaders: { 'api-version': route.apiVersion } } : {}),
    refusals: REST_REFUSALS,
    answer: ({ request, url, requestId, caller, source, pathParams }) =>
      engine.handle(
        { request, url, requestId, caller, publicBase: source.publicBase },
        route,
        pathParams,
      ),
  };
}
