/**
 * The Redis connections of an app: the rate limits' at REDIS_URL, the response cache's at
 * RESPONSE_CACHE_REDIS_URL or else REDIS_URL (none when the cache is off). Both on one Redis
 * share one connection, so one breaker: the first command that finds Redis hung spares every
 * other use the wait.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openRedisConnection, type RedisConnection } from './connection.ts';

/** What a Redis is used for, as the breaker's metric labels it. */
export type RedisUseLabel = 'response_cache' | 'rate_limits';

export interface RedisConnections {
  cache: RedisConnection | undefined;
  limits: RedisConnection | undefined;
  close(): Promise<void>;
}

export type RedisSettings = Pick<
  Config,
  'redisUrl' | 'responseCacheRedisUrl' | 'responseCacheTtlSeconds' | 'redisCommandTimeoutMs'
>;

export function openRedisConnections(
  config: RedisSettings,
  logger: Logger,
  onBreakerChange?: (use: RedisUseLabel, open: boolean) => void,
): RedisConnections {
  const cacheUrl =
    config.responseCacheTtlSeconds === 0
      ? undefined
      : (config.responseCacheRedisUrl ?? config.redisUrl);
  const usesByUrl = new Map<string, RedisUseLabel[]>();
  const wanted: [RedisUseLabel, string | undefined][] = [
    ['response_cache', cacheUrl],
    ['rate_limits', config.redisUrl],
  ];
  for (const [use, url] of wanted) {
    if (url !== undefined) usesByUrl.set(url, [...(usesByUrl.get(url) ?? []), use]);
  }

  const connections = new Map<string, RedisConnection>();
  for (const [url, uses] of usesByUrl) {
    const breakerChanged = (open: boolean) => uses.forEach((use) => onBreakerChange?.(use, open));
    breakerChanged(false);
    connections.set(
      url,
      openRedisConnection({
        url,
        commandTimeoutMs: config.redisCommandTimeoutMs,
        logger,
        onBreakerChange: breakerChanged,
      }),
    );
  }
  const at = (url: string | undefined) => (url === undefined ? undefined : connections.get(url));
  return {
    cache: at(cacheUrl),
    limits: at(config.redisUrl),
    async close() {
      await Promise.all([...connections.values()].map((connection) => connection.close()));
    },
  };
}
