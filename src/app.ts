/**
 * Builds the whole HTTP service from a configuration and an open database, without
 * listening: main.ts listens, tests call `app.fetch` directly.
 */
import { randomUUID } from 'node:crypto';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { sql } from 'kysely';
import { useEntityTags } from './cache/etag.ts';
import { createResponseCache } from './cache/response-cache.ts';
import type { Config } from './config.ts';
import { maskError } from './errors.ts';
import { createRequestContext, type RequestContext } from './context.ts';
import { createMarketDirectory } from './db/repositories/markets.ts';
import type { DatabaseHandle } from './db/client.ts';
import { databaseConnectionFailure } from './db/connection-errors.ts';
import { pendingMigrations } from './db/migrator.ts';
import { setLoaderBatching } from './graph/batching.ts';
import { useCompiledExecution } from './graph/compiled-execution.ts';
import { GRAPHIQL_OPTIONS } from './graph/graphiql.ts';
import { schema } from './graph/schema.ts';
import type { Logger } from './logger.ts';
import { createMetrics, METRICS_PATH, UNMATCHED } from './metrics.ts';
import { authenticate, rejectInvalidToken, requirePartner } from './auth/caller.ts';
import {
  createRateLimiterFromConfig,
  rateLimitSubject,
  tooManyRequestsResponse,
} from './auth/rate-limiter.ts';
import { RestEngine, RETRY_AFTER_UNAVAILABLE_SECONDS } from './rest/engine.ts';
import { handleTokenRequest, TOKEN_PATH } from './rest/token-endpoint.ts';
import { errorResponse, jsonResponse } from './rest/http.ts';
import { restRoutes } from './rest/routes/index.ts';
import { buildOpenApiDocument, packageVersion } from './rest/openapi.ts';
import { createDocsPages, DOCS_PATH, OPENAPI_PATH } from './rest/docs-page.ts';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
}

