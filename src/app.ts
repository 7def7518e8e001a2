/**
 * Builds the whole HTTP service from a configuration and an open database, without
 * listening. The app is node:http's request listener (src/cli/serve.ts registers it); tests
 * call `app.fetch` directly (src/http/entries.ts). What answers a request is the handler table
 * (src/http/handlers.ts); how, the pipeline (src/http/pipeline.ts).
 */
import { createServerAdapter } from '@whatwg-node/server';
import { createClientDirectory, type ClientDirectory } from './auth/client-directory.ts';
import { loggableClientId } from './auth/client-id.ts';
import { createLimitCounters, type LimitCounters } from './auth/limit-counters.ts';
import { createRateLimiterFromConfig } from './auth/rate-limiter.ts';
import { createSocketAccess, type SocketAccessDependencies } from './auth/socket-access.ts';
import { createTokenAttemptLimiterFromConfig, forgetTokenFailures } from './auth/token-attempts.ts';
import { createResponseCache, type ResponseCache } from './cache/response-cache.ts';
import { followCatalogueChanges, type CatalogueChanges } from './changes/catalogue-changes.ts';
import type { Config } from './config.ts';
import type { DatabaseHandle } from './db/client.ts';
import { createMarketDirectory } from './db/repositories/markets.ts';
import { withoutLoaderBatching } from './graph/batching.ts';
import { withoutCompiledSelections } from './graph/compile/switch.ts';
import { createGraphiQLAssets } from './graph/graphiql-assets.ts';
import { createGraphQLWebSockets } from './graph/graphql-ws.ts';
import { schema } from './graph/schema.ts';
import { createGraphQLServer, type GraphQLServer } from './graph/yoga.ts';
import { createFeedRuns } from './feeds/feed-runs.ts';
import { imageRoutes } from './images/image-routes.ts';
import { createLivePrices } from './live/live-prices.ts';
import { createHandlerTable } from './http/handlers.ts';
import { buildOpenApiDocument } from './http/openapi.ts';
import { fetchEntry, nodeListener } from './http/entries.ts';
import { createPipeline, type Pipeline } from './http/pipeline.ts';
import { createReadiness, type ReadinessDependencies } from './http/readiness.ts';
import { createRouter } from './http/router.ts';
import type { Logger } from './logger.ts';
import { createMetrics, type AppMetrics } from './metrics.ts';
import { createProxyTrust } from './proxy-trust.ts';
import { openRedisConnections, type RedisConnections } from './redis/connections.ts';
import { createRequestLog, noteCacheLookup } from './request-log.ts';
import { createDocsPages } from './rest/docs-page.ts';
import { RestEngine } from './rest/engine.ts';
import { restRoutes } from './rest/routes/index.ts';
import { packageVersion } from './version.ts';

/** A test's app, disposed, gives its running runs this long before handing them back. */
const FEED_RUNS_DISPOSE_GRACE_MS = 5_000;

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
  /** True once the process is shutting down (src/cli/serve.ts): /readyz then answers 503. */
  draining?: () => boolean;
  /** With WORKERS above 1, workers that cannot start (src/cli/workers.ts): /readyz says so. */
  workerFault?: ReadinessDependencies['workerFault'];
}

