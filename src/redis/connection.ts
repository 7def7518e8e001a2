/**
 * One connection to a Redis the process shares something through (the response cache, the
 * rate limits; src/redis/connections.ts opens them). Redis only ever helps: a command is sent
 * only while the connection is ready and its circuit breaker closed, and otherwise skipped at
 * once, so the caller goes on without Redis (uncached, counting in its own memory).
 *
 * ioredis bounds each command (`commandTimeout`), sends nothing while disconnected
 * (`enableOfflineQueue: false`, no retries) and reconnects in the background. What it cannot
 * see is a Redis that keeps its connections open and stops answering (hung, stopped, stuck in
 * a long script): every command would wait out its timeout. So the first command that fails,
 * for whatever reason, opens the breaker (src/redis/circuit-breaker.ts): no command is sent
 * until a PING, once a second, is answered within the timeout.
 *
 * Each use logs its own transitions: a warning when it first cannot use Redis, an info line
 * when its commands succeed again; an outage is those two lines, not one per request.
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { redactUrl } from '../config.ts';
import type { Logger } from '../logger.ts';
import { createCircuitBreaker } from './circuit-breaker.ts';

export const REDIS_CONNECT_TIMEOUT_MS = 1000;
/** How often an open breaker asks Redis whether it answers again. */
export const REDIS_PROBE_INTERVAL_MS = 1000;

export interface RedisConnectionOptions {
  url: string;
  /** How long one command may take before it counts as failed. */
  commandTimeoutMs: number;
  logger: Logger;
  /** The breaker opened (true: commands are skipped) or closed again (false). */
  onBreakerChange?(open: boolean): void;
}

/** One use of a connection, as its log lines name it. */
export interface RedisUse {
  /** "response cache", "rate limits". */
  name: string;
  /** What the process does while it cannot use Redis: "answering uncached". */
  meanwhile: string;
}

/** Runs a command when Redis may be used: its value, or undefined when skipped or failed. */
export type RedisRunner = <T>(
  command: (client: Redis) => Promise<T>,
) => Promise<{ value: T } | undefined>;

export interface RedisConnection {
  /** The client, once ioredis is loaded and the first connection made (or failed). */
  readonly client: Promise<Redis>;
  /** How `use` runs its commands (one use may have several runners: one per limit). */
  runner(use: RedisUse): RedisRunner;
  /** Whether the connection is up now (connected and ready for commands). */
  connected(): boolean;
  close(): Promise<void>;
}

/**
 * A use's outages, logged once each. It is back at a command that succeeds a probe interval or
 * more after its last failure (or skip): a Redis that refuses some commands and takes others
 * (an ACL, a full memory refusing writes) is one outage, not one per request.
 */
function useHealth(use: RedisUse, logger: Logger, where: string) {
  let healthy = true;
  let failedAt = 0;
  return {
    failed(error: unknown): void {
      failedAt = Date.now();
      if (!healthy) return;
      healthy = false;
      logger.warn({ err: error, redis: where }, `${use.name}: Redis unusable, ${use.meanwhile}`);
    },
    succeeded(): void {
      if (healthy || Date.now() - failedAt < REDIS_PROBE_INTERVAL_MS) return;
      healthy = true;
      logger.info({ redis: where }, `${use.name}: Redis is back`);
    },
  };
}

export function openRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const { logger } = options;
  const where = redactUrl(options.url);
  // By name: every runner of one use shares its outages.
  const uses = new Map<string, ReturnType<typeof useHealth>>();
  // Why Redis cannot be used now (the connection's last error, the command that opened the
  // breaker): what a use whose command is skipped logs as the reason.
  let problem: unknown;
  let ready = false;

  // Loaded only when a Redis is configured: the client library adds to every start otherwise.
  const client = (async () => {
    // Its default export (module.exports): a CommonJS module's only one in the production bundle.
    const { default: ioredis } = await import('ioredis');
    const redis = new ioredis.Redis(options.url, {
      connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
      commandTimeout: options.commandTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Reconnect in the background, at most every 5 s, for as long as the process runs.
      retryStrategy: (attempt) => Math.min(attempt * 250, 5000),
    })
      .on('ready', () => (ready = true))
      .on('end', () => (ready = false))
      .on('error', (error: unknown) => {
        problem = error;
        for (const use of uses.values()) use.failed(error);
      })
      .on('close', () => {
        ready = false;
        problem = new Error('the connection to Redis closed');
      });
    // The first commands wait for the first connection (at most its timeout), so that a
    // start is not mistaken for an outage.
    const first = await Promise.race([
      once(redis, 'ready'),
      once(redis, 'error'),
      sleep(REDIS_CONNECT_TIMEOUT_MS, 'timed out', { ref: false }),
    ]).catch(() => undefined);
    if (first === 'timed out') {
      problem = new Error(`connecting timed out: not ready within ${REDIS_CONNECT_TIMEOUT_MS} ms`);
    }
    return redis;
  })();

  const breaker = createCircuitBreaker({
    probeIntervalMs: REDIS_PROBE_INTERVAL_MS,
    probe: async () => (await client).ping(),
    onChange: (state) => {
      if (state !== 'half-open') options.onBreakerChange?.(state === 'open');
    },
  });

  return {
    client,
    runner(use) {
      const health = uses.get(use.name) ?? useHealth(use, logger, where);
      uses.set(use.name, health);
      return async (command) => {
        const redis = await client;
        if (!breaker.closed() || redis.status !== 'ready') {
          health.failed(problem);
          return undefined;
        }
        try {
          const value = await command(redis);
          health.succeeded();
          return { value };
        } catch (error) {
          problem = error;
          breaker.trip();
          health.failed(error);
          return undefined;
        }
      };
    },
    connected: () => ready,
    async close() {
      breaker.stop();
      (await client).disconnect();
    },
  };
}
