/**
 * The shared response cache: results as JSON under `<prefix>response:<key>` in Redis, expiring
 * with the cache's TTL. Each tag of an entry (src/cache/answer-tags.ts) is a set
 * `<prefix>tag:<tag>` of the keys of the entries holding it, written with the entry in one
 * transaction and expiring with the newest of them; invalidating tags deletes their entries
 * and the sets in one script, so no entry is left behind untagged. Redis only ever makes
 * answers faster: when it is down, slow, hung or refusing, a lookup is a miss and a store is
 * dropped (src/redis/connection.ts), so a request never fails or waits on it longer than the
 * command timeout, and once its breaker is open, not at all.
 */
import type { Cache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.ts';
import type { RedisConnection } from '../redis/connection.ts';
import { deleteKeysUnder } from '../redis/keys.ts';

export interface RedisStoreOptions {
  connection: RedisConnection;
  /** Prepended to every key, so several deployments (or test runs) can share one Redis. */
  keyPrefix: string;
  logger: Logger;
  /** Called for each lookup or store that failed or was skipped because Redis was unusable. */
  onError?: () => void;
}

export interface RedisStore extends Cache {
  /** Deletes every answer and tag set: how many keys, or undefined when Redis was unusable. */
  purge(): Promise<number | undefined>;
}

/** Tags dropped per script call: a script's arguments are unpacked onto Lua's stack. */
const TAGS_PER_INVALIDATION = 500;

/** Deletes the entries of the tag sets KEYS, then the sets; answers how many entries. */
const DROP_TAGGED = `
local entries = redis.call('SUNION', unpack(KEYS))
for i = 1, #entries, 500 do
  redis.call('UNLINK', unpack(entries, i, math.min(i + 499, #entries)))
end
redis.call('UNLINK', unpack(KEYS))
return #entries`;

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { keyPrefix, logger } = options;
  const run = options.connection.runner({
    name: 'response cache',
    meanwhile: 'answering uncached',
  });
  /** Runs a command while Redis is usable: undefined when it is not or the command failed. */
  async function attempt<T>(
    command: (redis: Redis) => Promise<T>,
  ): Promise<{ value: T } | undefined> {
    const outcome = await run(command);
    if (outcome === undefined) options.onError?.();
    return outcome;
  }

  const keyOf = (id: string) => `${keyPrefix}response:${id}`;
  const tagKeyOf = (tag: string) => `${keyPrefix}tag:${tag}`;
  return {
    async get(id) {
      const text = (await attempt((redis) => redis.get(keyOf(id))))?.value;
      return text == null ? undefined : (JSON.parse(text) as ExecutionResult);
    },
    async set(id, result, entities, ttlMs) {
      const ttl = Math.max(1, Math.round(ttlMs));
      const tagKeys = [...entities].map(({ typename }) => tagKeyOf(typename));
      await attempt((redis) => storeTagged(redis, keyOf(id), JSON.stringify(result), ttl, tagKeys));
    },
    async invalidate(entities) {
      const tagKeys = [...entities].map(({ typename }) => tagKeyOf(typename));
      const dropped = await attempt((redis) => dropTagged(redis, tagKeys));
      // The answers stay until they expire: said every time, not once per outage.
      if (dropped === undefined) {
        logger.error(
          { tags: tagKeys.length },
          'response cache: could not drop the answers a change made stale; they expire with the TTL',
        );
      }
    },
    async purge() {
      const purged = await attempt(async (redis) => {
        let count = 0;
        for (const prefix of [keyOf(''), tagKeyOf('')])
          count += await deleteKeysUnder(redis, prefix);
        return count;
      });
      return purged?.value;
    },
  };
}

/** The entry, and its key in each of its tags' sets, in one transaction. */
async function storeTagged(
  redis: Redis,
  key: string,
  json: string,
  ttlMs: number,
  tagKeys: string[],
): Promise<void> {
  if (tagKeys.length === 0) {
    await redis.set(key, json, 'PX', ttlMs);
    return;
  }
  // The entry and its tags land together: an entry missing from a tag's set would outlive
  // that tag's invalidation.
  const transaction = redis.multi().set(key, json, 'PX', ttlMs);
  for (const tagKey of tagKeys) transaction.sadd(tagKey, key).pexpire(tagKey, ttlMs);
  const replies = await transaction.exec();
  if (replies === null) throw new Error('the transaction was discarded');
  const failed = replies.find(([error]) => error !== null);
  if (failed) throw failed[0];
}

/** Deletes the entries of the tags' sets and the sets, a batch of tags per script call. */
async function dropTagged(redis: Redis, tagKeys: string[]): Promise<void> {
  for (let start = 0; start < tagKeys.length; start += TAGS_PER_INVALIDATION) {
    const batch = tagKeys.slice(start, start + TAGS_PER_INVALIDATION);
    await redis.eval(DROP_TAGGED, batch.length, ...batch);
  }
}
