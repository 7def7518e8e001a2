/**
 * Brute-force protection for the token endpoint: failed client authentications are counted
 * per client id and per client IP, each in a window that opens with its first failure. Once a
 * client id (or an IP) has had its failures, every attempt under it is refused until its
 * window closes, the right secret included: online guessing gets that many tries per window,
 * however it spreads them over addresses or ids.
 *
 * Apart from the request rate limiter on purpose: a tripped limit here refuses tokens only,
 * never the caller's read routes. Per process, like that limiter: behind N replicas an
 * attacker gets N times the tries.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import { DEFAULT_MAX_KEYS } from './rate-limiter.ts';

export interface TokenAttemptLimiterOptions {
  /** Failures per client id and window; 0 = unlimited. */
  failuresPerClient: number;
  /** Failures per client IP and window; 0 = unlimited. */
  failuresPerIp: number;
  windowMs: number;
  /** Windows kept at most per kind of key; beyond it the oldest is forgotten. */
  maxKeys?: number;
  /** Milliseconds on a clock that never goes back; tests pass their own. */
  now?: () => number;
}

export type AttemptOutcome<T> =
  | { locked: false; /** undefined: the attempt failed. */ result: T | undefined }
  | { locked: true; /** For `Retry-After`, in whole seconds. */ retryAfterSeconds: number };

export interface TokenAttemptLimiter {
  /**
   * Runs `verify`, one attempt of `clientId` from `clientIp`, unless either is locked out.
   * `verify` answering undefined is a failure; an answer, or an error (the database down, say),
   * counts nothing.
   */
  attempt<T>(
    clientId: string,
    clientIp: string | undefined,
    verify: () => Promise<T | undefined>,
  ): Promise<AttemptOutcome<T>>;
  /** Windows held now (for tests). */
  readonly size: number;
}

interface FailureWindow {
  failures: number;
  /** Attempts under way: each may yet fail, so each holds a failure's place until it ends. */
  pending: number;
  closesAt: number;
}

/**
 * The wait for a caller refused only because attempts under way might use up the allowance:
 * they end within a scrypt's time, and may well succeed.
 */
const PENDING_RETRY_MS = 1000;

/** One kind of key (client ids, IPs) and its allowance of failures per window. */
function createFailureCounter(limit: number, windowMs: number, maxKeys: number) {
  // Every window lasts windowMs from when it opened, and insertion order is opening order, so
  // the windows close front first: eviction only ever looks at the front.
  const windows = new Map<string, FailureWindow>();

  function openWindow(key: string, at: number): FailureWindow | undefined {
    const window = windows.get(key);
    return window && window.closesAt > at ? window : undefined;
  }

  return {
    get size() {
      return windows.size;
    },

    evictClosed(at: number): void {
      for (const [key, window] of windows) {
        if (window.closesAt > at) return;
        windows.delete(key);
      }
    },

    /** Milliseconds until `key` may try again; 0 when it may now. */
    lockedFor(key: string, at: number): number {
      const window = limit > 0 ? openWindow(key, at) : undefined;
      if (!window || window.failures + window.pending < limit) return 0;
      return window.failures >= limit ? window.closesAt - at : PENDING_RETRY_MS;
    },

    /**
     * Holds a failure's place for an attempt under way, so that a burst of parallel guesses
     * cannot all pass `lockedFor` before the first of them fails. Answers how to settle it.
     */
    reserve(key: string, at: number): (failed: boolean) => void {
      if (limit === 0) return () => undefined;
      let window = openWindow(key, at);
      if (!window) {
        window = { failures: 0, pending: 0, closesAt: at + windowMs };
        windows.delete(key);
        windows.set(key, window);
        // The memory bound under a flood of distinct keys: the oldest windows go first.
        for (const oldest of windows.keys()) {
          if (windows.size <= maxKeys) break;
          windows.delete(oldest);
        }
      }
      window.pending += 1;
      const reserved = window;
      return (failed) => {
        // The window may have closed meanwhile, and another opened under the same key.
        if (windows.get(key) !== reserved) return;
        reserved.pending -= 1;
        if (failed) reserved.failures += 1;
        if (reserved.failures + reserved.pending === 0) windows.delete(key);
      };
    },
  };
}

/**
 * A client id is whatever the caller sent, up to the endpoint's 8 KiB body: its digest bounds
 * the memory a key takes, and every id, known or unknown, well-formed or not, counts alike.
 */
function clientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url');
}

export function createTokenAttemptLimiterFromConfig(
  config: Pick<
    Config,
    'tokenFailuresPerClient' | 'tokenFailuresPerIp' | 'tokenFailureWindowSeconds'
  >,
): TokenAttemptLimiter {
  return createTokenAttemptLimiter({
    failuresPerClient: config.tokenFailuresPerClient,
    failuresPerIp: config.tokenFailuresPerIp,
    windowMs: config.tokenFailureWindowSeconds * 1000,
  });
}

export function createTokenAttemptLimiter(
  options: TokenAttemptLimiterOptions,
): TokenAttemptLimiter {
  const now = options.now ?? (() => performance.now());
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const byClient = createFailureCounter(options.failuresPerClient, options.windowMs, maxKeys);
  const byIp = createFailureCounter(options.failuresPerIp, options.windowMs, maxKeys);

  return {
    async attempt<T>(
      clientId: string,
      clientIp: string | undefined,
      verify: () => Promise<T | undefined>,
    ): Promise<AttemptOutcome<T>> {
      const at = now();
      const keys = [
        [byClient, clientKey(clientId)],
        [byIp, clientIp ?? 'unknown'],
      ] as const;
      for (const [counter] of keys) counter.evictClosed(at);

      const lockedMs = Math.max(...keys.map(([counter, key]) => counter.lockedFor(key, at)));
      if (lockedMs > 0) {
        return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil(lockedMs / 1000)) };
      }
      const settlements = keys.map(([counter, key]) => counter.reserve(key, at));
      let failed = false;
      try {
        const result = await verify();
        failed = result === undefined;
        return { locked: false, result };
      } finally {
        for (const settle of settlements) settle(failed);
      }
    },
    get size() {
      return byClient.size + byIp.size;
    },
  };
}
