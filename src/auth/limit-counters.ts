/**
 * Where the rate limits and the token endpoint's failure limits count (rate-limiter-flexible):
 * in this process, or, with REDIS_URL, in Redis, so that every process behind the load balancer
 * counts against one limit instead of each against its own.
 *
 * Counts are kept in fixed windows: a key's window opens with its first point and lasts the
 * limit's duration; the count then starts again from nothing.
 *
 * Redis only ever shares the counts: while it is down, slow or refusing, each process counts
 * in its own memory (the library's insurance limiter), with one warning per outage and a
 * metric, so a request is never refused, failed or held up because of Redis.
 */
import { once } from 'node:events';
import { setTimeout } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { REDIS_CONNECT_TIMEOUT_MS } from '../cache/redis-store.ts';
import { redactUrl } from '../config.ts';
import type { Logger } from '../logger.ts';

/** A key's window: the points counted in it so far, and when it closes. */
export interface WindowCount {
  points: number;
  msBeforeNext: number;
}

/** One limit's counts, a window per key. */
export interface LimitCounter {
  /** Counts a point for `key`, over the limit or not: the caller decides with the count. */
  add(key: string): Promise<WindowCount>;
  /** The count of `key`'s open window, 0 points when it has none. */
  get(key: string): Promise<WindowCount>;
  /** Takes back a point `add` counted. */
  remove(key: string): Promise<void>;
}

/** Keys held back for a time each, the time chosen per hold: a delay, not a count. */
export interface LimitHolds {
  /** Holds `key` for `seconds` from now, replacing any hold it has. */
  hold(key: string, seconds: number): Promise<void>;
  /** Milliseconds left of `key`'s hold; 0 when it has none. */
  remainingMs(key: string): Promise<number>;
}

export interface LimitCounters {
  /** The counter of the limit `name`, its windows `durationSeconds` long. */
  counter(name: string, durationSeconds: number): LimitCounter;
  /** The holds named `name`. */
  holds(name: string): LimitHolds;
  /** Whether the connection to Redis is up; undefined when counting in this process. */
  redisConnected(): boolean | undefined;
  /** Closes the Redis connection, if there is one. */
  close(): Promise<void>;
}

export interface LimitCountersOptions {
  /** Unset: counted in this process. */
  redisUrl: string | undefined;
  /** Prepended to every key, as the response cache's are. */
  keyPrefix: string;
  /** How long one Redis command may take before the count is taken in memory instead. */
  commandTimeoutMs: number;
  logger: Logger;
  /** Called for each count taken in memory because Redis was unusable. */
  onFallback?: () => void;
}

/**
 * The library's limiters refuse past their `points`; these count on: the callers compare
 * against their own limits, which may change with the caller (anonymous, client).
 */
const UNREFUSED = Number.MAX_SAFE_INTEGER;

type Library = typeof import('rate-limiter-flexible');

/**
 * A key's window while it is open, else undefined: the in-process store forgets a closed
 * window only when a timer fires, and reads it back meanwhile with the time since it closed.
 */
function open(counted: RateLimiterRes | null): RateLimiterRes | undefined {
  return counted !== null && counted.msBeforeNext > 0 ? counted : undefined;
}

