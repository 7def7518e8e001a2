/**
 * Prometheus metrics at /metrics, one registry per app (several apps may share a process, as
 * in the tests): requests by route and in flight, SQL statements and the database's pools
 * (./metrics/database.ts), the response cache, Redis, feed runs, live subscriptions, the build,
 * and the process's own figures (./metrics/process.ts). Every metric is listed in
 * docs/operations.md, "Metrics".
 *
 * In a cluster worker (WORKERS above 1) /metrics answers for the whole cluster, summed by the
 * primary (./metrics/cluster-worker.ts), whichever worker the scrape reached.
 *
 * Every label has a bounded set of values: `route` is a REST route id, `graphql`, `token`, an
 * operations path or `unmatched` (never the raw path), `method` a standard method or `OTHER`.
 */
import cluster from 'node:cluster';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { clusterWorkerMetrics } from './metrics/cluster-worker.ts';
import { registerDatabaseMetrics, type DatabaseSources } from './metrics/database.ts';
import { processMetrics } from './metrics/process.ts';
import { operational, type OpenApiPaths } from './openapi/vocabulary.ts';
import type { RedisUseLabel } from './redis/connections.ts';
import { bufferedResponse } from './responses.ts';
import { buildCommit, packageVersion } from './version.ts';

export const METRICS_PATH = '/metrics';

/** The route label of a path nothing serves. */
export const UNMATCHED = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; fine below 50 ms, where the latency targets are (docs/benchmarks.md). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface AppMetrics {
  /** A request came in: in flight until `observeRequest` sees it answered. */
  requestArrived(): void;
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  responseCacheLookup(hit: boolean): void;
  responseCacheError(): void;
  /** The response cache dropped the answers a feed run made stale. */
  responseCacheInvalidation(): void;
  /** A rate-limit count taken in memory while the shared Redis was unusable. */
  rateLimitFallback(): void;
  /** The circuit breaker of the Redis a use goes to opened (true) or closed (false). */
  redisBreaker(use: RedisUseLabel, open: boolean): void;
  /** A failed client authentication at the token endpoint. */
  tokenFailure(): void;
  /** A client id's failed authentications in a window reached the warning threshold. */
  tokenClientWarning(): void;
  /** A feed run finished; `seconds` from its receipt to its end. */
  feedRunFinished(kind: string, state: string, seconds: number): void;
  /** A subscriber took an event of its live subscription. */
  liveEventDelivered(): void;
  /** A live subscription fell its buffer behind and was closed. */
  liveSubscriberFellBehind(): void;
  /** A live event was executed for the subscribers with one document and variables. */
  liveEventExecuted(): void;
  /** The live subscriptions open, read when scraped. */
  watchLiveSubscriptions(count: () => number): void;
  /** Whether a Redis connection (of `client`) is up, read when scraped: undefined, no Redis. */
  watchRedis(client: string, connected: () => boolean | undefined): void;
  /** The text exposition of every metric. */
  respond(): Promise<Response>;
  /** Stops following the database's statements (the database outlives the app). */
  close(): void;
}

/** `configuredCommit`: BUILD_COMMIT (empty: the checkout's HEAD). */
export function createMetrics(sources: DatabaseSources, configuredCommit: string): AppMetrics {
  const registry = new Registry();
  const registers = [registry];

  const http = httpMetrics(registers);
  const stopTiming = registerDatabaseMetrics(sources, registers);
  const counters = eventCounters(registers);
  const watched = registerWatchedGauges(registers);
  registerBuildInfo(configuredCommit, registers);
  const feedRunFinished = feedRunMetrics(registers);
  const redisBreaker = redisBreakerMetric(registers);

  const local = [registry, processMetrics()];
  const wholeCluster = cluster.isWorker ? clusterWorkerMetrics(local) : undefined;
  const exposition = async () =>
    wholeCluster ? wholeCluster.scrape() : Registry.merge(local).metrics();

  return {
    ...http,
    ...counters,
    feedRunFinished,
    redisBreaker,
    ...watched,
    async respond() {
      return bufferedResponse(200, await exposition(), { 'content-type': registry.contentType });
    },
    close() {
      stopTiming();
      wholeCluster?.stop();
    },
  };
}

