/**
 * `cache purge`: empties the response cache (docs/operations.md, "Purging the cache"). The
 * answers in Redis go here, running processes or not; on a PostgreSQL server every serving
 * process is told (src/changes/notices.ts) and drops the answers its cache holds, in memory or
 * in Redis (again: one it was storing meanwhile). The embedded database belongs to its
 * serving process, so nothing reaches that process's memory: with Redis its answers are all
 * there.
 */
import { createRedisStore } from '../cache/redis-store.ts';
import { announceNotice } from '../changes/notices.ts';
import { redactUrl, type Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openCommandDatabase } from './database.ts';
import { CommandError } from './errors.ts';
import { withCommandRedis } from './redis.ts';

export async function purgeCache(config: Config, logger: Logger): Promise<void> {
  const redisUrl = config.responseCacheRedisUrl ?? config.redisUrl;
  if (config.databaseUrl === undefined && redisUrl === undefined) {
    throw new CommandError(
      'nothing to purge from here: without REDIS_URL the embedded database’s serving process ' +
        'keeps its answers in its own memory; they expire within RESPONSE_CACHE_TTL_SECONDS, ' +
        'or go when it restarts',
    );
  }
  // Redis first, so the count is the command's own; the processes told after drop what they
  // stored meanwhile, and are told even when Redis could not be purged.
  const purged = redisUrl === undefined ? undefined : await purgeRedis(config, redisUrl, logger);
  const told = config.databaseUrl !== undefined && (await tellServingProcesses(config, logger));
  if (purged === null) {
    throw new CommandError(
      `could not purge Redis at ${redactUrl(redisUrl!)}: its answers expire within ` +
        'RESPONSE_CACHE_TTL_SECONDS' +
        (told ? ' (the serving processes were told)' : ''),
    );
  }
  logger.info({ told, redisKeys: purged }, 'response cache purged');
  const parts = [
    ...(told ? ['the serving processes on the database drop the answers they keep'] : []),
    ...(purged === undefined ? [] : [`${purged} keys went from Redis`]),
  ];
  process.stdout.write(`purged the response cache: ${parts.join('; ')}\n`);
}

async function tellServingProcesses(config: Config, logger: Logger): Promise<true> {
  const database = await openCommandDatabase(config, logger, 'cache');
  try {
    await announceNotice(database.db, { kind: 'cache-purged' });
  } finally {
    await database.close();
  }
  return true;
}

/** Every answer and tag set under REDIS_KEY_PREFIX: how many keys went; null: Redis unusable. */
async function purgeRedis(config: Config, url: string, logger: Logger): Promise<number | null> {
  const purged = await withCommandRedis(config, url, logger, (connection) =>
    createRedisStore({ connection, keyPrefix: config.redisKeyPrefix, logger }).purge(),
  );
  return purged ?? null;
}
