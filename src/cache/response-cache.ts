/**
 * The response cache: execution results of queries, kept for RESPONSE_CACHE_TTL_SECONDS, in
 * process (a bounded LRU) or, with a Redis (RESPONSE_CACHE_REDIS_URL or REDIS_URL), in Redis
 * shared by every process.
 *
 * It is envelop's response-cache plugin on yoga's execute, so /graphql and the REST routes
 * (which execute their documents through the same enveloped execute) share it: a REST
 * route's document and variables are a key like any other. Access checks, parameter
 * validation and the REST envelope (links built from the request URL) all run before or
 * after execution, on every request; only the execution result is reused.
 *
 * The key is a hash of the document's text, the operation name, the variables and the
 * variant (what else the result depends on: the code's version and schema, the site URLs
 * this process is configured with, and the public base the request came in under, which the
 * URLs of the service's own pictures are built on). Nothing depends on the caller: the
 * request context carries no caller, and partner `ref`s are variables. Results with errors
 * are never stored.
 *
 * Each entry is stored with the tags of what it holds (src/cache/answer-tags.ts, recorded by
 * the schema's types as the query executes), so that after a feed run `invalidate` drops the
 * answers holding the products it changed, the lists of its market and its shop's offers,
 * and nothing else (docs/api.md, "Feeds"). Every process hears of each run
 * (src/changes/catalogue-changes.ts) and drops what its store holds.
 *
 * The plugin around execute is our own, on envelop's store and key: @envelop/response-cache's
 * `useResponseCache` adds a `__typename` to every selection set and strips it from each result
 * again, visiting every list twice (once as a list, once as an object) at every level, so a
 * result n lists deep costs 2^n (a 1.3 KB document of connections nested 200 fields deep held
 * a process for 46 CPU-seconds). It does that to collect entities for invalidation from the
 * result; here the schema's types record them as they resolve (src/graph/cache-tags.ts). A
 * lookup and a store cost one hash of the document's text and variables, and the result is
 * kept byte for byte as execution gave it.
 */
