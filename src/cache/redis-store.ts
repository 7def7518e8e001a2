/**
 * The shared response cache: results as JSON under `<prefix>response:<key>` in Redis, expiring
 * with the cache's TTL. Redis only ever makes answers faster: when it is down, slow or
 * refusing, a lookup is a miss and a store is dropped, with one warning per outage, so a
 * request never fails or waits on it longer than the command timeout.
 */
import type { Cache } from '@envelop/response-cache';
import type { ExecutionResult } from 'graphql';
import type { Redis } from 'ioredis';
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
  close(): Promise<void>;
}

export const REDIS_CONNECT_TIMEOUT_MS = 1000;
/** After a failed command, Redis is left alone this long: one request in that time pays. */
export const REDIS_PAUSE_AFTER_FAILURE_MS = 5000;

export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const { keyPrefix, logger } = options;
  const connect = (Client: typeof Redis) =>
    new Client(options.url, {
      connectTimeout: options.connectTimeoutMs ?? REDIS_CONNECT_TIMEOUT_MS,
      // Bounds every command, also one queued while the first connection is being made.
      commandTimeout: options.commandTimeoutMs,
      // Commands wait for the first connection (see `usable`); after that, a command is only
      // sent while connected, and one in flight when the connection drops fails at once.
      enableOfflineQueue: true,
      maxRetriesPerRequest: 0,
      // Reconnect in the background, at most every 5 s, for as long as the process runs.
      retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
    })
      .on('error', failed)
      .on('ready', () => {
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

  return {
    async get(id) {
      const redis = await usable();
      if (redis === undefined) return undefined;
      try {
        const text = await redis.get(keyOf(id));
        succeeded();
        return text === null ? undefined : (JSON.parse(text) as ExecutionResult);
      } catch (error) {
        commandFailed(error);
        return undefined;
      }
    },
    async set(id, result, _entities, ttlMs) {
      const redis = await usable();
      if (redis === undefined) return;
      try {
        await redis.set(keyOf(id), JSON.stringify(result), 'PX', Math.max(1, Math.round(ttlMs)));
        succeeded();
      } catch (error) {
        commandFailed(error);
      }
    },
    // Entries are never invalidated by entity: the API has no mutations, and every entry
    // expires with the TTL.
    invalidate() {},
    async close() {
      await connecting;
      redis?.disconnect();
    },
  };
}
