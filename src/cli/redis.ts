/**
 * The Redis an operator's command reaches the serving processes' shared state in (the rate
 * limits' counts, the response cache's answers), through the connection they use themselves.
 */
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openRedisConnection, type RedisConnection } from '../redis/connection.ts';

/** Runs `work` on a connection to the Redis at `url`, closed after. */
export async function withCommandRedis<T>(
  config: Config,
  url: string,
  logger: Logger,
  work: (redis: RedisConnection) => Promise<T>,
): Promise<T> {
  const redis = openRedisConnection({
    url,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    // Its outage warnings speak of serving on meanwhile: the command's own error says more.
    logger: logger.child({}, { level: 'error' }),
  });
  try {
    return await work(redis);
  } finally {
    await redis.close();
  }
}