export function createLimitCounters(options: LimitCountersOptions): LimitCounters {
  const { logger } = options;
  let redis: Redis | undefined;
  // Loaded in the background: the library loads every store it has, and ioredis is only
  // needed with a Redis; neither need hold up the start.
  const loading = (async () => {
    // Their default exports (module.exports): a CommonJS module's only one in the production
    // bundle.
    const { default: library } = await import('rate-limiter-flexible');
    if (options.redisUrl === undefined) return { library, redis: undefined };
    const { default: ioredis } = await import('ioredis');
    const client = connect(ioredis.Redis, options.redisUrl);
    redis = client;
    // The first counts wait for the first connection (at most its timeout), so that a start
    // is not mistaken for an outage.
    await Promise.race([
      once(client, 'ready'),
      once(client, 'error'),
      setTimeout(REDIS_CONNECT_TIMEOUT_MS),
    ]).catch(() => undefined);
    return { library, redis: client };
  })();

  // Log transitions, not every failure: an outage is one warning, its end one info line.
  let healthy = true;
  const where = options.redisUrl === undefined ? undefined : redactUrl(options.redisUrl);
  function failed(error?: unknown): void {
    if (!healthy) return;
    healthy = false;
    logger.warn(
      { ...(error === undefined ? {} : { err: error }), redis: where },
      'rate limits: Redis unusable, counting in this process meanwhile',
    );
  }
  function connect(Client: typeof Redis, url: string): Redis {
    return new Client(url, {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      commandTimeout: options.commandTimeoutMs,
      // A command is sent only while connected; otherwise it fails at once and the count is
      // taken in memory (the limiter checks the status before each command too).
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect in the background, at most every 5 s, for as long as the process runs.
      retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
    })
      .on('error', failed)
      .on('ready', () => {
        if (healthy) return;
        healthy = true;
        logger.info({ redis: where }, 'rate limits: Redis is back');
      });
  }

  function limiterNamed(name: string, durationSeconds: number) {
    return loading.then(({ library, redis }) =>
      limiterOf(library, redis, {
        name,
        durationSeconds,
        keyPrefix: options.keyPrefix,
        onRedisFailure: () => {
          failed();
          options.onFallback?.();
        },
      }),
    );
  }

  // One counter per limit, however many ask for it: in process, as in Redis, they all share
  // the limit's counts.
  const counters = new Map<string, LimitCounter>();
  const namedHolds = new Map<string, LimitHolds>();
  return {
    counter(name, durationSeconds) {
      const id = `${name}/${durationSeconds}`;
      const counter = counters.get(id) ?? counterOf(limiterNamed(name, durationSeconds));
      counters.set(id, counter);
      return counter;
    },
    holds(name) {
      // The limiter's duration is never used: every hold names its own.
      const holds = namedHolds.get(name) ?? holdsOf(limiterNamed(name, 1));
      namedHolds.set(name, holds);
      return holds;
    },
    redisConnected: () => (options.redisUrl === undefined ? undefined : redis?.status === 'ready'),
    async close() {
      await loading;
      redis?.disconnect();
    },
  };
}

interface LimiterSpec {
  name: string;
  durationSeconds: number;
  /** The Redis keys' prefix (REDIS_KEY_PREFIX). */
  keyPrefix: string;
  onRedisFailure(): void;
}

/**
 * One limit's counts: in Redis when there is one, with an in-process limiter the library
 * turns to when a Redis command fails (`onRedisFailure` hears of it); else in process.
 */
function limiterOf(
  { RateLimiterMemory, RateLimiterRedis }: Library,
  client: Redis | undefined,
  { name, durationSeconds, keyPrefix, onRedisFailure }: LimiterSpec,
): RateLimiterAbstract {
  const limits = { points: UNREFUSED, duration: durationSeconds };
  if (client === undefined) return new RateLimiterMemory({ ...limits, keyPrefix: name });
  /** The library turns to it when a Redis command fails: the outage is noticed here. */
  class Insurance extends RateLimiterMemory {
    override consume(key: string | number, points?: number) {
      onRedisFailure();
      return super.consume(key, points);
    }
    override get(key: string | number) {
      onRedisFailure();
      return super.get(key);
    }
    override set(key: string | number, points: number, secDuration: number) {
      onRedisFailure();
      return super.set(key, points, secDuration);
    }
  }
  return new RateLimiterRedis({
    ...limits,
    storeClient: client,
    keyPrefix: `${keyPrefix}limit:${name}`,
    rejectIfRedisNotReady: true,
    insuranceLimiter: new Insurance({ ...limits, keyPrefix: name }),
  });
}

function counterOf(limiter: Promise<RateLimiterAbstract>): LimitCounter {
  return {
    async add(key) {
      const counted: RateLimiterRes = await (await limiter).consume(key);
      return { points: counted.consumedPoints, msBeforeNext: counted.msBeforeNext };
    },
    async get(key) {
      const counted = open(await (await limiter).get(key));
      return { points: counted?.consumedPoints ?? 0, msBeforeNext: counted?.msBeforeNext ?? 0 };
    },
    async remove(key) {
      await (await limiter).reward(key);
    },
  };
}

/** A hold is a window of its own length with one point: held while the window is open. */
function holdsOf(limiter: Promise<RateLimiterAbstract>): LimitHolds {
  return {
    async hold(key, seconds) {
      await (await limiter).set(key, 1, seconds);
    },
    async remainingMs(key) {
      return open(await (await limiter).get(key))?.msBeforeNext ?? 0;
    },
  };
}
