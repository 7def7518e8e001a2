/**
 * The shared response cache: results as JSON under `<prefix>response:<key>` in Redis, expiring
 * with the cache's TTL. Each tag of an entry (src/cache/answer-tags.ts) is a set
 * `<prefix>tag:<tag>` of the keys of the entries holding it, written with the entry in one
 * transaction and expiring with the newest of them; invalidating tags deletes their entries
 * and the sets in one script, so no entry is left behind untagged. Redis only ever makes
 * answers faster: when it is down, slow or refusing, a lookup is a miss and a store is
 * dropped, with one warning per outage, so a request never fails or waits on it longer than
 * the command timeout.
 */
import type { Cache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';
import type { Redis, RedisOptions } from 'ioredis';
import { redactUrl } from '../config.ts';
import type { Logger } from '../logger.ts';

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key, so several deployments (or test runs) can share one Redis. */
  keyPrefix: string;
  logger: Logger;
  /** Called for each lookup or store that failed or was skipped because Redis was unusable. */
  onError?: () => void;
  /** How long a TCP connect may take before it counts as failed. */
  connectTimeoutMs?: number;
  /** How long one GET or SET may take; past that the request goes on uncached. */
  commandTimeoutMs: number;
}

export interface RedisStore extends Cache {
  /** Whether the connection to Redis is up now. */
  connected(): boolean;
  close(): Promise<void>;
}

export const REDIS_CONNECT_TIMEOUT_MS = 1000;
/** After a failed command, Redis is left alone this long: one request in that time pays. */
export const REDIS_PAUSE_AFTER_FAILURE_MS = 5000;

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

function clientOptions(options: RedisStoreOptions): RedisOptions {
  return {
    connectTimeout: options.connectTimeoutMs ?? REDIS_CONNECT_TIMEOUT_MS,
    // Bounds every command, also one queued while the first connection is being made.
    commandTimeout: options.commandTimeoutMs,
    // Commands wait for the first connection (see `usable`); after that, a command is only
    // sent while connected, and one in flight when the connection drops fails at once.
    enableOfflineQueue: true,
    maxRetriesPerRequest: 0,
    // Reconnect in the background, at most every 5 s, for as long as the process runs.
    retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
  };
}

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { keyPrefix, logger } = options;
  const connect = (Client: typeof Redis) =>
    new Client(options.url, clientOptions(options)).on('error', failed).on('ready', () => {
      firstConnection = false;
      succeeded();
    });

  // Log transitions, not every failure: an outage is one warning, its end one info line.
  let healthy = true;
  let firstConnection = true;
  let pausedUntil = 0;
  const where = redactUrl(options.url);
  function failed(error: unknown): void {
    firstConnection = false;
    if (!healthy) return;
    healthy = false;
    logger.warn({ err: error, redis: where }, 'response cache: Redis unusable, answering uncached');
  }
  // A command that failed while connected (a timeout, an error reply): Redis is slow or
  // broken, so requests stop asking it for a while rather than each waiting out the timeout.
  function commandFailed(error: unknown): void {
    pausedUntil = Date.now() + REDIS_PAUSE_AFTER_FAILURE_MS;
    options.onError?.();
    failed(error);
  }
  function succeeded(): void {
    if (healthy) return;
    healthy = true;
    logger.info({ redis: where }, 'response cache: Redis is back');
  }

  // Loaded only when a Redis is configured: the client library adds to every start otherwise.
  let redis: Redis | undefined;
  // Its default export (module.exports): a CommonJS module's only one in the production bundle.
  const connecting = import('ioredis').then(
    ({ default: ioredis }) => {
      redis = connect(ioredis.Redis);
    },
    (error: unknown) => failed(error),
  );

  const keyOf = (id: string) => `${keyPrefix}response:${id}`;
  const tagKeyOf = (tag: string) => `${keyPrefix}tag:${tag}`;
  // Right after start, a command waits for the connection being made (a process's first
  // requests are then cached like the rest); once that has failed, or while reconnecting
  // later, a command would only wait and fail: it is skipped (the 'error' event says why).
  async function usable(): Promise<Redis | undefined> {
    if (redis === undefined) await connecting;
    const status = redis?.status;
    const waitable = firstConnection && (status === 'connecting' || status === 'connect');
    if (Date.now() >= pausedUntil && (status === 'ready' || waitable)) return redis;
    options.onError?.();
    return undefined;
  }

  /** Runs a command while Redis is usable: undefined when it is not or the command failed. */
  async function attempt<T>(
    command: (redis: Redis) => Promise<T>,
  ): Promise<{ value: T } | undefined> {
    const redis = await usable();
    if (redis === undefined) return undefined;
    try {
      const value = await command(redis);
      succeeded();
      return { value };
    } catch (error) {
      commandFailed(error);
      return undefined;
    }
  }

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
          { redis: where, tags: tagKeys.length },
          'response cache: could not drop the answers a change made stale; they expire with the TTL',
        );
      }
    },
    connected: () => redis?.status === 'ready',
    async close() {
      await connecting;
      redis?.disconnect();
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