export function createApp({ config, database, logger }: AppDependencies) {
  setLoaderBatching(config.dataLoaderBatching);
  const markets = createMarketDirectory(database.db, config.siteUrls);
  const metrics = createMetrics(database);
  const responseCache = createResponseCache(
    config,
    schema,
    logger.child({ component: 'response-cache' }),
    { lookup: metrics.responseCacheLookup, error: metrics.responseCacheError },
  );
  const yoga = createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    maskedErrors: { maskError },
    logging: logger.child({ component: 'graphql' }),
    context: (): RequestContext => createRequestContext(database.db, markets),
    plugins: [
      useCompiledExecution(),
      useEntityTags(),
      ...(responseCache ? [responseCache.plugin] : []),
    ],
  });

  /** Ready when the database answers and every migration has been applied. */
  async function readiness(): Promise<Response> {
    try {
      await sql`select 1`.execute(database.db);
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        return jsonResponse(503, { status: 'migrating', pendingMigrations: pending });
      }
      return jsonResponse(200, { status: 'ready', database: database.kind });
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      return jsonResponse(503, { status: 'unavailable', reason: 'database unreachable' });
    }
  }

  // Partner search needs a client owning the ref; elsewhere a token is optional, but one that
  // was given and fails is refused rather than silently ignored.
  const rest = new RestEngine(yoga, restRoutes, (route, { caller, requestId, url }) =>
    route.auth === 'partner'
      ? // An empty ref is left to parameter validation (400), like an absent one.
        requirePartner(caller, url.searchParams.get('ref') || undefined, requestId)
      : rejectInvalidToken(caller, requestId),
  );
  const limiter = createRateLimiterFromConfig(config);
  // The OpenAPI document of the routes served here, built once; /docs browses it.
  const docs = createDocsPages(
    JSON.stringify(buildOpenApiDocument(restRoutes, { version: packageVersion() })),
  );

  /** Answers a request; `label.route` names what answered it, for the metrics. */
  async function route(
    request: Request,
    url: URL,
    requestId: string,
    label: { route: string },
    clientIp?: string,
  ) {
    switch (url.pathname) {
      case '/healthz':
        label.route = url.pathname;
        return jsonResponse(200, { status: 'ok' });
      case '/readyz':
        label.route = url.pathname;
        return readiness();
      case METRICS_PATH:
        label.route = url.pathname;
        return metrics.respond();
    }
    if (url.pathname === OPENAPI_PATH || url.pathname.startsWith(DOCS_PATH)) {
      const page = await docs.answer(url.pathname);
      if (page) label.route = url.pathname === OPENAPI_PATH ? OPENAPI_PATH : DOCS_PATH;
      if (page && request.method !== 'GET' && request.method !== 'HEAD') {
        return errorResponse(405, `${request.method} is not allowed here`, requestId, {
          headers: { allow: 'GET, HEAD' },
        });
      }
      if (page) return page;
    }
    const { compiled, pathParams, allowed } = rest.match(url.pathname);
    label.route =
      url.pathname === '/graphql'
        ? 'graphql'
        : url.pathname === TOKEN_PATH
          ? 'token'
          : (compiled?.route.id ?? UNMATCHED);
    const caller = await authenticate(request, config);
    const decision = limiter.take(rateLimitSubject(caller, clientIp));
    if (!decision.allowed) {
      return url.pathname === '/graphql'
        ? graphqlRateLimited(decision.retryAfterSeconds)
        : tooManyRequestsResponse(decision.retryAfterSeconds, requestId);
    }
    if (url.pathname === '/graphql') return yoga.fetch(request);
    if (url.pathname === TOKEN_PATH) {
      return handleTokenRequest(request, { db: database.db, config, requestId });
    }
    if (!compiled) return errorResponse(404, `no route for ${url.pathname}`, requestId);
    if (
      request.method !== compiled.route.method &&
      !(request.method === 'HEAD' && allowed.has('GET'))
    ) {
      const version = compiled.route.apiVersion;
      return errorResponse(405, `${request.method} is not allowed here`, requestId, {
        headers: { allow: [...allowed].join(', '), ...(version ? { 'api-version': version } : {}) },
      });
    }
    return rest.handle({ request, url, requestId, caller }, compiled.route, pathParams);
  }

  const handler = async (request: Request, serverContext: ServerContext): Promise<Response> => {
    const started = performance.now();
    const url = new URL(request.url);
    const requestId = requestIdOf(request);
    const label = { route: UNMATCHED };
    let response: Response;
    try {
      const clientIp = serverContext.req?.socket?.remoteAddress;
      response = await route(request, url, requestId, label, clientIp);
    } catch (error) {
      if (databaseConnectionFailure(error) !== undefined) {
        logger.warn({ err: error, requestId, path: url.pathname }, 'database unreachable');
        response = errorResponse(503, 'the catalogue is unavailable', requestId, {
          headers: { 'retry-after': String(RETRY_AFTER_UNAVAILABLE_SECONDS) },
        });
      } else {
        logger.error({ err: error, requestId, path: url.pathname }, 'request failed');
        response = errorResponse(500, 'internal error', requestId);
      }
    }
    response.headers.set('x-request-id', requestId);
    const seconds = (performance.now() - started) / 1000;
    metrics.observeRequest(label.route, request.method, response.status, seconds);
    return response;
  };

  // `app.dispose()` closes what the app opened itself (the Redis connection); the database
  // belongs to the caller.
  return createServerAdapter<ServerContext>(handler, {
    plugins: [{ onDispose: () => responseCache?.close() }],
  });
}

/** What the Node adapter passes along: the socket tells the client's address. */
interface ServerContext {
  req?: { socket?: { remoteAddress?: string } };
}

/** A refused /graphql request answers in GraphQL's own shape, with the same Retry-After. */
function graphqlRateLimited(retryAfterSeconds: number): Response {
  const body = {
    errors: [
      {
        message: `rate limit exceeded: retry after ${retryAfterSeconds} s`,
        extensions: { code: 'RATE_LIMITED' },
      },
    ],
  };
  return jsonResponse(429, body, { 'retry-after': String(retryAfterSeconds) });
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is a sane token (so logs correlate), else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given !== null && REQUEST_ID.test(given) ? given : randomUUID();
}

export type App = ReturnType<typeof createApp>;
