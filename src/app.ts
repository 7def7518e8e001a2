/**
 * Builds the whole HTTP service from a configuration and an open database, without
 * listening: src/cli/serve.ts listens, tests call `app.fetch` directly.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { useEntityTags } from './cache/etag.ts';
import { createResponseCache } from './cache/response-cache.ts';
import type { Config } from './config.ts';
import {
  ERROR_STATUS,
  maskError,
  RETRY_AFTER_UNAVAILABLE_SECONDS,
  type ErrorCode,
  timeoutError,
  tookTooLong,
} from './errors.ts';
import { createRequestContext, type RequestContext } from './context.ts';
import { createMarketDirectory } from './db/repositories/markets.ts';
import type { DatabaseHandle } from './db/client.ts';
import { databaseConnectionFailure } from './db/connection-errors.ts';
import { pendingMigrations } from './db/migrator.ts';
import { missingRelations } from './db/relations.ts';
import { setLoaderBatching } from './graph/batching.ts';
import { useCompiledExecution } from './graph/compiled-execution.ts';
import { GRAPHIQL_OPTIONS } from './graph/graphiql.ts';
import { useDocumentLimits, useJsonBodiesOnly, useJsonParameters } from './graph/limits.ts';
import { useGraphQLOverHttpStatus } from './graph/http-status.ts';
import { createGraphiQLAssets, GRAPHIQL_ASSETS_PATH } from './graph/graphiql-assets.ts';
import { schema } from './graph/schema.ts';
import type { Logger } from './logger.ts';
import {
  createRequestLog,
  noteCacheLookup,
  withBodySize,
  withinRequest,
  type RequestRecord,
} from './request-log.ts';
import { createMetrics, METRICS_PATH, UNMATCHED } from './metrics.ts';
import { createProxyTrust, type RequestSource } from './proxy-trust.ts';
import { nonResourceResponse, readRequestTarget, type RequestTarget } from './request-target.ts';
import { bindWorkSignal, startDeadline, workSignalOf } from './request-deadline.ts';
import {
  authenticate,
  rejectInvalidGraphQLToken,
  rejectInvalidToken,
  requirePartner,
} from './auth/caller.ts';
import {
  createRateLimiterFromConfig,
  rateLimitSubject,
  tokenEndpointSubject,
  tooManyRequestsResponse,
} from './auth/rate-limiter.ts';
import { createLimitCounters } from './auth/limit-counters.ts';
import { createTokenAttemptLimiterFromConfig } from './auth/token-attempts.ts';
import { RestEngine } from './rest/engine.ts';
import { handleTokenRequest, TOKEN_PATH, tokenRateLimitedResponse } from './rest/token-endpoint.ts';
import { errorResponse, jsonResponse } from './rest/http.ts';
import { restRoutes } from './rest/routes/index.ts';
import { buildOpenApiDocument, packageVersion } from './rest/openapi.ts';
import { createDocsPages, DOCS_PATH, OPENAPI_PATH } from './rest/docs-page.ts';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  /** True once the process is shutting down (src/cli/serve.ts): /readyz then answers 503. */
  draining?: () => boolean;
}

