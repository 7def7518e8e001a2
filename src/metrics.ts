/**
 * Prometheus metrics at /metrics, one registry per app (several apps may share a process, as
 * in the tests): requests by route, SQL statements, response cache lookups, and the process's
 * own figures (prom-client's defaults, among them `process_resident_memory_bytes`).
 *
 * Every label has a bounded set of values: `route` is a REST route id, `graphql`, `token`, an
 * operations path or `unmatched` (never the raw path), `method` a standard method or `OTHER`.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { DatabaseStatus } from './db/replicas.ts';
import { operational, type OpenApiPaths } from './openapi/vocabulary.ts';
import { bufferedResponse } from './responses.ts';

export const METRICS_PATH = '/metrics';

/** The route label of a path nothing serves. */
export const UNMATCHED = 'unmatched';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Seconds; fine below 50 ms, where the latency targets are (docs/benchmarks.md). */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface AppMetrics {
  observeRequest(route: string, method: string, status: number, seconds: number): void;
  responseCacheLookup(hit: boolean): void;
  responseCacheError(): void;
  /** The response cache dropped the answers a feed run made stale. */
  responseCacheInvalidation(): void;
  /** A rate-limit count taken in memory while the shared Redis was unusable. */
  rateLimitFallback(): void;
  /** A failed client authentication at the token endpoint. */
  tokenFailure(): void;
  /** A client id's failed authentications in a window reached the warning threshold. */
  tokenClientWarning(): void;
  /** A feed run finished; `seconds` from its receipt to its end. */
  feedRunFinished(kind: string, state: string, seconds: number): void;
  /** The text exposition of every metric. */
  respond(): Promise<Response>;
}

export interface MetricSources {
  /** SQL statements the app's database handle has executed so far. */
  statementCount(): number;
  /** Each database server's statements and, for a replica, state and lag. */
  databases(): DatabaseStatus[];
}

let processRegistry: Registry | undefined;

/** The process's figures describe the process, not an app: collected once, shown by every app. */
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export function createMetrics(sources: MetricSources): AppMetrics {
  const registry = new Registry();
  const registers = [registry];

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
  registerDatabaseMetrics(sources, registers);
  const cacheHits = new Counter({
    name: 'catalogue_response_cache_hits_total',
    help: 'Response cache lookups that found an answer (no execution, no SQL).',
    registers,
  });
  const cacheMisses = new Counter({
    name: 'catalogue_response_cache_misses_total',
    help: 'Response cache lookups that found nothing (the operation was executed).',
    registers,
  });
  const cacheErrors = new Counter({
    name: 'catalogue_response_cache_errors_total',
    help: 'Shared (Redis) cache lookups and stores that failed or were skipped while it was unusable.',
    registers,
  });

  const cacheInvalidations = new Counter({
    name: 'catalogue_response_cache_invalidations_total',
    help: 'Feed runs whose stale answers this process dropped from the response cache.',
    registers,
  });

  const rateLimitFallbacks = new Counter({
    name: 'catalogue_rate_limit_fallbacks_total',
    help: 'Rate-limit counts taken in this process because the shared Redis was unusable.',
    registers,
  });

  // No client id label: ids are whatever callers send, and a label only for known ones would
  // tell anyone reading /metrics which ids exist. The warning's log line names the id.
  const tokenFailures = new Counter({
    name: 'catalogue_token_failures_total',
    help: 'Failed client authentications at the token endpoint (unknown client or wrong secret).',
    registers,
  });
  const tokenClientWarnings = new Counter({
    name: 'catalogue_token_client_warnings_total',
    help: 'Times one client id drew TOKEN_FAILURES_PER_CLIENT_WARNING failed authentications in a window (logged with the id).',
    registers,
  });

  const feedRunFinished = feedRunMetrics(registers);

  // A merged registry holds the metrics registered so far: every one is registered above.
  const exposed = Registry.merge([registry, processMetrics()]);

  return {
    observeRequest(route, method, status, seconds) {
      const knownMethod = METHODS.has(method) ? method : 'OTHER';
      requests.inc({ route, method: knownMethod, status: String(status) });
      duration.observe({ route }, seconds);
    },
    responseCacheLookup(hit) {
      (hit ? cacheHits : cacheMisses).inc();
    },
    responseCacheError() {
      cacheErrors.inc();
    },
    responseCacheInvalidation() {
      cacheInvalidations.inc();
    },
    rateLimitFallback() {
      rateLimitFallbacks.inc();
    },
    tokenFailure() {
      tokenFailures.inc();
    },
    tokenClientWarning() {
      tokenClientWarnings.inc();
    },
    feedRunFinished,
    async respond() {
      return bufferedResponse(200, await exposed.metrics(), {
        'content-type': exposed.contentType,
      });
    },
  };
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

/** The database's figures, read from `sources` when scraped. */
function registerDatabaseMetrics(sources: MetricSources, registers: Registry[]): void {
  new Counter({
    name: 'catalogue_sql_statements_total',
    help: 'SQL statements executed through the database handle since it was opened.',
    registers,
    // Counted where every statement passes (src/db/client.ts); read at scrape time.
    collect() {
      this.reset();
      this.inc(sources.statementCount());
    },
  });
  new Counter({
    name: 'catalogue_database_statements_total',
    help: 'SQL statements executed, by the database server that ran them (primary, replica-N).',
    labelNames: ['database'] as const,
    registers,
    collect() {
      this.reset();
      for (const { name, statements } of sources.databases()) {
        this.inc({ database: name }, statements);
      }
    },
  });
  new Gauge({
    name: 'catalogue_database_replica_serving',
    help: 'Whether a replica serves reads now (1), or is out of service (0) and its reads go elsewhere.',
    labelNames: ['database', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const { name, role, state } of sources.databases()) {
        if (role === 'replica') this.set({ database: name, state }, state === 'serving' ? 1 : 0);
      }
    },
  });
  new Gauge({
    name: 'catalogue_database_replica_lag_seconds',
    help: 'How far a replica was behind the primary at its last check (absent when unknown).',
    labelNames: ['database'] as const,
    registers,
    collect() {
      this.reset();
      for (const { name, lagMs } of sources.databases()) {
        if (typeof lagMs === 'number' && Number.isFinite(lagMs)) {
          this.set({ database: name }, lagMs / 1000);
        }
      }
    },
  });
}

export const METRICS_OPENAPI: OpenApiPaths = {
  [METRICS_PATH]: {
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
};