export function createApp({ config, database, logger, draining, workerFault }: AppDependencies) {
  database.limitStatements(config.statementTimeoutMs);
  const metrics = createMetrics(database, config.buildCommit);
  const redis = watchedRedisConnections(config, logger, metrics);
  const { responseCache, changes } = createFollowingCache(config, database, logger, metrics, redis);
  const clients = createFollowingClients(config, database, changes, logger);
  const graphiqlAssets = createGraphiQLAssets();
  const live = createLivePrices(changes, database.db, liveLimits(config), logger, metrics);
  const yoga = createGraphQLServer({
    config,
    reads: database.reads,
    markets: createMarketDirectory(database.reads, config.siteUrls),
    graphiqlAssets,
    live,
    onLiveEventExecuted: metrics.liveEventExecuted,
    responseCache: responseCache?.plugin,
    logger: logger.child({ component: 'graphql' }),
  });
  const sourceOf = createProxyTrust(config);
  const limits = createLimits(config, logger, metrics, redis);
  const webSockets = webSocketsOf(yoga, sourceOf, { config, clients, limiter: limits.requests });
  answerNotices(changes, { clients, responseCache, counters: limits.counters }, logger);
  metrics.watchLiveSubscriptions(live.count);
  const feedRuns = createFeedRuns({ config, database, logger, metrics });
  const table = createHandlerTable({
    yoga,
    rest: new RestEngine(yoga, restRoutes),
    readiness: createReadiness({ database, logger, draining, workerFault }),
    metrics,
    // The OpenAPI document of the routes served here, built once; /docs browses it.
    docs: createDocsPages(
      JSON.stringify(buildOpenApiDocument(restRoutes, { version: packageVersion() })),
    ),
    graphiqlAssets,
    token: { db: database.db, config, attempts: limits.attempts },
    feeds: feedRuns.routes,
    images: imageRoutes(database.reads),
  });
  const pipeline = createPipeline({
    config,
    route: createRouter(table),
    sourceOf,
    clients,
    limiter: limits.requests,
    metrics,
    requestLog: createRequestLog(logger, config.logRequestSampleRate),
    logger,
  });

  const compiledPipeline: Pipeline =
    config.compiledSelections && config.dataLoaderBatching
      ? pipeline
      : (incoming) => withoutCompiledSelections(() => pipeline(incoming));
  const handle: Pipeline = config.dataLoaderBatching
    ? compiledPipeline
    : (incoming) => withoutLoaderBatching(() => compiledPipeline(incoming));
  // The adapter gives `fetch` a Fetch API caller's semantics (an aborted request's promise
  // rejects); `dispose()` closes what the app opened itself (the Redis connections, the
  // connection listening for catalogue changes): the database belongs to the caller.
  const fetching = createServerAdapter(fetchEntry(handle), {
    plugins: [
      {
        onDispose: async () => {
          metrics.close();
          live.completeAll();
          await webSockets.close();
          clients.close();
          await changes.close();
          await Promise.all([redis.close(), feedRuns.close(FEED_RUNS_DISPOSE_GRACE_MS)]);
        },
      },
    ],
  });
  return Object.assign(nodeListener(handle, logger), {
    fetch: fetching.fetch,
    /** Settles once the app listens for catalogue changes and has read the API clients. */
    listening: Promise.all([changes.ready, clients.ready]).then(() => undefined),
    /** node:http's 'upgrade' listener: graphql-ws on /graphql (src/graph/graphql-ws.ts). */
    upgrade: webSockets.upgrade,
    /** How many subscriptions this app serves now. */
    liveSubscriptions: () => live.count(),
    /**
     * Completes every subscription (SSE and graphql-ws) and closes the sockets: the first
     * step of a shutdown, since an open stream would otherwise hold the drain to its end.
     */
    completeSubscriptions: async () => {
      live.completeAll();
      await webSockets.close();
    },
    dispose: () => fetching.dispose(),
    /** Applies queued feed runs from now on (a serving process; tests start it when they need it). */
    startFeedRuns: () => feedRuns.start(),
    /** Lets running feed runs finish within `graceMs`, else hands them back to the queue. */
    stopFeedRuns: (graceMs: number) => feedRuns.close(graceMs),
  });
}

export type App = ReturnType<typeof createApp>;

/**
 * graphql-ws on /graphql: its tokens and request limit those of /graphql over HTTP, its
 * subscriptions bounded by the client's address as the proxy says.
 */