export function createApp({ config, database, logger, draining }: AppDependencies) {
  setLoaderBatching(config.dataLoaderBatching);
  database.limitStatements(config.statementTimeoutMs);
  const markets = createMarketDirectory(database.reads, config.siteUrls);
  const metrics = createMetrics(database);
  const responseCache = createResponseCache(
    config,
    schema,
    logger.child({ component: 'response-cache' }),
    {
      lookup: (hit) => {
        metrics.responseCacheLookup(hit);
        noteCacheLookup(hit);
      },
      error: metrics.responseCacheError,
    },
  );
  const graphiqlAssets = createGraphiQLAssets();
  const yoga = createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    renderGraphiQL: graphiqlAssets.renderPage,
    maskedErrors: { maskError },
    logging: logger.child({ component: 'graphql' }),
    context: ({ request }): RequestContext =>
      createRequestContext(database.reads, markets, workSignalOf(request)),
    // The schema takes no uploads: a body is JSON, at most GRAPHQL_MAX_BODY_BYTES, refused
    // (413) before it is read further, let alone parsed.
    multipart: false,
    maxRequestBodySize: config.graphqlMaxBodyBytes,
    plugins: [
      useJsonBodiesOnly(),
      useJsonParameters(),
      // Before compiled execution and the response cache: a refused document runs nothing.
      ...useDocumentLimits(config),
      useCompiledExecution(),
      useEntityTags(),
      useGraphQLOverHttpStatus(),
      ...(responseCache ? [responseCache.plugin] : []),
    ],
  });

  /**
   * Ready when the database answers, every migration has been applied and every table is
   * there. Never a 500: whatever fails here, the load balancer should stop sending.
   */
  async function readiness(): Promise<Response> {
    // Accepted requests are still being answered, but a load balancer should send no more.
    if (draining?.()) return jsonResponse(503, { status: 'draining' });
    try {
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        return jsonResponse(503, { status: 'migrating', pendingMigrations: pending });
      }
      const missing = await missingRelations(database.db);
      if (missing.length > 0) {
        logger.warn({ missing }, 'readiness check failed: tables missing');
        return jsonResponse(503, { status: 'unavailable', reason: 'tables missing', missing });
      }
      const databases = database.databases();
      return jsonResponse(200, {
        status: 'ready',
        database: database.kind,
        // With replicas, each server's state; one out of service leaves the process ready, as
        // its reads go to the primary.
        ...(databases.length > 1 ? { databases } : {}),
      });
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
  const limitCounters = createLimitCounters({
    redisUrl: config.redisUrl,
    keyPrefix: config.redisKeyPrefix,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    logger: logger.child({ component: 'rate-limits' }),
    onFallback: metrics.rateLimitFallback,
  });
  const limiter = createRateLimiterFromConfig(config, limitCounters);
  const tokenAttempts = createTokenAttemptLimiterFromConfig(config, limitCounters, {
    logger: logger.child({ component: 'token-attempts' }),
    metrics,
  });
  const sourceOf = createProxyTrust(config);
  // The OpenAPI document of the routes served here, built once; /docs browses it.
  const docs = createDocsPages(
    JSON.stringify(buildOpenApiDocument(restRoutes, { version: packageVersion() })),
  );

  const requestLog = createRequestLog(logger, config.logRequestSampleRate);

  /**
   * Answers a request; `label` tells the metrics and the request's log line what answered it
   * (`route`) and for which partner client.
   */
  async function route(
    request: Request,
    url: URL,
    requestId: string,
    label: RequestRecord,
    source: RequestSource,
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
      if (page) {
        label.route = url.pathname === OPENAPI_PATH ? OPENAPI_PATH : DOCS_PATH;
        return readOnlyRefusal(request, requestId) ?? page;
      }
    }
    const graphiqlFile = await graphiqlAssets.answer(url.pathname);
    if (graphiqlFile) {
      label.route = GRAPHIQL_ASSETS_PATH;
      return readOnlyRefusal(request, requestId) ?? graphiqlFile;
    }
    const { compiled, pathParams, allowed } = rest.match(url.pathname);
    label.route =
      url.pathname === '/graphql'
        ? 'graphql'
        : url.pathname === TOKEN_PATH
          ? 'token'
          : (compiled?.route.id ?? UNMATCHED);
    const caller = await authenticate(request, config);
    if (caller.kind === 'client') label.clientId = caller.clientId;
    if (url.pathname === TOKEN_PATH) {
      // A request bucket of its own and limits on failed attempts: nothing done here costs
      // the caller's IP the read routes.
      const decision = await limiter.take(tokenEndpointSubject(source.clientIp));
      if (!decision.allowed) return tokenRateLimitedResponse(decision.retryAfterSeconds, requestId);
      const { clientIp } = source;
      return handleTokenRequest(request, {
        db: database.db,
        config,
        requestId,
        attempts: tokenAttempts,
        clientIp,
      });
    }
    const decision = await limiter.take(rateLimitSubject(caller, source.clientIp));
    if (!decision.allowed) {
      const { retryAfterSeconds } = decision;
      return url.pathname === '/graphql'
        ? graphqlError(
            'RATE_LIMITED',
            `rate limit exceeded: retry after ${retryAfterSeconds} s`,
            retryAfterSeconds,
          )
        : tooManyRequestsResponse(retryAfterSeconds, requestId);
    }
    if (url.pathname === '/graphql') {
      return rejectInvalidGraphQLToken(caller) ?? yoga.fetch(request);
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
    const restRequest = { request, url, requestId, caller, publicBase: source.publicBase };
    return rest.handle(restRequest, compiled.route, pathParams);
  }

  /**
   * Routes a request within its deadline: at REQUEST_TIMEOUT_MS it is answered 503 and its
   * work stops at its next statement, as it does when the client goes away first.
   */
  async function routeWithinDeadline(
    request: Request,
    target: Extract<RequestTarget, { form: 'resource' }>,
    requestId: string,
    label: RequestRecord,
    serverContext: ServerContext,
  ): Promise<Response> {
    const deadline = startDeadline(request.signal, config.requestTimeoutMs);
    bindWorkSignal(target.request, deadline.signal);
    const timedOut = deadline.passed.then(() => {
      const { path } = target;
      logger.warn(
        { requestId, path, timeoutMs: config.requestTimeoutMs },
        'request deadline passed',
      );
      return timeoutResponse(path, requestId);
    });
    try {
      return await Promise.race([
        withinRequest(label, () =>
          route(target.request, target.url, requestId, label, sourceOf(serverContext.req)),
        ),
        timedOut,
      ]);
    } finally {
      deadline.clear();
    }
  }

  const handler = async (request: Request, serverContext: ServerContext): Promise<Response> => {
    const started = performance.now();
    const target = readRequestTarget(request, serverContext.req?.url);
    const requestId = requestIdOf(request);
    const label: RequestRecord = { requestId, route: UNMATCHED };
    let response: Response;
    try {
      response =
        target.form === 'resource'
          ? await routeWithinDeadline(request, target, requestId, label, serverContext)
          : nonResourceResponse(target, request.method, requestId);
    } catch (error) {
      const unavailable = databaseConnectionFailure(error);
      if (tookTooLong(error)) {
        logger.warn({ err: error, requestId, path: target.path }, 'request took too long');
        response = timeoutResponse(target.path, requestId);
      } else if (unavailable !== undefined) {
        logger.warn(
          { err: error, reason: unavailable, requestId, path: target.path },
          'database unavailable',
        );
        response = errorResponse(503, 'the catalogue is unavailable', requestId);
      } else {
        logger.error({ err: error, requestId, path: target.path }, 'request failed');
        response = errorResponse(500, 'internal error', requestId);
      }
    }
    response.headers.set('x-request-id', requestId);
    const sized = await withBodySize(response, yoga.fetchAPI.Response);
    const seconds = (performance.now() - started) / 1000;
    metrics.observeRequest(label.route, request.method, response.status, seconds);
    requestLog(label, {
      method: request.method,
      path: target.path,
      status: response.status,
      seconds,
      bytes: sized.bytes,
    });
    return sized.response;
  };

  // `app.dispose()` closes what the app opened itself (the Redis connections); the database
  // belongs to the caller.
  return createServerAdapter<ServerContext>(handler, {
    plugins: [
      {
        onDispose: async () => {
          await Promise.all([responseCache?.close(), limitCounters.close()]);
        },
      },
    ],
  });
}

