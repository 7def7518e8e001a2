/**
 * The response cache: execution results of queries, kept for RESPONSE_CACHE_TTL_SECONDS, in
 * process (a bounded LRU) or, with REDIS_URL, in Redis shared by every process.
 *
 * It is envelop's response-cache plugin on yoga's execute, so /graphql and the REST routes
 * (which execute their documents through the same enveloped execute) share it: a REST
 * route's document and variables are a key like any other. Access checks, parameter
 * validation and the REST envelope (links built from the request URL) all run before or
 * after execution, on every request; only the execution result is reused.
 *
 * The key is a hash of the printed document, the operation name, the variables and the
 * variant (what else the result depends on: the code's version and schema, and the site URLs
 * this process is configured with). Nothing depends on the caller: the request context
 * carries no caller, and partner `ref`s are variables. Results with errors are never stored.
 */
import { createHash } from 'node:crypto';
import {
  createInMemoryCache,
  defaultBuildResponseCacheKey,
  useResponseCache,
  type Cache,
} from '@envelop/response-cache';
import { printSchema, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { packageVersion } from '../rest/openapi.ts';
import { createRedisStore } from './redis-store.ts';

export interface ResponseCacheEvents {
  /** A lookup found an entry (true) or not (false). */
  lookup(hit: boolean): void;
  /** A lookup or store failed, or was skipped, because the shared cache was unusable. */
  error(): void;
}

export interface ResponseCache {
  kind: 'memory' | 'redis';
  plugin: Plugin;
  close(): Promise<void>;
}

type CacheSettings = Pick<
  Config,
  | 'responseCacheTtlSeconds'
  | 'responseCacheMaxEntries'
  | 'redisUrl'
  | 'redisKeyPrefix'
  | 'redisCommandTimeoutMs'
  | 'siteUrls'
>;

/** The response cache the configuration asks for, or undefined when its TTL is 0 (off). */
export function createResponseCache(
  config: CacheSettings,
  schema: GraphQLSchema,
  logger: Logger,
  events: ResponseCacheEvents,
): ResponseCache | undefined {
  if (config.responseCacheTtlSeconds === 0) return undefined;
  const redis =
    config.redisUrl === undefined
      ? undefined
      : createRedisStore({
          url: config.redisUrl,
          keyPrefix: config.redisKeyPrefix,
          commandTimeoutMs: config.redisCommandTimeoutMs,
          logger,
          onError: events.error,
        });
  const store = counted(
    redis ?? createInMemoryCache({ max: config.responseCacheMaxEntries }),
    events,
  );
  const variant = variantOf(config, schema);

  const plugin = useResponseCache<Record<string, unknown>>({
    cache: store,
    ttl: config.responseCacheTtlSeconds * 1000,
    // Answers are the same for every caller (see above): one shared entry per key.
    session: () => null,
    buildResponseCacheKey: (params) =>
      defaultBuildResponseCacheKey({ ...params, sessionId: variant }),
    shouldCacheResult: ({ result }) => !result.errors?.length && result.data != null,
    // Nothing is invalidated by entity (the API has no mutations; entries expire with the
    // TTL), so no ids are added to documents for tracking.
    idFields: [],
    invalidateViaMutation: false,
    // Answers stay byte for byte what an uncached execution gives.
    includeExtensionMetadata: false,
  }) as Plugin;

  return {
    kind: redis ? 'redis' : 'memory',
    plugin,
    close: async () => redis?.close(),
  };
}

/** Reports every lookup as a hit or a miss. */
function counted(cache: Cache, events: ResponseCacheEvents): Cache {
  return {
    async get(id) {
      const found = await cache.get(id);
      events.lookup(found != null);
      return found;
    },
    set: (id, result, entities, ttl) => cache.set(id, result, entities, ttl),
    invalidate: (entities) => cache.invalidate(entities),
  };
}

let printedSchemaHash: { schema: GraphQLSchema; hash: string } | undefined;

/**
 * What a result depends on besides the operation: this code (its version and schema) and the
 * site URLs links are built from. Processes sharing a Redis with other settings or another
 * release then never read each other's entries.
 */
function variantOf(config: CacheSettings, schema: GraphQLSchema): string {
  if (printedSchemaHash?.schema !== schema) {
    const hash = createHash('sha256').update(printSchema(schema)).digest('base64url');
    printedSchemaHash = { schema, hash };
  }
  const siteUrls = Object.entries(config.siteUrls).sort(([a], [b]) => (a < b ? -1 : 1));
  return createHash('sha256')
    .update(JSON.stringify([packageVersion(), printedSchemaHash.hash, siteUrls]))
    .digest('base64url');
}