import { createHash } from 'node:crypto';
import { defaultBuildResponseCacheKey, type Cache } from '@envelop/response-cache';
import {
  getOperationAST,
  print,
  printSchema,
  type DocumentNode,
  type ExecutionArgs,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { selectsRootField } from '../graphql-root-fields.ts';
import { packageVersion } from '../version.ts';
import type { RedisConnection } from '../redis/connection.ts';
import { collectTags, tagsOfChange, type ChangedAnswers } from './answer-tags.ts';
import { createMemoryStore } from './memory-store.ts';
import { createRedisStore } from './redis-store.ts';

export interface ResponseCacheEvents {
  /** A lookup found an entry (true) or not (false). */
  lookup(hit: boolean): void;
  /** A lookup or store failed, or was skipped, because the shared cache was unusable. */
  error(): void;
  /** The answers a change made stale were dropped (or, from Redis, could not be: `error`). */
  invalidation?(): void;
}

export interface ResponseCache {
  kind: 'memory' | 'redis';
  plugin: Plugin;
  /**
   * Drops every answer holding a product the change lists, the market's lists, or the shop's
   * offers. Never throws: a shared cache that cannot be reached is logged and counted, and
   * its entries expire with the TTL.
   */
  invalidate(change: ChangedAnswers): Promise<void>;
  /**
   * Drops every answer (an operator's `npm run cache -- purge`). Never throws: a shared cache
   * that cannot be reached is logged, and its entries expire with the TTL.
   */
  purge(): Promise<void>;
}

type CacheSettings = Pick<
  Config,
  'responseCacheTtlSeconds' | 'responseCacheMaxEntries' | 'redisKeyPrefix' | 'siteUrls'
>;

/**
 * The response cache the configuration asks for, in Redis through `connection` when given, or
 * undefined when its TTL is 0 (off).
 */
export function createResponseCache(
  config: CacheSettings,
  schema: GraphQLSchema,
  logger: Logger,
  events: ResponseCacheEvents,
  connection?: RedisConnection,
): ResponseCache | undefined {
  if (config.responseCacheTtlSeconds === 0) return undefined;
  const redis =
    connection === undefined
      ? undefined
      : createRedisStore({
          connection,
          keyPrefix: config.redisKeyPrefix,
          logger,
          onError: events.error,
        });
  const memory = redis ? undefined : createMemoryStore(config.responseCacheMaxEntries);
  const store = counted(redis ?? memory!, events);
  const variant = variantOf(config, schema);
  // Counts invalidations begun: an answer whose execution an invalidation overlapped may have
  // read the catalogue before the change, so it is not stored (the next request stores it).
  let invalidations = 0;

  const plugin = useCachedExecution(
    store,
    config.responseCacheTtlSeconds * 1000,
    variant,
    () => invalidations,
  );

  return {
    kind: redis ? 'redis' : 'memory',
    plugin,
    async invalidate(change) {
      invalidations++;
      await store.invalidate(tagsOfChange(change).map((tag) => ({ typename: tag })));
      events.invalidation?.();
    },
    async purge() {
      // As for an invalidation: an answer read before the purge is not stored after it.
      invalidations++;
      memory?.purge();
      const redisKeys = await redis?.purge();
      if (redis && redisKeys === undefined) {
        logger.error('response cache: could not purge Redis; its answers expire with the TTL');
        return;
      }
      logger.info({ redisKeys }, 'response cache purged');
    },
  };
}

/**
 * Answers a query from the store when it holds the result of the same document, operation,
 * variables and variant, and stores results without errors, with the tags the execution
 * recorded. Introspection is answered as it is (GraphiQL must see the schema it talks to),
 * and only queries are cached.
 */
function useCachedExecution(
  store: Cache,
  ttlMs: number,
  variant: string,
  invalidations: () => number,
): Plugin {
  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const operation = cacheableOperation(args);
      if (operation === undefined) return;
      const key = await keyOf(args, operation, variant);
      if (key === undefined) return;
      const cached = await store.get(key);
      if (cached != null) return setResultAndStopExecution(cached);
      const started = invalidations();
      const tags = collectTags(args.contextValue);
      return {
        onExecuteDone({ result }) {
          if (Symbol.asyncIterator in result) return;
          if (result.errors?.length || result.data == null) return;
          if (invalidations() !== started) return;
          const entities = [...tags].map((tag) => ({ typename: tag }));
          void store.set(key, result, entities, ttlMs);
        },
      };
    },
  };
}

/** A query that is not introspection: `__schema` or `__type` at its root. */
function cacheableOperation({
  document,
  operationName,
}: ExecutionArgs): OperationDefinitionNode | undefined {
  const operation = getOperationAST(document, operationName);
  return operation?.operation === 'query' &&
    !selectsRootField(document, operation.selectionSet, INTROSPECTION)
    ? operation
    : undefined;
}

/**
 * The entry's key: the document, the operation and the variables it declares (others cannot
 * change the answer, so they do not split the cache). Undefined when the values cannot be
 * keyed, such as JSON nested deeper than the serialiser's stack: the request goes on uncached.
 */
async function keyOf(
  args: ExecutionArgs,
  operation: OperationDefinitionNode,
  variant: string,
): Promise<string | undefined> {
  const given = args.variableValues ?? {};
  const declared = Object.fromEntries(
    (operation.variableDefinitions ?? [])
      .map((definition) => definition.variable.name.value)
      .filter((name) => Object.hasOwn(given, name))
      .map((name) => [name, given[name]]),
  );
  try {
    return await defaultBuildResponseCacheKey({
      documentString: documentText(args.document),
      operationName: args.operationName,
      variableValues: declared,
      sessionId: `${variant}\n${(args.contextValue as KeyedContext).publicBase}`,
    });
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** What of the request context (src/context.ts) an answer depends on. */
interface KeyedContext {
  publicBase: string;
}

const INTROSPECTION = new Set(['__schema', '__type']);

const printedDocuments = new WeakMap<DocumentNode, string>();

/**
 * The text a client sent (yoga parses with locations), or for a document built as AST (the
 * REST routes') its printed form, printed once per document.
 */
function documentText(document: DocumentNode): string {
  const sent = document.loc?.source.body;
  if (sent !== undefined) return sent;
  let printed = printedDocuments.get(document);
  if (printed === undefined) {
    printed = print(document);
    printedDocuments.set(document, printed);
  }
  return printed;
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