/** What the Node adapter passes along: the raw request target, the socket, the headers. */
interface ServerContext {
  req?: IncomingMessage;
}

/** Pages and files answer GET and HEAD only: the 405 for any other method. */
function readOnlyRefusal(request: Request, requestId: string): Response | undefined {
  if (request.method === 'GET' || request.method === 'HEAD') return undefined;
  return errorResponse(405, `${request.method} is not allowed here`, requestId, {
    headers: { allow: 'GET, HEAD' },
  });
}

/** A /graphql request refused outside yoga: GraphQL's own shape, the code's status, Retry-After. */
function graphqlError(code: ErrorCode, message: string, retryAfterSeconds: number): Response {
  const body = { errors: [{ message, extensions: { code } }] };
  return jsonResponse(ERROR_STATUS[code], body, { 'retry-after': String(retryAfterSeconds) });
}

/** The answer at the deadline (or to a statement past its bound), in the shape of the route. */
function timeoutResponse(pathname: string, requestId: string): Response {
  const { message } = timeoutError();
  return pathname === '/graphql'
    ? graphqlError('TIMEOUT', message, RETRY_AFTER_UNAVAILABLE_SECONDS)
    : errorResponse(ERROR_STATUS.TIMEOUT, message, requestId);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's request id when it is a sane token (so logs correlate), else a new one. */
function requestIdOf(request: Request): string {
  const given = request.headers.get('x-request-id');
  return given !== null && REQUEST_ID.test(given) ? given : randomUUID();
}

export type App = ReturnType<typeof createApp>;