function webSocketsOf(
  yoga: GraphQLServer,
  sourceOf: ReturnType<typeof createProxyTrust>,
  access: SocketAccessDependencies & { config: Config },
) {
  return createGraphQLWebSockets({
    yoga,
    access: createSocketAccess(access),
    sourceOf,
    keepAliveMs: access.config.liveKeepAliveSeconds * 1000,
  });
}

/** The app's Redis connections (none without REDIS_URL), their state in the metrics. */
function watchedRedisConnections(config: Config, logger: Logger, metrics: AppMetrics) {
  const redis = openRedisConnections(
    config,
    logger.child({ component: 'redis' }),
    metrics.redisBreaker,
  );
  metrics.watchRedis('response_cache', () => redis.cache?.connected());
  metrics.watchRedis('rate_limits', () => redis.limits?.connected());
  return redis;
}

function liveLimits(config: Config) {
  return {
    perConnection: config.liveSubscriptionsPerConnection,
    perClientIp: config.liveSubscriptionsPerClientIp,
    bufferEvents: config.liveBufferEvents,
  };
}

/**
 * The API clients that exist (a token of any other is refused), read on the connection that
 * listens for changes (again when an operator's command says they changed: answerNotices).
 */
function createFollowingClients(
  config: Config,
  database: DatabaseHandle,
  changes: CatalogueChanges,
  logger: Logger,
) {
  return createClientDirectory({
    db: database.db,
    read: (statement) => changes.read(statement),
    after: changes.ready,
    // The embedded database is this process's own: no other process changes its clients.
    refreshMs: database.kind === 'postgres' ? config.tokenClientsRefreshSeconds * 1000 : undefined,
    logger: logger.child({ component: 'api-clients' }),
  });
}

/** What the operators' commands tell every process (src/changes/notices.ts), done here. */
function answerNotices(
  changes: CatalogueChanges,
  parts: {
    clients: ClientDirectory;
    responseCache: ResponseCache | undefined;
    counters: LimitCounters;
  },
  logger: Logger,
) {
  changes.onNotice(async (notice) => {
    switch (notice.kind) {
      case 'clients-changed':
        return parts.clients.reload();
      case 'cache-purged':
        return parts.responseCache?.purge();
      case 'client-unlocked': {
        const { clientId, address } = notice;
        const forgotten = await forgetTokenFailures(parts.counters, clientId, address);
        logger.info(
          { tokenClientId: loggableClientId(clientId), clientIp: address, forgotten },
          'token requests: a client unlocked; its failed attempts forgotten',
        );
      }
    }
  });
}

/**
 * The request limits and the token endpoint's failure delays, counted in Redis shared by every
 * process when there is one, else in this process.
 */
function createLimits(
  config: Config,
  logger: Logger,
  metrics: AppMetrics,
  redis: RedisConnections,
) {
  const counters = createLimitCounters({
    redis: redis.limits,
    keyPrefix: config.redisKeyPrefix,
    onFallback: metrics.rateLimitFallback,
  });
  const signals = { logger: logger.child({ component: 'token-attempts' }), metrics };
  return {
    counters,
    requests: createRateLimiterFromConfig(config, counters),
    attempts: createTokenAttemptLimiterFromConfig(config, counters, signals),
  };
}

/** The catalogue's changes as this process hears them, and the response cache following them. */
function createFollowingCache(
  config: Config,
  database: DatabaseHandle,
  logger: Logger,
  metrics: AppMetrics,
  redis: RedisConnections,
) {
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
      invalidation: metrics.responseCacheInvalidation,
    },
    redis.cache,
  );
  // Subscriptions follow the changes whether or not answers are cached. Every process drops
  // what each feed run made stale from its own cache (in Redis, the same entries once per
  // process: idempotent, and it covers answers this process stored from a read that
  // overlapped the run's commit).
  const changes = followCatalogueChanges(
    database,
    logger.child({ component: 'catalogue-changes' }),
  );
  if (responseCache) changes.subscribe((change) => responseCache.invalidate(change));
  return { responseCache, changes };
}