/** Requests answered, their durations, and those not answered yet. */
function httpMetrics(registers: Registry[]): Pick<AppMetrics, 'requestArrived' | 'observeRequest'> {
  const requests = new Counter({
    name: 'catalogue_http_requests_total',
    help: 'HTTP requests answered, by route, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const duration = new Histogram({
    name: 'catalogue_http_request_duration_seconds',
    help: 'Time from a request’s arrival to its response (headers and body ready), by route.',
    labelNames: ['route'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const inFlight = new Gauge({
    name: 'catalogue_http_requests_in_flight',
    help: 'HTTP requests arrived and not answered yet (the scrape asking included).',
    registers,
  });
  return {
    requestArrived: () => inFlight.inc(),
    observeRequest(route, method, status, seconds) {
      inFlight.dec();
      const knownMethod = METHODS.has(method) ? method : 'OTHER';
      requests.inc({ route, method: knownMethod, status: String(status) });
      duration.observe({ route }, seconds);
    },
  };
}

type EventCounters = Pick<
  AppMetrics,
  | 'responseCacheLookup'
  | 'responseCacheError'
  | 'responseCacheInvalidation'
  | 'rateLimitFallback'
  | 'tokenFailure'
  | 'tokenClientWarning'
  | 'liveEventDelivered'
  | 'liveSubscriberFellBehind'
  | 'liveEventExecuted'
>;

/** Counters of events without labels, each counted by a call. */
function eventCounters(registers: Registry[]): EventCounters {
  const counter = (name: string, help: string) => {
    const counted = new Counter({ name, help, registers });
    return () => counted.inc();
  };
  const cacheHits = counter(
    'catalogue_response_cache_hits_total',
    'Response cache lookups that found an answer (no execution, no SQL).',
  );
  const cacheMisses = counter(
    'catalogue_response_cache_misses_total',
    'Response cache lookups that found nothing (the operation was executed).',
  );
  return {
    responseCacheLookup: (hit) => (hit ? cacheHits : cacheMisses)(),
    responseCacheError: counter(
      'catalogue_response_cache_errors_total',
      'Shared (Redis) cache lookups and stores that failed or were skipped while it was unusable.',
    ),
    responseCacheInvalidation: counter(
      'catalogue_response_cache_invalidations_total',
      'Feed runs whose stale answers this process dropped from the response cache.',
    ),
    rateLimitFallback: counter(
      'catalogue_rate_limit_fallbacks_total',
      'Rate-limit counts taken in this process because the shared Redis was unusable.',
    ),
    // No client id label: ids are whatever callers send, and a label only for known ones would
    // tell anyone reading /metrics which ids exist. The warning's log line names the id.
    tokenFailure: counter(
      'catalogue_token_failures_total',
      'Failed client authentications at the token endpoint (unknown client or wrong secret).',
    ),
    tokenClientWarning: counter(
      'catalogue_token_client_warnings_total',
      'Times one client id drew TOKEN_FAILURES_PER_CLIENT_WARNING failed authentications in a window (logged with the id).',
    ),
    liveEventDelivered: counter(
      'catalogue_live_events_delivered_total',
      'Events of live subscriptions taken by their subscribers.',
    ),
    liveSubscriberFellBehind: counter(
      'catalogue_live_subscribers_fell_behind_total',
      'Live subscriptions closed because their subscriber fell LIVE_BUFFER_EVENTS events behind.',
    ),
    liveEventExecuted: counter(
      'catalogue_live_event_executions_total',
      'Live events executed: one per event and distinct document, operation and variables, shared by the subscribers that have them in common.',
    ),
  };
}

/** Gauges read, when scraped, from what the app builds after its metrics. */
function registerWatchedGauges(
  registers: Registry[],
): Pick<AppMetrics, 'watchLiveSubscriptions' | 'watchRedis'> {
  let liveSubscriptions = () => 0;
  const redisConnections = new Map<string, () => boolean | undefined>();
  new Gauge({
    name: 'catalogue_live_subscriptions',
    help: 'Live subscriptions open now (SSE and graphql-ws).',
    registers,
    collect() {
      this.set(liveSubscriptions());
    },
  });
  new Gauge({
    name: 'catalogue_redis_connected',
    help: 'Whether a Redis connection is up (1) or not (0), by what it serves: response_cache, rate_limits. Absent without REDIS_URL.',
    labelNames: ['client'] as const,
    registers,
    // Across workers the least: 0 when any worker has lost its connection.
    aggregator: 'min',
    collect() {
      this.reset();
      for (const [client, connected] of redisConnections) {
        const up = connected();
        if (up !== undefined) this.set({ client }, up ? 1 : 0);
      }
    },
  });
  return {
    watchLiveSubscriptions(count) {
      liveSubscriptions = count;
    },
    watchRedis(client, connected) {
      redisConnections.set(client, connected);
    },
  };
}

/** 1, labelled with what runs: the package's version and the commit it was built from. */
function registerBuildInfo(configuredCommit: string, registers: Registry[]): void {
  new Gauge({
    name: 'catalogue_build_info',
    help: 'Always 1: the version (package.json) and commit (BUILD_COMMIT, else the checkout’s HEAD) running.',
    labelNames: ['version', 'commit'] as const,
    registers,
    aggregator: 'first',
  }).set({ version: packageVersion(), commit: buildCommit(configuredCommit) }, 1);
}

/** Feed runs by kind and state, and how long from a run's receipt to its end. */
function feedRunMetrics(registers: Registry[]): AppMetrics['feedRunFinished'] {
  const runs = new Counter({
    name: 'catalogue_feed_runs_total',
    help: 'Feed runs finished in this process, by kind (full, push) and state (applied, rejected, failed).',
    labelNames: ['kind', 'state'] as const,
    registers,
  });
  const seconds = new Histogram({
    name: 'catalogue_feed_run_seconds',
    help: 'Time from a run’s receipt (its upload began) to its end: how soon the catalogue follows a shop.',
    labelNames: ['kind'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers,
  });
  return (kind, state, taken) => {
    runs.inc({ kind, state });
    seconds.observe({ kind }, taken);
  };
}

/** Whether each use's Redis is being left alone (src/redis/connection.ts). */
function redisBreakerMetric(registers: Registry[]): AppMetrics['redisBreaker'] {
  const breakers = new Gauge({
    name: 'catalogue_redis_breaker_open',
    help: 'Whether the circuit breaker of the Redis a use goes to is open (1: Redis failed or hung, and is asked nothing until it answers a probe) or closed (0), by use (response_cache, rate_limits).',
    labelNames: ['use'] as const,
    registers,
    // Across workers the most: 1 when any worker is leaving its Redis alone.
    aggregator: 'max',
  });
  return (use, open) => breakers.set({ use }, open ? 1 : 0);
}

export const METRICS_OPENAPI: OpenApiPaths = {
  [METRICS_PATH]: {
    get: operational(
      'metrics',
      'Metrics',
      'Prometheus text format (docs/operations.md, “Metrics”): requests by route, method and status, their durations and those in flight; SQL statements executed and their durations, in all and per database server; each pool’s connections; each replica’s state and lag; the response cache and Redis; feed runs; live subscriptions; the build; the process’s own figures (memory, CPU, event loop). With several workers, the sums over all of them.',
      {
        '200': {
          description: 'The metrics.',
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    ),
  },
};
