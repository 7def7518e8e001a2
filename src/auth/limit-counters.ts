/**
 * Where the rate limits and the token endpoint's failure limits count (rate-limiter-flexible):
 * in this process, or, with REDIS_URL, in Redis, so that every process behind the load balancer
 * counts against one limit instead of each against its own.
 *
 * Counts are kept in fixed windows: a key's window opens with its first point and lasts the
 * limit's duration; the count then starts again from nothing.
 *
 * Redis only ever shares the counts: while it is down, slow, hung or refusing, each process
 * counts in its own memory, with one warning per outage and a metric, so a request is never
 * refused, failed or held up because of Redis (src/redis/connection.ts: once the connection's
 * breaker is open, no count waits for Redis at all).
 */
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisConnection, RedisUse } from '../redis/connection.ts';
import { deleteKeysUnder } from '../redis/keys.ts';

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
  /**
   * Forgets the counts or holds `name` keeps for the keys `matches` accepts, in this process's
   * memory and in Redis (an operator's unlock): how many keys went, or undefined when Redis
   * could not be used (those in memory went all the same).
   */
  forget(name: string, matches: (key: string) => boolean): Promise<number | undefined>;
}

export interface LimitCountersOptions {
  /** Unset: counted in this process. */
  redis: RedisConnection | undefined;
  /** Prepended to every key, as the response cache's are. */
  keyPrefix: string;
  /** Called for each count taken in memory because Redis was unusable. */
  onFallback?: () => void;
}

/**
 * The library's limiters refuse past their `points`; these count on: the callers compare
 * against their own limits, which may change with the caller (anonymous, client).
 */
const UNREFUSED = Number.MAX_SAFE_INTEGER;

type Library = typeof import('rate-limiter-flexible');
type MemoryLimiter = InstanceType<Library['RateLimiterMemory']>;

/** Where a limit's keys are in Redis: the library adds `:<key>`. */
const redisPrefixOf = (keyPrefix: string, name: string) => `${keyPrefix}limit:${name}`;

/** Every limit's counts in Redis are one use of it, logged as one. */
const RATE_LIMITS: RedisUse = {
  name: 'rate limits',
  meanwhile: 'counting in this process meanwhile',
};

/** Runs an operation of a limit on the limiter that counts it now. */
type Counting = <T>(operation: (limiter: RateLimiterAbstract) => Promise<T>) => Promise<T>;

/**
 * A key's window while it is open, else undefined: the in-process store forgets a closed
 * window only when a timer fires, and reads it back meanwhile with the time since it closed.
 */
function open(counted: RateLimiterRes | null): RateLimiterRes | undefined {
  return counted !== null && counted.msBeforeNext > 0 ? counted : undefined;
}

export function createLimitCounters(options: LimitCountersOptions): LimitCounters {
  // Loaded in the background: the library loads every store it has; it need not hold up the
  // start. Its default export (module.exports): a CommonJS module's only one in the
  // production bundle.
  const library = import('rate-limiter-flexible').then(({ default: library }) => library);
  // Each limit's counts in this process, by name (one per duration asked for).
  const memories = new Map<string, Promise<MemoryLimiter>[]>();
  const countingOf = (name: string, duration: number) => {
    const memory = library.then(
      ({ RateLimiterMemory }) =>
        new RateLimiterMemory({ points: UNREFUSED, duration, keyPrefix: name }),
    );
    memories.set(name, [...(memories.get(name) ?? []), memory]);
    return countingIn(library, memory, options, { name, duration });
  };
  const runInRedis = options.redis?.runner(RATE_LIMITS);

  // One counter per limit, however many ask for it: in process, as in Redis, they all share
  // the limit's counts.
  const counters = new Map<string, LimitCounter>();
  const namedHolds = new Map<string, LimitHolds>();
  return {
    counter(name, durationSeconds) {
      const id = `${name}/${durationSeconds}`;
      const counter = counters.get(id) ?? counterOf(countingOf(name, durationSeconds));
      counters.set(id, counter);
      return counter;
    },
    holds(name) {
      // The limiter's duration is never used: every hold names its own.
      const holds = namedHolds.get(name) ?? holdsOf(countingOf(name, 1));
      namedHolds.set(name, holds);
      return holds;
    },
    async forget(name, matches) {
      let forgotten = 0;
      for (const memory of await Promise.all(memories.get(name) ?? [])) {
        for (const { key } of memory.dump().storage) {
          if (matches(String(key)) && (await memory.delete(key))) forgotten++;
        }
      }
      if (runInRedis === undefined) return forgotten;
      const prefix = `${redisPrefixOf(options.keyPrefix, name)}:`;
      const inRedis = await runInRedis((client) => deleteKeysUnder(client, prefix, matches));
      return inRedis === undefined ? undefined : forgotten + inRedis.value;
    },
  };
}

/**
 * One limit's counts: in Redis when there is one and it can be used, else in this process. An
 * operation Redis could not take is taken in memory, and `onFallback` hears of it.
 */
function countingIn(
  library: Promise<Library>,
  memory: Promise<MemoryLimiter>,
  { redis, keyPrefix, onFallback }: LimitCountersOptions,
  { name, duration }: { name: string; duration: number },
): Counting {
  if (redis === undefined) return async (operation) => operation(await memory);
  const run = redis.runner(RATE_LIMITS);
  const shared = Promise.all([library, redis.client]).then(
    ([{ RateLimiterRedis }, client]) =>
      new RateLimiterRedis({
        points: UNREFUSED,
        duration,
        storeClient: client,
        keyPrefix: redisPrefixOf(keyPrefix, name),
      }),
  );
  return async (operation) => {
    const limiter = await shared;
    const counted = await run(() => operation(limiter));
    if (counted !== undefined) return counted.value;
    onFallback?.();
    return operation(await memory);
  };
}

function counterOf(counting: Counting): LimitCounter {
  return {
    async add(key) {
      const counted = await counting((limiter) => limiter.consume(key));
      return { points: counted.consumedPoints, msBeforeNext: counted.msBeforeNext };
    },
    async get(key) {
      const counted = open(await counting((limiter) => limiter.get(key)));
      return { points: counted?.consumedPoints ?? 0, msBeforeNext: counted?.msBeforeNext ?? 0 };
    },
    async remove(key) {
      await counting((limiter) => limiter.reward(key));
    },
  };
}

/** A hold is a window of its own length with one point: held while the window is open. */
function holdsOf(counting: Counting): LimitHolds {
  return {
    async hold(key, seconds) {
      await counting((limiter) => limiter.set(key, 1, seconds));
    },
    async remainingMs(key) {
      return open(await counting((limiter) => limiter.get(key)))?.msBeforeNext ?? 0;
    },
  };
}
